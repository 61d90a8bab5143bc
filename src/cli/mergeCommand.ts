// `engram merge-branches FILE.jsonl`: a transcript that two writers branched (reported by inspect,
// gauge and --resume) gets the turns a resume leaves out appended after the ones it reads, so the next
// resume sends all of them. As the session's writer: it waits for a run that holds the session.
import { mergeBranches } from '../core/host/transcripts';
import { ENGRAM_VERSION } from '../core/host/config';
import { formatOptions, parseCommandArgs, type OptionSpecs } from './args';
import { holdTranscript, transcriptArg } from './cliTranscript';
import { EXIT_OK, type CliIo, type Command } from './command';

const OPTIONS = {
  help: { type: 'boolean', short: 'h', help: 'Show this help.' },
} satisfies OptionSpecs;

const HELP = `Usage: engram merge-branches FILE.jsonl

A session written by two processes at once (before Engram kept one writer per session) may branch: two
turns continue the same line, and a resume reads only the newest branch. engram inspect, engram gauge
and engram -p --resume say where. This appends the turns of every other branch after the branch a
resume reads (new lines; tool calls with their results), so the next resume sends all of them. The
old lines stay. It waits for a run that is writing the session.

Options:
${formatOptions(OPTIONS)}

Exit codes: 0 done (also when there is nothing to merge), 1 the file could not be written, 2 usage error.`;

export const mergeCommand: Command = {
  name: 'merge-branches',
  summary: 'Append the turns a branched transcript leaves out after the ones a resume reads.',
  run: runMerge,
};

async function runMerge(argv: string[], io: CliIo): Promise<number> {
  const { options, positionals } = parseCommandArgs(argv, OPTIONS);
  if (options.help) {
    io.stdout(`${HELP}\n`);
    return EXIT_OK;
  }
  const file = await transcriptArg(positionals, io.cwd, 'merge-branches');
  const lock = await holdTranscript(file, io);
  try {
    const merged = await mergeBranches(file, { version: ENGRAM_VERSION });
    if (merged.branches === 0) {
      io.stdout(`${file} does not branch: nothing to merge.\n`);
      return EXIT_OK;
    }
    const prompts =
      merged.prompts.length > 0 ? ` (prompts: ${merged.prompts.map((p) => JSON.stringify(p)).join(', ')})` : '';
    io.stdout(
      `Merged ${merged.branches} branch${merged.branches === 1 ? '' : 'es'} into ${file}: ` +
        `${merged.messages} messages appended after the current turn${prompts}. The next resume sends them.\n`,
    );
    return EXIT_OK;
  } finally {
    await lock.release();
  }
}
