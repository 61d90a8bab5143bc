// `engram gauge FILE.jsonl`: how full the context window is for a transcript's current conversation,
// in the model the status bar, the Chat view and the inspector show (core/inspection/contextSnapshot),
// and how the engine's estimates compare with what the API reported for each model call.
import { formatBranchReport, gaugeTranscript } from '../core/host/transcripts';
import { formatOptions, parseCommandArgs, type OptionSpecs } from './args';
import { defaultOf, settingsFromFlags } from './cliSettings';
import { count, digits } from './cliText';
import { reportProblems, transcriptArg } from './cliTranscript';
import { EXIT_OK, type CliIo, type Command } from './command';

const OPTIONS = {
  window: {
    type: 'string',
    valueName: 'N',
    help: `Context window in tokens, as engram.contextWindow (default: ${defaultOf('contextWindow')}).`,
  },
  json: {
    type: 'boolean',
    help:
      'Print {"usedTokens","window","reservedForOutput","marks","breakdown",' +
      '"percent","estimatedTokens","turns","problems"} as JSON.',
  },
  help: { type: 'boolean', short: 'h', help: 'Show this help.' },
} satisfies OptionSpecs;

const HELP = `Usage: engram gauge FILE.jsonl [--window N] [--json]

Reads a transcript (Engram's or Claude Code's) and reports the context used by its current conversation
(after the last compact boundary): the last response's usage (input + cache creation + cache read +
output) plus an estimate of the messages after it, by category, against the window and the compaction
marks. Per model call, "reportedTokens" is that usage and "estimatedTokens" what the engine would have
estimated from the previous report plus its own count. Lines skipped or repaired while reading (and a
torn last line) are reported as FILE:LINE: skipped|repaired: reason, on stderr ("problems" in JSON), and so
is a conversation that branches (two writers at once: the gauge measures the branch a resume reads;
"branches" in JSON, only then).

Options:
${formatOptions(OPTIONS)}`;

export const gaugeCommand: Command = {
  name: 'gauge',
  summary: 'Show how full the context window is for a transcript, and estimate vs. reported tokens.',
  run: runGauge,
};

export async function runGauge(argv: string[], io: CliIo): Promise<number> {
  const { options, positionals } = parseCommandArgs(argv, OPTIONS);
  if (options.help) {
    io.stdout(`${HELP}\n`);
    return EXIT_OK;
  }
  const settings = settingsFromFlags({ contextWindow: { flag: '--window', value: options.window } });
  const file = await transcriptArg(positionals, io.cwd, 'gauge');
  const measured = await gaugeTranscript(file, settings);
  const state = measured.gauge;
  const percent = state.window > 0 ? Math.round((state.usedTokens / state.window) * 10_000) / 100 : 0;
  if (options.json) {
    const branches = measured.branches.length > 0 ? { branches: measured.branches } : {};
    const report = {
      ...state,
      percent,
      estimatedTokens: measured.estimatedTokens,
      turns: measured.turns,
      problems: measured.problems,
      ...branches,
    };
    io.stdout(`${JSON.stringify(report)}\n`);
    return EXIT_OK;
  }
  reportProblems(io, measured.problems);
  for (const b of measured.branches) io.stderr(`engram: ${formatBranchReport(file, b)}\n`);
  const estimated =
    measured.estimatedTokens > 0
      ? `, ${digits(measured.estimatedTokens)} of them estimated (after the last usage report)`
      : '';
  io.stdout(
    `${digits(state.usedTokens)} of ${digits(state.window)} tokens (${percent}%)${estimated}; ` +
      `${count(measured.messages, 'message', 'messages')}, ` +
      `${count(measured.turns.length, 'model call', 'model calls')}\n`,
  );
  io.stdout(`  marks at ${state.marks.join(' / ')} %, ${digits(state.reservedForOutput)} reserved for output\n`);
  for (const c of state.breakdown)
    if (c.tokens > 0) io.stdout(`  ${c.category.padEnd(18)} ${digits(c.tokens).padStart(9)}\n`);
  if (measured.turns.length > 0) io.stdout(TURNS_HEADING);
  measured.turns.forEach((t, i) => {
    const reported = digits(t.reportedTokens).padStart(9);
    const estimated = digits(t.estimatedTokens).padStart(9);
    io.stdout(`  ${t.uuid}  reported ${reported}  estimated ${estimated}  ${drift(t, i)}\n`);
  });
  return EXIT_OK;
}

const TURNS_HEADING =
  'Per model call, the input tokens the API reported, and what the engine would have estimated then\n' +
  '(the report before plus its own count of the messages since; the first call has no report before it):\n';

/** How far the estimate was off: "+3.2 %", or why the first call's estimate counts the messages only. */
function drift(t: { reportedTokens: number; estimatedTokens: number }, index: number): string {
  if (index === 0) return '(messages only: the system prompt and tools are not in the transcript)';
  if (t.reportedTokens === 0) return '';
  const pct = ((t.estimatedTokens - t.reportedTokens) / t.reportedTokens) * 100;
  return `${pct >= 0 ? '+' : ''}${pct.toFixed(1)} %`;
}
