// `engram compact FILE.jsonl --stage ...`: runs one compaction stage over a transcript's current
// conversation (the chain after the last compact boundary) and prints the API messages that would be
// sent next. Nothing is written unless --write: then the compaction is appended as the chat records it.
// The same pipeline as the live agent, so real histories (Claude Code's included) can be checked against
// the API's rules from a shell.
import path from 'node:path';
import {
  compactTranscript,
  TRANSCRIPT_STAGES,
  UnreadableNotesError,
  type ChainStage,
  type DroppedFacts,
} from '../core/host/transcripts';
import { resolveModelConfig } from '../core/host/config';
import { PROVIDER_OPTIONS } from './cliProvider';
import { defaultOf, settingsFromFlags } from './cliSettings';
import { formatOptions, parseCommandArgs, UsageError, type OptionSpecs } from './args';
import { holdTranscript, positiveInt, reportProblems, transcriptArg } from './cliTranscript';
import { EXIT_MODEL_ERROR, EXIT_OK, type CliIo, type Command } from './command';

/** The stage could not run (no notes, no model, nothing to compact); the reason is printed. */
export const EXIT_UNAVAILABLE = 3;

const OPTIONS = {
  stage: {
    type: 'string',
    valueName: 'S',
    help: 'micro | session-memory | full | auto (default: auto, which picks by how full the window is).',
  },
  window: {
    type: 'string',
    valueName: 'N',
    help: `Context window in tokens (default: ${defaultOf('contextWindow')}).`,
  },
  notes: {
    type: 'string',
    valueName: 'FILE',
    help: 'Session notes (default: <dir>/<sessionId>/session-memory/summary.md when present).',
  },
  focus: { type: 'string', valueName: 'TEXT', help: 'What a full summary should pay attention to (as /compact TEXT).' },
  'keep-min-tokens': {
    type: 'string',
    valueName: 'N',
    help: `Session-memory compaction keeps at least N tokens (default: ${defaultOf('compaction.keepMinTokens')}).`,
  },
  'keep-max-tokens': {
    type: 'string',
    valueName: 'N',
    help: `...and at most N tokens (default: ${defaultOf('compaction.keepMaxTokens')}).`,
  },
  'keep-min-text': {
    type: 'string',
    valueName: 'N',
    help: `...and at least N messages with text (default: ${defaultOf('compaction.keepMinTextMessages')}).`,
  },
  model: { type: 'string', valueName: 'M', help: 'Model for a full summary.' },
  ...PROVIDER_OPTIONS,
  write: {
    type: 'boolean',
    help:
      'Append the compaction to the transcript, as the chat records it, ' +
      'so a resume sends the compacted conversation.',
  },
  json: {
    type: 'boolean',
    help:
      'Print {"stage","tokensBefore","tokensAfter","modelCalls","keptFrom","dropped","messages","problems"} as JSON; ' +
      '"dropped" is {"paths","commands","errors","userMessages"}: what the compacted conversation no longer carries.',
  },
  help: { type: 'boolean', short: 'h', help: 'Show this help.' },
} satisfies OptionSpecs;

const HELP = `Usage: engram compact FILE.jsonl --stage micro|session-memory|full|auto [options]

Compacts the current conversation of a transcript (after its last compact boundary) in memory and
prints the messages that would be sent next. The file is not changed unless --write is given: then
the compaction is appended to it (boundary and summary lines, as the chat writes them), and
\`engram -p --resume\` or the editor continues from the compacted conversation. Lines skipped or repaired while
reading (and a torn last line) are reported as FILE:LINE: skipped|repaired: reason, on stderr
("problems" in JSON).

Options:
${formatOptions(OPTIONS)}

A full summary calls the model: ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL) must be set, or --provider or
Claude Code's CLAUDE_CODE_USE_BEDROCK / _VERTEX / _FOUNDRY environment for Claude on a cloud (docs/providers.md).
Exit codes: 0 done, 1 the model call failed, 2 usage error, 3 the stage could not run ({"error"} says why).`;

export const compactCommand: Command = {
  name: 'compact',
  summary: "Compact a transcript's conversation in memory and print the messages that would be sent next.",
  run: runCompact,
};

export async function runCompact(argv: string[], io: CliIo): Promise<number> {
  const { options, positionals } = parseCommandArgs(argv, OPTIONS);
  if (options.help) {
    io.stdout(`${HELP}\n`);
    return EXIT_OK;
  }
  const stage = (options.stage ?? 'auto') as ChainStage;
  if (!TRANSCRIPT_STAGES.includes(stage))
    throw new UsageError(`--stage must be one of ${TRANSCRIPT_STAGES.join(', ')}, not ${options.stage}`);
  const file = await transcriptArg(positionals, io.cwd, 'compact');
  // The window goes through the settings' rules (as engram.contextWindow); the keep bounds may be set
  // below the editor's minimums here, to try compaction on small transcripts.
  const settings = settingsFromFlags({ contextWindow: { flag: '--window', value: options.window } });
  const keep = {
    keepMinTokens: positiveInt(options['keep-min-tokens'], '--keep-min-tokens', settings.compaction.keepMinTokens),
    keepMaxTokens: positiveInt(options['keep-max-tokens'], '--keep-max-tokens', settings.compaction.keepMaxTokens),
    keepMinTextMessages: positiveInt(
      options['keep-min-text'],
      '--keep-min-text',
      settings.compaction.keepMinTextMessages,
    ),
  };
  if (options.provider !== undefined) {
    // A wrong name or a setup that cannot work is said before anything is read, with its fix.
    const problems = resolveModelConfig(
      { provider: options.provider, providerFromFlag: true },
      io.env,
      undefined,
    ).providerProblems;
    if (options.provider.trim() === '' || problems.length > 0)
      throw new UsageError(problems.join('\n') || '--provider needs a name');
  }
  const fail = (code: number, error: string, extra: Record<string, unknown> = {}): number => {
    if (options.json) io.stdout(`${JSON.stringify({ error, ...extra })}\n`);
    else io.stderr(`engram: ${error}\n`);
    return code;
  };

  let outcome;
  // Appending, it is the session's one writer (a run of the session may hold it).
  const lock = options.write ? await holdTranscript(file, io) : undefined;
  try {
    outcome = await compactTranscript({
      file,
      stage,
      settings,
      keep,
      env: io.env,
      signal: io.signal,
      ...(options.notes !== undefined ? { notesFile: path.resolve(io.cwd, options.notes) } : {}),
      ...(options.focus ? { focus: options.focus } : {}),
      ...(options.model !== undefined ? { model: options.model } : {}),
      ...(options.provider !== undefined ? { provider: options.provider } : {}),
      ...(options.write ? { write: true } : {}),
    });
  } catch (e) {
    if (e instanceof UnreadableNotesError) throw new UsageError(`--notes: not a readable file: ${e.file}`);
    throw e;
  } finally {
    await lock?.release();
  }
  const problems = outcome.ok ? outcome.result.problems : outcome.problems;
  if (!options.json) reportProblems(io, problems);
  if (!outcome.ok) {
    const failure = outcome.failure;
    if (!failure) return fail(EXIT_UNAVAILABLE, outcome.reason, { problems });
    return fail(failure.code === 'model-error' ? EXIT_MODEL_ERROR : EXIT_UNAVAILABLE, outcome.reason, {
      code: failure.code,
      stage: failure.stage,
      problems,
    });
  }
  const result = outcome.result;
  if (options.json) await writeJson(io, result);
  else
    io.stdout(
      `${result.stage}: ${result.tokensBefore} -> ${result.tokensAfter} tokens, ` +
        `${result.modelCalls} model call(s), ${result.messages.length} messages (kept from ${result.keptFrom})` +
        `${result.written ? `, written to ${file}` : ''}\n${notCarriedLine(result.dropped)}`,
    );
  return EXIT_OK;
}

/** Characters written at once while printing the messages (below the size V8 allocates as a large object). */
const WRITE_CHARS = 1 << 16;

/**
 * `JSON.stringify(result)` and a newline, written a batch of messages at a time, each after the one before
 * has left: the whole text of a long session's messages held at once, beside its bytes on their way out,
 * was the command's peak.
 */
async function writeJson(
  io: Pick<CliIo, 'stdout' | 'drained'>,
  result: { messages: readonly unknown[] },
): Promise<void> {
  const marker = ',"messages":[]';
  const frame = JSON.stringify({ ...result, messages: [] });
  // Structural: a key's quotes cannot appear unescaped inside the string values before it.
  const at = frame.indexOf(marker);
  let batch = `${frame.slice(0, at)},"messages":[`;
  for (const [i, m] of result.messages.entries()) {
    batch += `${i > 0 ? ',' : ''}${JSON.stringify(m)}`;
    if (batch.length < WRITE_CHARS) continue;
    io.stdout(batch);
    batch = '';
    // A slow reader (a pipe) would otherwise leave every part queued in this process at once.
    await io.drained?.();
  }
  io.stdout(`${batch}]${frame.slice(at + marker.length)}\n`);
}

/** One line naming what the compaction lost, or nothing when it lost nothing. */
function notCarriedLine(d: DroppedFacts): string {
  const counts: Array<[number, string]> = [
    [d.paths.length, 'path'],
    [d.commands.length, 'command'],
    [d.errors.length, 'error'],
    [d.userMessages.length, 'of your messages'],
  ];
  const parts = counts
    .filter(([n]) => n > 0)
    .map(([n, what]) => (what.startsWith('of ') ? `${n} ${what}` : `${n} ${what}${n === 1 ? '' : 's'}`));
  if (parts.length === 0) return '';
  const items = [...d.paths, ...d.commands, ...d.errors, ...d.userMessages].map((t) => `  ${clip(t)}\n`);
  return `not carried: ${parts.join(', ')}\n${items.join('')}`;
}

function clip(text: string): string {
  return text.length > 100 ? `${text.slice(0, 99)}…` : text;
}
