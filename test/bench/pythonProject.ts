// A generated Python project for the realistic bench session (realSession.ts): a package of modules
// 100-600 lines long that import and call each other, a tests folder, a README and a pyproject.toml.
// Everything follows from one seed, so a second seed gives a held-out project of the same shape that
// nothing was tuned on. The code only has to look like code a model would read: names, docstrings,
// dataclasses, loops and error handling in the proportions of a real service; nobody runs it.

/** mulberry32: a small seeded generator, enough for picking names and sizes. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Picker {
  constructor(readonly next: () => number) {}

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  one<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  shuffled<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }
}

const PACKAGES = ['ledgerline', 'tidewater', 'quarrystone', 'orbitdesk', 'harborview', 'brightpath'];
const MODULE_NAMES = [
  'accounts',
  'audit',
  'batching',
  'billing',
  'cache',
  'calendar',
  'clients',
  'currency',
  'events',
  'exporters',
  'fees',
  'forecast',
  'importers',
  'invoices',
  'journal',
  'locks',
  'metrics',
  'notifications',
  'parsing',
  'payments',
  'permissions',
  'pricing',
  'reconcile',
  'reports',
  'retries',
  'scheduler',
  'serializers',
  'sessions',
  'storage',
  'taxes',
  'timeutil',
  'transfers',
  'validation',
  'webhooks',
  'workers',
  'quotas',
];
const NOUNS = [
  'record',
  'entry',
  'batch',
  'account',
  'amount',
  'period',
  'rule',
  'event',
  'payload',
  'window',
  'limit',
  'owner',
  'status',
  'invoice',
  'schedule',
  'report',
  'snapshot',
  'token',
  'row',
  'transfer',
  'balance',
  'item',
  'job',
];
const VERBS = [
  'load',
  'parse',
  'validate',
  'apply',
  'merge',
  'compute',
  'render',
  'flush',
  'collect',
  'resolve',
  'normalize',
  'split',
  'group',
  'export',
  'sync',
  'build',
  'check',
  'format',
  'update',
  'match',
  'select',
  'close',
];
const FIELDS = [
  'id',
  'owner',
  'status',
  'amount',
  'currency',
  'created_at',
  'updated_at',
  'period',
  'reference',
  'tags',
  'priority',
];
const PURPOSES = [
  'keeps the rules for',
  'reads and writes',
  'turns raw input into',
  'checks and normalises',
  'groups and totals',
  'schedules the work on',
  'sends out the changes to',
  'caches the lookups of',
];

export interface PyModule {
  /** Path relative to the project root, e.g. src/ledgerline/billing.py. */
  path: string;
  /** The Python module name, e.g. billing. */
  name: string;
  /** Top-level functions, in file order. */
  functions: string[];
  /** The first class and its methods (every module has one). */
  className: string;
  methods: string[];
  /** Names this module imports from others: [module, function]. */
  calls: Array<[string, string]>;
  /** A module whose class this one creates, calling its first method once. */
  usesClassOf?: PyModule;
}

export interface PyProject {
  pkg: string;
  /** Path relative to the root -> content. */
  files: Map<string, string>;
  /** The package's modules, biggest first. */
  modules: PyModule[];
  /** tests/test_<module>.py for the biggest modules, by module name. */
  tests: Map<string, string>;
}

/** Lines of each module, biggest first: a few large central files, a middle, and small helpers. */
function moduleSizes(p: Picker, count: number): number[] {
  return Array.from({ length: count }, (_, i) =>
    i < 4 ? p.int(410, 540) : i < 14 ? p.int(260, 420) : p.int(100, 260),
  ).sort((a, b) => b - a);
}

/** Every module has at least this many functions: the first ones are what other modules import. */
const MIN_FUNCTIONS = 3;
/**
 * Links the realistic session relies on, by module index (biggest first): the modules at 4 and 5 call
 * the first function of the module at 0 (the session traces its callers and fixes them), and the one
 * at 2 creates the class of the one at 1 and calls its first method (the session renames that method).
 */
const CALLS_FIRST_FUNCTION: Array<[number, number]> = [
  [4, 0],
  [5, 0],
];
const USES_CLASS: [number, number] = [2, 1];

export function generateProject(seed: number): PyProject {
  const p = new Picker(seededRandom(seed));
  const pkg = p.one(PACKAGES);
  const names = p.shuffled(MODULE_NAMES).slice(0, p.int(27, 32));
  const sizes = moduleSizes(p, names.length);
  const used = new Set<string>();
  // Names first, so a module can import from any other, bigger or smaller.
  const modules: PyModule[] = names.map((name) => ({
    path: `src/${pkg}/${name}.py`,
    name,
    functions: [],
    methods: [],
    calls: [],
    className: `${capital(singular(name))}${p.one(['Store', 'Service', 'Registry', 'Builder', 'Manager'])}`,
  }));
  modules.forEach((m, i) => {
    // More names than a module of 600 lines uses; moduleText keeps the ones it wrote.
    for (let n = 0; n < 45; n++) m.functions.push(uniqueName(p, used, singular(m.name)));
    for (let n = 0; n < Math.min(6, Math.max(2, Math.floor(sizes[i] / 100))); n++)
      m.methods.push(uniqueName(p, used, singular(m.name)));
  });
  const files = new Map<string, string>();
  modules.forEach((m, i) => {
    const forced = CALLS_FIRST_FUNCTION.filter(([from]) => from === i).map(([, to]) => modules[to]);
    for (const d of forced) m.calls.push([d.name, d.functions[0]]);
    const deps = p.shuffled(modules.filter((o) => o !== m && !forced.includes(o))).slice(0, p.int(1, 2));
    for (const d of deps) m.calls.push([d.name, p.one(d.functions.slice(0, MIN_FUNCTIONS))]);
    if (i === USES_CLASS[0]) m.usesClassOf = modules[USES_CLASS[1]];
    const { text, functions } = moduleText(p, pkg, m, sizes[i]);
    m.functions = functions;
    files.set(m.path, text);
  });
  const tests = new Map<string, string>();
  for (const m of modules.slice(0, 8)) {
    const path = `tests/test_${m.name}.py`;
    tests.set(m.name, path);
    files.set(path, testText(p, pkg, m));
  }
  files.set(`src/${pkg}/__init__.py`, initText(pkg, modules));
  files.set('tests/__init__.py', '');
  files.set('README.md', readmeText(pkg, modules));
  files.set('pyproject.toml', pyprojectText(pkg));
  files.set('.gitignore', '__pycache__/\n*.pyc\n.venv/\ndist/\nbuild/\n');
  return { pkg, files, modules, tests };
}

function uniqueName(p: Picker, used: Set<string>, topic: string): string {
  for (let i = 0; ; i++) {
    const name = i < 20 ? `${p.one(VERBS)}_${p.one([...NOUNS, topic])}` : `${p.one(VERBS)}_${topic}_${p.one(NOUNS)}`;
    if (!used.has(name)) {
      used.add(name);
      return name;
    }
  }
}

function singular(name: string): string {
  return name.endsWith('ies') ? `${name.slice(0, -3)}y` : name.endsWith('s') ? name.slice(0, -1) : name;
}

function plural(noun: string): string {
  return noun.endsWith('y') ? `${noun.slice(0, -1)}ies` : /(s|ch)$/.test(noun) ? `${noun}es` : `${noun}s`;
}

function capital(s: string): string {
  return s
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
}

/** The module's source, filled with functions until it has about `lines` lines; the functions it has. */
function moduleText(p: Picker, pkg: string, m: PyModule, lines: number): { text: string; functions: string[] } {
  const topic = singular(m.name);
  const constants = [
    `MAX_${topic.toUpperCase()}S`,
    `DEFAULT_${topic.toUpperCase()}_TIMEOUT`,
    `${topic.toUpperCase()}_FIELDS`,
  ];
  const head = [
    `"""${capital(m.name)}: ${p.one(PURPOSES)} ${topic} data for ${pkg}.`,
    '',
    `Everything here works on plain ${capital(topic)} objects; storage and transport live in other modules.`,
    `The functions are pure unless their name says otherwise (flush_*, sync_*).`,
    '"""',
    'from __future__ import annotations',
    '',
    'import json',
    'import logging',
    'from dataclasses import dataclass, field',
    'from decimal import Decimal',
    'from typing import Any, Iterable',
    '',
    ...m.calls.map(([mod, fn]) => `from .${mod} import ${fn}`),
    ...(m.usesClassOf ? [`from .${m.usesClassOf.name} import ${m.usesClassOf.className}`] : []),
    '',
    'logger = logging.getLogger(__name__)',
    '',
    `${constants[0]} = ${p.int(50, 500)}`,
    `${constants[1]} = ${p.int(5, 120)}`,
    `${constants[2]} = (${p
      .shuffled(FIELDS)
      .slice(0, 4)
      .map((f) => `"${f}"`)
      .join(', ')})`,
    '',
    '',
    `class ${capital(topic)}Error(Exception):`,
    `    """Raised when a ${topic} cannot be handled."""`,
    '',
    '',
    ...classText(p, m, topic),
  ];
  const out = head.slice();
  const functions: string[] = [];
  // The last name is kept for the function that uses another module's class, if any.
  const classUser = m.usesClassOf ? m.functions[m.functions.length - 1] : undefined;
  for (const name of m.functions.slice(0, -1)) {
    if (out.length >= lines - 6 && functions.length >= MIN_FUNCTIONS) break;
    // The first function calls the first import, so every traced import has a caller to find.
    const first = functions.length === 0;
    const helper = m.calls.length === 0 ? 'str' : first ? m.calls[0][1] : p.one(m.calls)[1];
    out.push('', '', ...functionText(p, name, topic, constants, helper, first));
    functions.push(name);
    if (first && classUser && m.usesClassOf) {
      out.push('', '', ...classUseText(p, classUser, m.usesClassOf));
      functions.push(classUser);
    }
  }
  return { text: `${out.join('\n')}\n`, functions };
}

function classText(p: Picker, m: PyModule, topic: string): string[] {
  const fields = p.shuffled(FIELDS).slice(0, p.int(4, 6));
  const out = [
    '@dataclass',
    `class ${m.className}:`,
    `    """The ${topic} records of one owner, with the rules that apply to them."""`,
    '',
    ...fields.map(
      (f) =>
        `    ${f}: ${f === 'amount' ? 'Decimal = Decimal("0")' : f === 'tags' ? 'list[str] = field(default_factory=list)' : 'str = ""'}`,
    ),
    `    items: list[dict[str, Any]] = field(default_factory=list)`,
  ];
  for (const method of m.methods) {
    const attr = p.one(fields);
    out.push(
      '',
      `    def ${method}(self, ${topic}: dict[str, Any]) -> bool:`,
      `        """${capital(method.split('_')[0])} one ${topic} against this ${m.className}."""`,
      `        if ${topic}.get("${attr}") in (None, ""):`,
      `            logger.debug("%s: no ${attr} on %r", "${method}", ${topic})`,
      '            return False',
      `        self.items.append(${topic})`,
      '        return True',
    );
  }
  return out;
}

/** A function that creates `other`'s class and calls its first method: the one call site of that method. */
function classUseText(p: Picker, name: string, other: PyModule): string[] {
  const noun = p.one(NOUNS);
  return [
    `def ${name}(${plural(noun)}: Iterable[dict[str, Any]]) -> int:`,
    `    """Hand the ${plural(noun)} to a fresh ${other.className}; how many it accepted."""`,
    `    store = ${other.className}()`,
    '    accepted = 0',
    `    for ${noun} in ${plural(noun)}:`,
    `        if store.${other.methods[0]}(${noun}):`,
    '            accepted += 1',
    `    logger.info("%s: %d accepted", "${name}", accepted)`,
    '    return accepted',
  ];
}

/** One top-level function: signature, one-line docstring (edits anchor on it), and a body from a template. */
function functionText(
  p: Picker,
  name: string,
  topic: string,
  constants: string[],
  helper: string,
  first: boolean,
): string[] {
  const noun = p.one(NOUNS);
  const arg = plural(noun);
  const other = p.one(NOUNS.filter((n) => n !== noun));
  const attr = p.one(FIELDS);
  const sig = `def ${name}(${arg}: Iterable[dict[str, Any]], ${other}: str | None = None) -> ${p.one(['list[dict[str, Any]]', 'dict[str, Any]', 'Decimal', 'int', 'bool'])}:`;
  const doc = `    """${capital(name.split('_')[0])} the ${arg} of one ${topic} (${p.one(['in place', 'without side effects', 'in input order', 'grouped by ' + attr])})."""`;
  const bodies: Array<() => string[]> = [
    () => [
      `    result = []`,
      `    for item in ${arg}:`,
      `        if item.get("${attr}") is None:`,
      '            continue',
      `        if ${other} is not None and item.get("owner") != ${other}:`,
      '            continue',
      `        result.append(${helper}(item))`,
      `    if len(result) > ${constants[0]}:`,
      `        raise ${capital(topic)}Error(f"too many ${arg}: {len(result)}")`,
      '    return result',
    ],
    () => [
      '    total = Decimal("0")',
      `    for row in ${arg}:`,
      `        amount = Decimal(str(row.get("amount", "0")))`,
      `        if row.get("status") == "void":`,
      '            continue',
      '        total += amount',
      `    logger.debug("%s: total %s for %s", "${name}", total, ${other})`,
      '    return total.quantize(Decimal("0.01"))',
    ],
    () => [
      '    seen: dict[str, Any] = {}',
      `    for item in ${arg}:`,
      `        key = f"{item.get('${attr}')}:{${other}}"`,
      '        if key in seen:',
      `            logger.info("duplicate ${topic} %s", key)`,
      '            continue',
      '        seen[key] = item',
      '    return seen',
    ],
    () => [
      `    payload = {"${attr}": ${other}, "count": 0, "rows": []}`,
      `    for row in ${arg}:`,
      '        try:',
      '            encoded = json.dumps(row, sort_keys=True, default=str)',
      '        except (TypeError, ValueError) as exc:',
      `            raise ${capital(topic)}Error(f"cannot encode ${topic}: {exc}") from exc`,
      '        payload["rows"].append(encoded)',
      '        payload["count"] += 1',
      '    return payload',
    ],
    () => [
      `    items = [dict(item) for item in ${arg}]`,
      '    if not items:',
      '        return []',
      `    items.sort(key=lambda item: (item.get("${attr}") or "", item.get("id") or ""))`,
      `    for index, item in enumerate(items):`,
      `        item["position"] = index`,
      `        item["${topic}"] = ${other} or "default"`,
      '    return items',
    ],
    () => [
      '    attempts = 0',
      `    for item in ${arg}:`,
      `        while attempts < ${constants[1]}:`,
      '            attempts += 1',
      `            if ${helper}(item):`,
      '                break',
      `            logger.warning("retrying %s (%d)", item.get("id"), attempts)`,
      '        else:',
      `            raise ${capital(topic)}Error("gave up after %d attempts" % attempts)`,
      '    return attempts',
    ],
    () => [
      `    missing = [field for field in ${constants[2]} if field not in (${other} or "")]`,
      `    for item in ${arg}:`,
      `        for field in ${constants[2]}:`,
      '            if field not in item:',
      '                missing.append(field)',
      '    if missing:',
      `        logger.info("%s: missing fields %s", "${name}", sorted(set(missing)))`,
      '    return not missing',
    ],
    () => [
      '    groups: dict[str, list[dict[str, Any]]] = {}',
      `    for item in ${arg}:`,
      `        groups.setdefault(str(item.get("${attr}", "")), []).append(item)`,
      `    return {key: ${helper}(rows) for key, rows in groups.items() if key != ${other}}`,
    ],
  ];
  // The first template calls the helper: the first function must show its import in use.
  const body = (first ? bodies[0] : p.one(bodies))();
  return [sig, doc, ...body];
}

function testText(p: Picker, pkg: string, m: PyModule): string {
  const tested = m.functions.slice(0, 6);
  const out = ['import pytest', '', `from ${pkg}.${m.name} import ${tested.join(', ')}`, ''];
  for (const fn of tested) {
    for (const c of ['empty', 'single', 'many', 'missing_owner'].slice(0, p.int(2, 4))) {
      const n = c === 'empty' ? 0 : c === 'single' ? 1 : p.int(3, 9);
      out.push(
        '',
        '',
        `def test_${fn}_${c}():`,
        `    rows = [{"id": f"r{i}", "owner": ${c === 'missing_owner' ? 'None' : '"acme"'}, "amount": str(i * 10)} for i in range(${n})]`,
        `    result = ${fn}(rows, "acme")`,
        '    assert result is not None',
        ...(n === 0 ? ['    assert not result'] : [`    assert result != []`]),
      );
    }
  }
  out.push(
    '',
    '',
    `def test_${m.name}_rejects_bad_input():`,
    `    with pytest.raises(Exception):`,
    `        ${m.functions[0]}(None, "acme")`,
  );
  return `${out.join('\n')}\n`;
}

function initText(pkg: string, modules: PyModule[]): string {
  const exported = modules.slice(0, 5);
  return [
    `"""${pkg}: billing and ledger tools."""`,
    '',
    ...exported.map((m) => `from .${m.name} import ${m.className}`),
    '',
    '__all__ = [',
    ...exported.map((m) => `    "${m.className}",`),
    ']',
    '',
    '__version__ = "0.9.2"',
    '',
  ].join('\n');
}

function readmeText(pkg: string, modules: PyModule[]): string {
  return [
    `# ${pkg}`,
    '',
    `${capital(pkg)} keeps ledgers, invoices and payments for small teams. It is a plain Python package with`,
    'no framework: every module works on dictionaries and dataclasses, and storage is pluggable.',
    '',
    '## Layout',
    '',
    ...modules.map((m) => `- \`${m.path}\`: ${m.name} (${m.className}, ${m.functions.length} functions)`),
    '',
    '## Development',
    '',
    '```bash',
    'python -m venv .venv && . .venv/bin/activate',
    'pip install -e ".[dev]"',
    'pytest -q',
    '```',
    '',
    'Run `python -m py_compile` on a module after editing it if you do not have the test dependencies.',
    '',
  ].join('\n');
}

function pyprojectText(pkg: string): string {
  return [
    '[build-system]',
    'requires = ["setuptools>=68"]',
    'build-backend = "setuptools.build_meta"',
    '',
    '[project]',
    `name = "${pkg}"`,
    'version = "0.9.2"',
    'requires-python = ">=3.10"',
    'dependencies = []',
    '',
    '[project.optional-dependencies]',
    'dev = ["pytest>=8", "ruff>=0.5"]',
    '',
    '[tool.pytest.ini_options]',
    'testpaths = ["tests"]',
    '',
    '[tool.ruff]',
    'line-length = 110',
    '',
  ].join('\n');
}
