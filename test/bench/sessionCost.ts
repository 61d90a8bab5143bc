// session_cost_units (DESIGN 8, issues #10 and #19): two scripted 40-turn coding sessions run through
// `engram -p --resume`, one process per turn as a script would, against the test server with its
// simulated prompt cache, at a 200K and at a 100K window, each under today's policy (a --settings file
// with the old cadence) and the new one (the defaults), side by side in one run:
//  - the one-file-per-turn session: each turn reads or greps one file (about 6K tokens), then answers;
//  - the session shaped like real work (realSession.ts): a generated Python project, 2-4 tool calls in
//    most turns, edits, a Write, and re-reads of unchanged files for about half of the tool output.
// ENGRAM_BENCH_SEED picks another project of the same shape (a held-out copy nothing was tuned on);
// ENGRAM_BENCH_CHAINS how many chains of CLI processes run at once.
import fs from 'node:fs';
import path from 'node:path';
import type { ScriptedReply } from '../../src/testServer/anthropicTestServer';
import { SUMMARY_SECTIONS } from '../../src/core/compaction/summaryPrompt';
import type { Metrics } from './run';
import { realSession } from './realSession';
import { analyse, metricsOf, round3, shapeOf, type Outcome, type Shape } from './sessionAnalysis';
import { isToolResult, runChain, type Policy, type SessionScript } from './sessionChain';
import { printComparison, printShape } from './sessionCostTable';

const TURNS = 40;
/** The realistic session's project; ENGRAM_BENCH_SEED=2 is the held-out copy. */
const MAIN_SEED = 1;

/** Today's cadence, before issue #19: every repeat sent whole, trims in age order, notes every 5K tokens. */
const TODAY: Policy = {
  name: 'today',
  settings: {
    'engram.compaction.sendRepeatsOnce': false,
    'engram.compaction.trimSupersededFirst': false,
    'engram.sessionNotes.updateGrowthPercent': 0,
    'engram.sessionNotes.updateGrowthTokens': 5000,
    'engram.sessionNotes.updateToolCalls': 3,
    'engram.sessionNotes.catchUpBeforeCompaction': false,
  },
};
const NEW: Policy = { name: 'new' };

/** The tool call of turn t: about 6K tokens of output each. */
function toolCall(t: number): ScriptedReply {
  const file = `src/module${t}.js`;
  const calls = [
    { name: 'Read', input: { file_path: file } },
    { name: 'Grep', input: { pattern: `value_${t}_`, path: file, output_mode: 'content' } },
    { name: 'Bash', input: { command: `cat ${file}` } },
    { name: 'Read', input: { file_path: file, offset: 1, limit: 400 } },
  ];
  return {
    content: [
      { type: 'text', text: `Looking at ${file}.` },
      { type: 'tool_use', ...calls[t % calls.length] },
    ],
  };
}

/** A hand-over summary of the kind a model writes for this session: every section, about 1,000 tokens. */
function summaryOf(turn: number): string {
  const body: Record<(typeof SUMMARY_SECTIONS)[number], string> = {
    'Request and intent':
      'The user asked for a review of every module under src/, one per turn, in order, each with a short verdict.',
    'Key concepts':
      'Each module exports 300 constants computed by compute(i, label); consistency means every line follows that pattern.',
    Files: Array.from(
      { length: turn },
      (_, i) => `- src/module${i + 1}.js: 300 exported constants value_${i + 1}_0..299; reviewed, consistent.`,
    ).join('\n'),
    'Errors and fixes': 'None so far.',
    'Problem solving':
      'Modules were read whole (Read, cat) or searched (Grep) for their value names; nothing inconsistent was found.',
    'All user messages': Array.from({ length: turn }, (_, i) => `- "Turn ${i + 1}: review src/module${i + 1}.js"`).join(
      '\n',
    ),
    'Pending tasks': 'Review the remaining modules.',
    'Current work': `Reviewing src/module${turn}.js.`,
    'Next step': `Review the next module, as in "Turn ${turn}: review src/module${turn}.js".`,
  };
  const sections = SUMMARY_SECTIONS.map((s, i) => `${i + 1}. ${s}:\n${body[s]}`).join('\n\n');
  return `<analysis>Went through the turns in order; each reviewed one module.</analysis>\n<summary>\n${sections}\n</summary>`;
}

/** The session of issue #10: turn t reviews src/module<t>.js with one tool call. */
export const oneFileSession: SessionScript = {
  name: 'one-file',
  turns: TURNS,
  allowedTools: 'Read,Grep,Glob,Bash',
  prompt: (t) => `Turn ${t}: review src/module${t}.js`,
  start: (ws) => {
    fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
    for (let t = 1; t <= TURNS; t++) {
      const lines = Array.from(
        { length: 300 },
        (_, i) => `export const value_${t}_${i} = compute(${i}, 'module ${t} line ${i} of the generated code');`,
      );
      fs.writeFileSync(path.join(ws, 'src', `module${t}.js`), `${lines.join('\n')}\n`);
    }
    return {
      reply: (body) => {
        const last = body.messages[body.messages.length - 1];
        if (isToolResult(last)) return { content: [{ type: 'text', text: 'Reviewed; it looks consistent.' }] };
        return toolCall(
          Number(
            /Turn (\d+)/.exec(typeof last.content === 'string' ? last.content : JSON.stringify(last.content))?.[1] ?? 0,
          ),
        );
      },
      summary: summaryOf,
    };
  },
  notesLine: (turn) => `Reviewing modules; reached Turn ${turn}.`,
};

/** One chain, analysed as soon as it ends so its requests (tens of MB) can go. */
async function measure(script: SessionScript, window: number, policy: Policy): Promise<Outcome> {
  const { requests, ...run } = await runChain(script, window, policy);
  const full = { ...run, requests };
  return { run, analysis: analyse(full), shape: shapeOf(full) };
}

/** Runs the jobs, at most `limit` at a time, and returns their results in the jobs' order. */
async function pool<T>(jobs: Array<() => Promise<T>>, limit: number): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const i = next++;
      out[i] = await jobs[i]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
  return out;
}

export async function run(): Promise<Metrics> {
  const seed = Number(process.env.ENGRAM_BENCH_SEED ?? MAIN_SEED);
  // Each chain mostly waits on its own CLI process: three at once keep the 2 cores busy.
  const limit = Math.max(1, Number(process.env.ENGRAM_BENCH_CHAINS ?? 3));
  const real = realSession(seed);
  // The longer realistic chains first, so the short ones fill in at the end.
  const cases = [real, oneFileSession].flatMap((script) =>
    [200_000, 100_000].flatMap((window) => [TODAY, NEW].map((policy) => ({ script, window, policy }))),
  );
  const started = Date.now();
  const outcomes = await pool(
    cases.map((c) => () => measure(c.script, c.window, c.policy)),
    limit,
  );
  const find = (script: SessionScript, window: number, policy: Policy): Outcome =>
    outcomes[cases.findIndex((c) => c.script === script && c.window === window && c.policy === policy)];

  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  console.log(
    `\n${outcomes.length} chains of ${TURNS} turns in ${seconds} s ` +
      `(${limit} at a time; realistic session seed ${seed})`,
  );
  printShape(real.name, seed, find(real, 200_000, TODAY).shape);
  const metrics: Metrics = {};
  for (const script of [oneFileSession, real]) {
    for (const window of [200_000, 100_000]) {
      const today = find(script, window, TODAY);
      const fresh = find(script, window, NEW);
      printComparison(`${script.name} session, ${window / 1000}K window`, today, fresh);
      Object.assign(metrics, sessionMetrics(script === real, window, today, fresh, seed));
    }
  }
  Object.assign(metrics, shapeMetrics(find(real, 200_000, TODAY).shape, seed));
  return metrics;
}

/** The units targets: the one-file session's from issue #10; the realistic one's from issue #19's held-out figures. */
function sessionMetrics(isReal: boolean, window: number, today: Outcome, fresh: Outcome, seed: number): Metrics {
  const session = isReal ? '_real' : '';
  const w = window === 200_000 ? '' : '_100k';
  const unitsTarget = isReal ? (window === 200_000 ? 900_000 : 780_000) : window === 200_000 ? 560_000 : 480_000;
  const ratio = fresh.analysis.units / today.analysis.units;
  return {
    ...metricsOf(fresh.run, fresh.analysis, {
      session,
      suffix: w,
      unitsTarget,
      ...(isReal ? { notesShareTarget: 0.08 } : {}),
    }),
    ...metricsOf(today.run, today.analysis, { session, suffix: `${w}_today` }),
    [`session_cost${session}_ratio${w}`]: {
      value: round3(ratio),
      unit: 'new / today',
      ...(isReal ? { target: 0.75 } : {}),
      note: `units under the new policy over today's${isReal ? ` (seed ${seed})` : ''}`,
    },
  };
}

function shapeMetrics(s: Shape, seed: number): Metrics {
  const note = `realistic session, seed ${seed}`;
  return {
    session_cost_real_tool_calls: {
      value: s.calls,
      unit: 'tool calls',
      note: `${note}: ${Object.entries(s.byTool)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    },
    session_cost_real_tool_output_tokens: {
      value: s.outputTokens,
      unit: 'tokens',
      note: `${note}: chars / 4, as the test server counts`,
    },
    session_cost_real_repeated_share: {
      value: round3(s.repeatedChars / s.outputChars),
      unit: 'share of tool-output characters',
      note: `${note}: ${s.repeated} results byte-identical to an earlier one`,
    },
    session_cost_real_edits_ok: {
      value: s.editsOk,
      unit: 'edits',
      target: s.edits,
      note: `${note}: edits whose old_string matched`,
    },
  };
}
