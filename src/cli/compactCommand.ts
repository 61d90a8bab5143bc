// `engram compact FILE.jsonl --stage ...`: runs one compaction stage over a transcript's current
// conversation (the chain after the last compact boundary) and prints the API messages that would be
// sent next. Nothing is written: the transcript is only read. The same pipeline as the live agent, so
// real histories (Claude Code's included) can be checked against the API's rules from a shell.
import { promises as fsp } from 'node:fs';
import { fileNotesSource, sessionMemoryDir, type NotesSource } from '../core/compaction/notesSource';
import { planForUsage, runCompaction, type ChainStage } from '../core/compaction/pipeline';
import { resolveCompactionSettings } from '../core/compaction/settings';
import { loadTranscriptView } from '../core/compaction/transcriptView';
import { createAnthropicClient } from '../core/llm/anthropicClient';
import { resolveModelConfig } from '../core/llm/modelConfig';
import { TokenEstimator } from '../core/tokens/accounting';
import { countTokens } from '../core/tokens/tokenizer';
import { gaugeOf } from '../core/tokens/transcriptGauge';
import type { SummarizerConfig } from '../core/compaction/fullCompact';
import { defaultOf, settingsFromFlags } from './cliSettings';
import { formatOptions, parseCommandArgs, UsageError, type OptionSpecs } from './args';
import { positiveInt, transcriptArg } from './cliTranscript';
import { EXIT_MODEL_ERROR, EXIT_OK, type CliIo, type Command } from './command';
import path from 'node:path';

/** The stage could not run (no notes, no model, nothing to compact); the reason is printed. */
export const EXIT_UNAVAILABLE = 3;

const STAGES = ['micro', 'session-memory', 'full', 'auto'] as const;

const OPTIONS = {
  stage: { type: 'string', valueName: 'S', help: 'micro | session-memory | full | auto (default: auto, which picks by how full the window is).' },
  window: { type: 'string', valueName: 'N', help: `Context window in tokens (default: ${defaultOf('contextWindow')}).` },
  notes: { type: 'string', valueName: 'FILE', help: 'Session notes (default: <dir>/<sessionId>/session-memory/summary.md when present).' },
  focus: { type: 'string', valueName: 'TEXT', help: 'What a full summary should pay attention to (as /compact TEXT).' },
  'keep-min-tokens': { type: 'string', valueName: 'N', help: `Session-memory compaction keeps at least N tokens (default: ${defaultOf('compaction.keepMinTokens')}).` },
  'keep-max-tokens': { type: 'string', valueName: 'N', help: `...and at most N tokens (default: ${defaultOf('compaction.keepMaxTokens')}).` },
  'keep-min-text': { type: 'string', valueName: 'N', help: `...and at least N messages with text (default: ${defaultOf('compaction.keepMinTextMessages')}).` },
  model: { type: 'string', valueName: 'M', help: 'Model for a full summary.' },
  json: { type: 'boolean', help: 'Print {"stage","tokensBefore","tokensAfter","modelCalls","keptFrom","messages"} as JSON.' },
  help: { type: 'boolean', short: 'h', help: 'Show this help.' },
} satisfies OptionSpecs;

const HELP = `Usage: engram compact FILE.jsonl --stage micro|session-memory|full|auto [options]

Compacts the current conversation of a transcript (after its last compact boundary) in memory and
prints the messages that would be sent next. The file is not changed.

Options:
${formatOptions(OPTIONS)}

A full summary calls the model: ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL) must be set.
Exit codes: 0 done, 1 the model call failed, 2 usage error, 3 the stage could not run ({"error"} says why).`;

/** The system prompt of a summary asked from the command line (there is no session prompt to share). */
const CLI_SUMMARIZER_SYSTEM = 'You write hand-over summaries of coding sessions for the assistant that continues them.';

export const compactCommand: Command = {
  name: 'compact',
  summary: 'Compact a transcript\'s conversation in memory and print the messages that would be sent next.',
  run: runCompact,
};

export async function runCompact(argv: string[], io: CliIo): Promise<number> {
  const { options, positionals } = parseCommandArgs(argv, OPTIONS);
  if (options.help) {
    io.stdout(`${HELP}\n`);
    return EXIT_OK;
  }
  const stage = (options.stage ?? 'auto') as ChainStage;
  if (!STAGES.includes(stage)) throw new UsageError(`--stage must be one of ${STAGES.join(', ')}, not ${options.stage}`);
  const file = await transcriptArg(positionals, io.cwd, 'compact');
  // The window goes through the settings' rules (as engram.contextWindow); the keep bounds may be set
  // below the editor's minimums here, to try compaction on small transcripts.
  const base = settingsFromFlags({ contextWindow: { flag: '--window', value: options.window } });
  const settings = resolveCompactionSettings({
    ...base.compaction,
    contextWindow: base.contextWindow,
    keepMinTokens: positiveInt(options['keep-min-tokens'], '--keep-min-tokens', base.compaction.keepMinTokens),
    keepMaxTokens: positiveInt(options['keep-max-tokens'], '--keep-max-tokens', base.compaction.keepMaxTokens),
    keepMinTextMessages: positiveInt(options['keep-min-text'], '--keep-min-text', base.compaction.keepMinTextMessages),
  });
  const fail = (code: number, error: string, extra: Record<string, unknown> = {}): number => {
    if (options.json) io.stdout(`${JSON.stringify({ error, ...extra })}\n`);
    else io.stderr(`engram: ${error}\n`);
    return code;
  };

  const view = await loadTranscriptView(file);
  if (view.entries.length === 0) return fail(EXIT_UNAVAILABLE, 'The transcript holds no conversation to compact.');
  const estimator = new TokenEstimator(countTokens);
  const tokensOf = (m: Parameters<TokenEstimator['message']>[0]): number => {
    const t = estimator.message(m);
    return t.messages + t.toolResults;
  };
  const gauge = gaugeOf(view.lines, view.entries, estimator);
  // What the usage reports beyond the messages (system prompt, tools) stays in every request.
  const fixedTokens = gauge.breakdown.system;
  const notes = await notesFor(file, options.notes, io.cwd);
  const summarizer = summarizerFor(io, options.model);

  const chain = stage === 'auto' ? planForUsage(gauge.usedTokens, settings) : stage;
  const out = chain === 'none'
    ? { applied: [], entries: view.entries }
    : await runCompaction(chain, view.entries, gauge.usedTokens, {
      settings, tokensOf, fixedTokens, automatic: stage === 'auto',
      ...(notes ? { notes } : {}),
      ...(summarizer ? { summarizer } : {}),
      ...(options.focus ? { focus: options.focus } : {}),
      signal: io.signal,
    });
  const failure = 'failure' in out ? out.failure : undefined;
  if (failure) return fail(failure.code === 'model-error' ? EXIT_MODEL_ERROR : EXIT_UNAVAILABLE, failure.reason, { code: failure.code, stage: failure.stage });

  const last = out.applied[out.applied.length - 1];
  const result = {
    stage: last?.stage ?? 'none',
    stages: out.applied.map((r) => r.stage),
    tokensBefore: gauge.usedTokens,
    tokensAfter: last?.tokensAfter ?? gauge.usedTokens,
    modelCalls: out.applied.reduce((n, r) => n + r.modelCalls, 0),
    keptFrom: last?.keptFrom ?? view.entries.length,
    messages: out.entries.map((e) => e.message),
  };
  if (options.json) io.stdout(`${JSON.stringify(result)}\n`);
  else io.stdout(`${result.stage}: ${result.tokensBefore} -> ${result.tokensAfter} tokens, ${result.modelCalls} model call(s), ${result.messages.length} messages (kept from ${result.keptFrom})\n`);
  return EXIT_OK;
}

async function notesFor(file: string, given: string | undefined, cwd: string): Promise<NotesSource | undefined> {
  const summaryFile = given !== undefined ? path.resolve(cwd, given) : path.join(sessionMemoryDir(file), 'summary.md');
  if (given !== undefined) {
    try {
      await fsp.access(summaryFile);
    } catch {
      throw new UsageError(`--notes: not a readable file: ${summaryFile}`);
    }
  }
  return fileNotesSource({ summaryFile });
}

function summarizerFor(io: CliIo, model: string | undefined): SummarizerConfig | undefined {
  const config = resolveModelConfig({ model }, io.env, undefined);
  if (!config.apiKey) return undefined;
  return {
    client: createAnthropicClient(config),
    model: config.model,
    maxTokens: config.maxOutputTokens,
    system: [{ type: 'text', text: CLI_SUMMARIZER_SYSTEM }],
    tools: [],
  };
}
