// `engram gauge FILE.jsonl`: how full the context window is for a transcript's current conversation,
// and how the engine's estimates compare with what the API reported for each model call.
import { countTokens } from '../core/tokens/tokenizer';
import { TokenEstimator } from '../core/tokens/accounting';
import { gaugeOf } from '../core/tokens/transcriptGauge';
import { loadTranscriptView } from '../core/compaction/transcriptView';
import { formatOptions, parseCommandArgs, type OptionSpecs } from './args';
import { positiveInt, transcriptArg } from './cliTranscript';
import { EXIT_OK, type CliIo, type Command } from './command';

const OPTIONS = {
  window: { type: 'string', valueName: 'N', help: 'Context window in tokens (default: 200000).' },
  json: { type: 'boolean', help: 'Print {"usedTokens","window","percent","breakdown","turns"} as JSON.' },
  help: { type: 'boolean', short: 'h', help: 'Show this help.' },
} satisfies OptionSpecs;

const HELP = `Usage: engram gauge FILE.jsonl [--window N] [--json]

Reads a transcript (Engram's or Claude Code's) and reports the context used by its current conversation
(after the last compact boundary): the last response's usage (input + cache creation + cache read +
output) plus an estimate of the messages after it. Per model call, "reportedTokens" is that usage and
"estimatedTokens" what the engine would have estimated from the previous report plus its own count.

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
  const file = await transcriptArg(positionals, io.cwd, 'gauge');
  const window = positiveInt(options.window, '--window', 200_000);
  const view = await loadTranscriptView(file);
  const gauge = gaugeOf(view.lines, view.entries, window, new TokenEstimator(countTokens));
  if (options.json) {
    io.stdout(`${JSON.stringify(gauge)}\n`);
  } else {
    io.stdout(`${gauge.usedTokens} of ${gauge.window} tokens (${gauge.percent}%), ${view.entries.length} messages, ${gauge.turns.length} model calls\n`);
    for (const t of gauge.turns) io.stdout(`  ${t.uuid}  reported ${t.reportedTokens}  estimated ${t.estimatedTokens}\n`);
  }
  return EXIT_OK;
}
