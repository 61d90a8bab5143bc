// The turns of the realistic bench session (realSession.ts runs them): what the user asks, which tools
// the model calls in each response, and its answer. The plan is made up front from the generated
// project: every Edit's old_string is cut from the file as it will be at that moment (the plan applies
// its own edits to a copy of the files). One `engram -p` process runs each turn and knows nothing of the
// last one's reads, so a turn that edits a file reads it first, as a model resuming a session does.
import path from 'node:path';
import type { PyModule, PyProject } from './pythonProject';

export interface Call {
  name: 'Read' | 'Grep' | 'Glob' | 'Bash' | 'Edit' | 'Write';
  input: Record<string, unknown>;
}

export interface TurnPlan {
  prompt: string;
  /** The responses that call tools, in order; the turn ends with `answer`. */
  steps: Call[][];
  answer: string;
}

/** Builds the turns and keeps the project's files as the session's edits leave them. */
class Plan {
  readonly turns: TurnPlan[] = [];
  private readonly files: Map<string, string>;

  constructor(
    project: PyProject,
    private readonly ws: string,
  ) {
    this.files = new Map(project.files);
  }

  turn(prompt: string, answer: string, ...steps: Call[][]): void {
    this.turns.push({ prompt: `Turn ${this.turns.length + 1}: ${prompt}`, steps, answer });
  }

  read(rel: string, range?: { offset: number; limit: number }): Call {
    return { name: 'Read', input: { file_path: path.join(this.ws, rel), ...range } };
  }

  grep(pattern: string, where?: string, caseInsensitive = false): Call {
    return {
      name: 'Grep',
      input: {
        pattern,
        ...(where ? { path: path.join(this.ws, where) } : {}),
        output_mode: 'content',
        '-n': true,
        ...(caseInsensitive ? { '-i': true } : {}),
      },
    };
  }

  glob(pattern: string): Call {
    return { name: 'Glob', input: { pattern } };
  }

  bash(command: string, description: string): Call {
    return { name: 'Bash', input: { command, description } };
  }

  compile(...rels: string[]): Call {
    // Python may be missing on the machine: then the call fails like any command, and the turn goes on.
    return this.bash(
      `python3 -m py_compile ${rels.join(' ')} && echo "compiled: ${rels.map((r) => path.basename(r)).join(', ')}"`,
      'Check that the files compile',
    );
  }

  /** An Edit whose old_string occurs exactly once in the file as it is now; the plan applies it. */
  edit(rel: string, oldString: string, newString: string): Call {
    const text = this.text(rel);
    const at = text.indexOf(oldString);
    if (at < 0 || text.indexOf(oldString, at + 1) >= 0)
      throw new Error(`bench plan: the edit of ${rel} does not match exactly once`);
    this.files.set(rel, text.slice(0, at) + newString + text.slice(at + oldString.length));
    return {
      name: 'Edit',
      input: { file_path: path.join(this.ws, rel), old_string: oldString, new_string: newString },
    };
  }

  /** A guard added after a function's signature and docstring (the two lines are unique). */
  guard(rel: string, fn: string, lines: string[]): Call {
    const text = this.text(rel);
    const start = text.indexOf(`def ${fn}(`);
    const docEnd = text.indexOf('\n', text.indexOf('\n', start) + 1);
    const head = text.slice(start, docEnd);
    return this.edit(rel, head, `${head}\n${lines.join('\n')}`);
  }

  write(rel: string, content: string): Call {
    this.files.set(rel, content);
    return { name: 'Write', input: { file_path: path.join(this.ws, rel), content } };
  }

  text(rel: string): string {
    const t = this.files.get(rel);
    if (t === undefined) throw new Error(`bench plan: no file ${rel}`);
    return t;
  }

  paramOf(rel: string, fn: string): string {
    return new RegExp(`def ${fn}\\((\\w+)`).exec(this.text(rel))?.[1] ?? 'items';
  }
}

/** The 40 turns, from the project the seed generated. */
export function planSession(project: PyProject, ws: string): TurnPlan[] {
  const plan = new Plan(project, ws);
  const [h1, h2, h3, h4] = project.modules;
  const w = project.modules.slice(4, 14);
  const t1 = project.tests.get(h1.name) ?? '';
  const t2 = project.tests.get(h2.name) ?? '';
  const pkg = project.pkg;
  const init = `src/${pkg}/__init__.py`;
  const fnA = h1.functions[0];
  const renamed = h2.methods[0];
  const renamedTo = `accept_${renamed.split('_').slice(1).join('_')}`;
  const exporter = `src/${pkg}/${h2.name}_export.py`;
  const exportFn = `export_${h2.name}_rows`;
  const errorOf = (m: PyModule): string =>
    `${m.className.replace(/(Store|Service|Registry|Builder|Manager)$/, '')}Error`;
  const lastTest = (rel: string): string => `def test_${rel.replace(/^tests\/test_|\.py$/g, '')}_rejects_bad_input():`;

  plan.turn(
    `I just cloned this project. Give me an overview: the layout, the main modules, and how the tests are organised.`,
    `${pkg} is a plain Python package under src/${pkg} (${project.modules.length} modules) with pytest tests under tests/. The biggest modules are ${h1.name}, ${h2.name}, ${h3.name} and ${h4.name}; ${h1.name} defines ${h1.className} and the helpers most other modules import. pyproject.toml sets up setuptools, pytest and ruff.`,
    [plan.glob('**/*.py'), plan.read('README.md'), plan.read('pyproject.toml')],
    [plan.read(h1.path)],
  );
  plan.turn(
    `Walk me through ${h1.path} and ${h2.path}: what are the main types, and who imports them?`,
    `${h1.className} and ${h2.className} are dataclasses holding one owner's records; the module functions work on plain dicts. ${h1.name} is imported by ${w[0].name} and ${w[1].name} (both call ${fnA}); ${h2.className} is used by ${h3.name}.`,
    [plan.grep(`from \\.(${h1.name}|${h2.name}) import`, 'src'), plan.read(h2.path)],
  );
  plan.turn(
    `Where is ${fnA} called, and what does it expect from its callers?`,
    `${fnA} takes an iterable of dicts and an optional owner; it skips rows without the key it groups on and raises ${errorOf(h1)} when there are too many. ${w[0].name} and ${w[1].name} pass it rows straight from their input, so they inherit that limit.`,
    [plan.grep(`${fnA}\\(`)],
    [plan.read(w[0].path), plan.read(w[1].path)],
  );
  plan.turn(
    `How is configuration loaded? ${w[2].path} looks like the place; how big are the modules overall?`,
    `${w[2].name} reads its limits from module constants; nothing is loaded from the environment. The four big modules make up about a third of the package's lines.`,
    [plan.read(w[2].path), plan.bash(`wc -l src/${pkg}/*.py`, 'Count lines per module')],
  );
  plan.turn(
    `Look at the tests for ${h1.name}. Are the edge cases covered?`,
    `${t1} covers empty and single-row input for the first six functions and one bad-input case, but nothing checks ${fnA} with rows that lack an owner. I'd add that.`,
    [plan.read(t1)],
    [plan.read(h1.path)],
  );
  plan.turn(
    `Explain the flow from ${h3.name} into ${h2.name}.`,
    `${h3.name} creates a ${h2.className} and calls ${renamed} on each row; the rows it accepts are counted. That is the only place ${h3.name} depends on ${h2.name}.`,
    [plan.read(h3.path), plan.grep(h2.className, 'src')],
  );
  plan.turn(
    `What does ${w[3].path} do, and is it still used anywhere?`,
    `${w[3].name} holds ${w[3].className} and ${w[3].functions.length} helpers; the grep shows who imports it, so it is still in use.`,
    [plan.read(w[3].path), plan.grep(`from \\.${w[3].name} import`, 'src')],
  );
  plan.turn(
    `Summarise how errors are raised and handled across ${h1.name}, ${h2.name} and ${h3.name}.`,
    `Each module has its own exception class (${errorOf(h1)}, ${errorOf(h2)}, ${errorOf(h3)}) raised on limits and encoding failures; nothing catches them inside the package, callers are expected to.`,
    [plan.grep('raise \\w+Error', 'src')],
    [plan.read(h2.path)],
  );
  plan.turn(
    `A user reports that ${fnA} blows up when it is given None instead of a list. Find the cause.`,
    `${fnA} iterates over its first argument directly, so None raises a TypeError before any check runs. The tests never pass None.`,
    [plan.read(h1.path), plan.grep(fnA, 'tests')],
  );
  const paramA = plan.paramOf(h1.path, fnA);
  plan.turn(
    `Fix it: ${fnA} should raise ${errorOf(h1)} with a clear message. Check that it compiles.`,
    `${fnA} now raises ${errorOf(h1)} when ${paramA} is None, before the loop; the module compiles.`,
    [plan.read(h1.path)],
    [
      plan.guard(h1.path, fnA, [
        `    if ${paramA} is None:`,
        `        raise ${errorOf(h1)}("${fnA}: no ${paramA} given")`,
      ]),
    ],
    [plan.compile(h1.path), plan.read(h1.path)],
  );
  plan.turn(
    `Add a regression test for that in ${t1}.`,
    `Added test_${fnA}_rejects_none, which expects the new error; the test file compiles.`,
    [plan.read(t1)],
    [
      plan.edit(
        t1,
        lastTest(t1),
        [
          `def test_${fnA}_rejects_none():`,
          `    with pytest.raises(Exception):`,
          `        ${fnA}(None, "acme")`,
          '',
          '',
          lastTest(t1),
        ].join('\n'),
      ),
    ],
    [plan.compile(t1)],
  );
  plan.turn(
    `Does the same problem exist in the callers, ${w[0].name} and ${w[1].name}?`,
    `${w[1].name} forwards its input to ${fnA} without a check, so a None reaches it; ${w[0].name} builds a list first and is safe.`,
    [plan.read(w[0].path), plan.read(w[1].path), plan.grep(`${fnA}\\(`)],
  );
  const w1First = w[1].functions[0];
  const w1Param = plan.paramOf(w[1].path, w1First);
  plan.turn(
    `Fix ${w[1].name} the same way.`,
    `${w1First} in ${w[1].name} now returns an empty list for None instead of calling ${fnA}; it compiles.`,
    [plan.read(w[1].path)],
    [plan.guard(w[1].path, w1First, [`    if ${w1Param} is None:`, '        return []'])],
    [plan.read(w[1].path), plan.compile(w[1].path)],
  );
  plan.turn(
    `Now let's look at ${h4.path} and ${w[4].path}. What do they do?`,
    `${h4.name} is the largest scheduler-like module: ${h4.className} plus helpers that retry and group work; ${w[4].name} is a smaller helper module it sits beside.`,
    [plan.read(h4.path), plan.read(w[4].path)],
  );
  plan.turn(
    `Where is the retry logic implemented?`,
    `Retries are loops bounded by each module's DEFAULT_*_TIMEOUT constant, copied in several modules; ${w[5].name} has a typical one.`,
    [plan.grep('attempts|retry', 'src', true)],
    [plan.read(w[5].path)],
  );
  plan.turn(
    `Compare how ${w[5].name} retries with what ${h4.name} does.`,
    `Both count attempts against a module constant and log each retry; ${h4.name} raises after the last attempt while ${w[5].name} gives up quietly in places. They could share one helper.`,
    [plan.read(h4.path), plan.bash(`cat ${w[5].path}`, `Show ${w[5].name}`)],
  );
  plan.turn(
    `I want to rename ${h2.className}.${renamed} to ${renamedTo}. List every use first.`,
    `${renamed} is defined in ${h2.path} and called once, in ${h3.path}; nothing in the tests uses it.`,
    [plan.grep(`${renamed}\\(`), plan.read(h2.path)],
  );
  plan.turn(
    `Do the rename.`,
    `Renamed the method in ${h2.name} and its call in ${h3.name}.`,
    [plan.read(h2.path), plan.read(h3.path)],
    [
      plan.edit(h2.path, `    def ${renamed}(self`, `    def ${renamedTo}(self`),
      plan.edit(h3.path, `.${renamed}(`, `.${renamedTo}(`),
    ],
    [plan.read(h2.path), plan.read(h3.path)],
  );
  plan.turn(
    `Check that nothing still uses the old name and that both files compile.`,
    `No reference to ${renamed} is left, and both modules compile.`,
    [plan.bash(`grep -rn "${renamed}(" src tests`, 'Look for the old name'), plan.compile(h2.path, h3.path)],
  );
  plan.turn(
    `Look at ${w[6].path} and ${w[7].path}: should they validate their input the way ${h1.name} now does?`,
    `${w[6].name} should: its first function trusts its input the way ${fnA} did. ${w[7].name} only formats data it built itself.`,
    [plan.read(w[6].path), plan.read(w[7].path)],
  );
  const w6First = w[6].functions[0];
  plan.turn(
    `Update ${w[6].name} then.`,
    `${w6First} now raises ${errorOf(w[6])} for None input.`,
    [plan.read(w[6].path)],
    [
      plan.guard(w[6].path, w6First, [
        `    if ${plan.paramOf(w[6].path, w6First)} is None:`,
        `        raise ${errorOf(w[6])}("${w6First}: no input")`,
      ]),
    ],
    [plan.read(w[6].path)],
  );
  const touched = [h1, h2, h3, w[1], w[6]].map((m) => m.path).join(' ');
  plan.turn(
    `How big are the modules we touched so far, and how many functions does each have?`,
    `${h1.name}, ${h2.name}, ${h3.name}, ${w[1].name} and ${w[6].name} grew by a few lines each; ${h1.name} and ${h2.name} have the most functions.`,
    [plan.bash(`wc -l ${touched}`, 'Count lines'), plan.bash(`grep -c "^def " ${touched}`, 'Count functions')],
  );
  const strict = `${h1.name.toUpperCase()}_STRICT`;
  plan.turn(
    `Back to the configuration in ${w[2].name}: does it have a switch for strict input checks?`,
    `No: ${w[2].name} has no such setting; the grep finds nothing.`,
    [plan.read(w[2].path), plan.grep('strict', w[2].path, true)],
  );
  const timeoutLine = new RegExp(`^DEFAULT_\\w+_TIMEOUT = \\d+$`, 'm').exec(plan.text(w[2].path))?.[0] ?? '';
  plan.turn(
    `Add one, off by default, next to the other constants.`,
    `Added ${strict} = False below the timeout constant in ${w[2].name}; it compiles.`,
    [plan.read(w[2].path)],
    [
      plan.edit(
        w[2].path,
        timeoutLine,
        `${timeoutLine}\n# Reject rows with missing fields instead of skipping them.\n${strict} = False`,
      ),
    ],
    [plan.read(w[2].path), plan.compile(w[2].path)],
  );
  plan.turn(
    `Extend the ${h1.name} tests: None should also be refused when an owner is given.`,
    `Added test_${fnA}_rejects_none_with_owner to ${t1}.`,
    [plan.read(t1)],
    [
      plan.edit(
        t1,
        lastTest(t1),
        [
          `def test_${fnA}_rejects_none_with_owner():`,
          `    with pytest.raises(Exception):`,
          `        ${fnA}(None, "owner-1")`,
          '',
          '',
          lastTest(t1),
        ].join('\n'),
      ),
    ],
  );
  plan.turn(
    `Show me ${h1.path} again; I want to check the fix in context.`,
    `The guard sits right after the docstring of ${fnA}, before the loop, as intended.`,
    [plan.read(h1.path)],
  );
  plan.turn(
    `I want a small exporter that writes ${h2.name} rows as CSV. What should it build on?`,
    `It can create a ${h2.className}, keep the rows ${renamedTo} accepts and write them with csv.DictWriter; ${w[8].name} shows the module layout to follow.`,
    [plan.read(h2.path), plan.read(w[8].path)],
  );
  plan.turn(
    `Write it as ${exporter}.`,
    `Wrote ${exporter} with ${exportFn}; it compiles.`,
    [plan.write(exporter, exporterText(h2, renamedTo, exportFn))],
    [plan.compile(exporter)],
  );
  plan.turn(
    `Add a test for the exporter in ${t2}.`,
    `Added test_${exportFn} to ${t2}: two rows in, a header and the accepted rows out.`,
    [plan.read(t2)],
    [
      plan.edit(
        t2,
        lastTest(t2),
        [
          `def test_${exportFn}():`,
          `    from ${pkg}.${h2.name}_export import ${exportFn}`,
          `    text = ${exportFn}([{"id": "a", "owner": "acme"}, {"id": "b"}])`,
          '    assert text.splitlines()[0].startswith("id")',
          '',
          '',
          lastTest(t2),
        ].join('\n'),
      ),
    ],
  );
  const w9Import = /^from \.\w+ import \w+$/m.exec(plan.text(w[9].path))?.[0] ?? '';
  plan.turn(
    `Wire the exporter into ${w[9].path}.`,
    `${w[9].name} now imports ${exportFn} next to its other imports.`,
    [plan.read(w[9].path)],
    [plan.edit(w[9].path, w9Import, `${w9Import}\nfrom .${h2.name}_export import ${exportFn}`)],
    [plan.read(w[9].path)],
  );
  plan.turn(
    `Export it from the package too.`,
    `${init} imports ${exportFn} and lists it in __all__.`,
    [plan.read(init)],
    [plan.edit(init, '__all__ = [', `from .${h2.name}_export import ${exportFn}\n\n__all__ = [\n    "${exportFn}",`)],
  );
  plan.turn(
    `Let's review everything we changed. Start with ${h1.name} and its tests.`,
    `${h1.name}: the None guard in ${fnA} is in place. ${t1}: two new tests cover None with and without an owner.`,
    [plan.read(h1.path), plan.read(t1)],
  );
  plan.turn(
    `Now ${h2.name} and ${h3.name}.`,
    `The rename to ${renamedTo} is consistent in both; nothing else changed there.`,
    [plan.read(h2.path), plan.read(h3.path)],
  );
  plan.turn(`And ${w[1].name} and ${w[6].name}.`, `Both guards are in place and match the style of ${h1.name}.`, [
    plan.read(w[1].path),
    plan.read(w[6].path),
  ]);
  plan.turn(
    `Did the rename affect ${h4.name} in any way?`,
    `No: ${h4.name} never called ${renamed}, and it does not mention ${renamedTo} either.`,
    [plan.read(h4.path), plan.grep(renamedTo, h4.path)],
  );
  plan.turn(
    `Go back over ${w[0].name}, ${w[4].name} and ${w[5].name}; anything we missed?`,
    `Nothing else needs changing: ${w[0].name} builds its own list, ${w[4].name} does not take outside input, and ${w[5].name}'s retries are as before.`,
    [plan.read(w[0].path), plan.read(w[4].path), plan.bash(`cat ${w[5].path}`, `Show ${w[5].name}`)],
  );
  const h3Doc = plan.text(h3.path).split('\n')[0];
  plan.turn(
    `The module docstring of ${h3.name} should say that it feeds ${h2.className}. Update it.`,
    `The docstring of ${h3.name} now says that it hands rows to ${h2.className}.`,
    [plan.read(h3.path)],
    [plan.edit(h3.path, h3Doc, `${h3Doc.replace(/\.$/, '')}, and hands rows to ${h2.className}.`)],
    [plan.read(h3.path)],
  );
  plan.turn(
    `Run a last check: compile everything we touched and look for leftover TODOs.`,
    `All touched files compile, and there are no TODO or FIXME markers in src.`,
    [
      plan.compile(h1.path, h2.path, h3.path, w[1].path, w[6].path, w[2].path, exporter, w[9].path, init, t1, t2),
      plan.bash('grep -rn "TODO\\|FIXME" src || true', 'Look for TODO markers'),
    ],
  );
  plan.turn(
    `Does the README need an update for the exporter?`,
    `Yes: the layout list in README.md should mention ${exporter}; the development section is still right.`,
    [plan.read('README.md')],
  );
  plan.turn(
    `Give me a final summary of what we changed, file by file.`,
    `Changed: ${h1.path} (None guard), ${t1} (2 tests), ${w[1].path} and ${w[6].path} (guards), ${h2.path} and ${h3.path} (rename to ${renamedTo}, docstring), ${w[2].path} (${strict}), ${w[9].path} and ${init} (exporter wiring), ${t2} (exporter test); new: ${exporter}.`,
    [plan.glob(`src/${pkg}/*.py`)],
  );
  return plan.turns;
}

function exporterText(h2: PyModule, method: string, fn: string): string {
  return [
    `"""CSV export of ${h2.name} rows for the reporting jobs."""`,
    'from __future__ import annotations',
    '',
    'import csv',
    'import io',
    'from typing import Any, Iterable',
    '',
    `from .${h2.name} import ${h2.className}`,
    '',
    'EXPORT_FIELDS = ("id", "owner", "status", "amount")',
    '',
    '',
    `def ${fn}(rows: Iterable[dict[str, Any]]) -> str:`,
    `    """The rows ${h2.className} accepts, as CSV text with a header line."""`,
    `    store = ${h2.className}()`,
    '    out = io.StringIO()',
    '    writer = csv.DictWriter(out, fieldnames=EXPORT_FIELDS, extrasaction="ignore")',
    '    writer.writeheader()',
    '    for row in rows:',
    `        if store.${method}(row):`,
    '            writer.writerow({key: row.get(key, "") for key in EXPORT_FIELDS})',
    '    return out.getvalue()',
    '',
  ].join('\n');
}
