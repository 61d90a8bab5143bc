// `engram memory check`: the health of a project's memory, as the inspector's Health view shows it: per
// topic file (private and team), the references it makes that no longer hold in the workspace (a file
// renamed or deleted, a function removed, a script gone), its repeats and contradictions, and how often
// it was recalled. Read only, so it works on Claude Code's folders too (`--data-dir ~/.claude`).
// Further `engram memory` subcommands register in SUBCOMMANDS.
import {
  checkProjectMemory,
  checkProjectMemoryWithModel,
  type MemoryHealth,
  type ProjectMemoryHealth,
} from '../core/host/memory';
import { formatOptions, parseCommandArgs, UsageError, type OptionSpecs } from './args';
import { projectFolders, projectOptions } from './cliSettings';
import { count } from './cliText';
import { EXIT_MODEL_ERROR, EXIT_OK, type CliIo, type Command } from './command';
import { cliModel, runTidy } from './memoryTidyCommand';

const CHECK_OPTIONS = {
  ...projectOptions("Where memory lives (default: $ENGRAM_DATA_DIR or ~/.engram; ~/.claude reads Claude Code's)."),
  json: {
    type: 'boolean',
    help: 'Print {"memories":[{"file","stale":[{"ref","kind","reason"}],"duplicates","contradicts","recalled","used","notRelevant","corrected",...}]}.',
  },
  model: {
    type: 'boolean',
    help:
      'Also ask the model once (ANTHROPIC_API_KEY, or a cloud by CLAUDE_CODE_USE_*) which memories contradict ' +
      'each other beyond the local rules.',
  },
  help: { type: 'boolean', short: 'h', help: 'Show this help.' },
} satisfies OptionSpecs;

const CHECK_HELP = `Usage: engram memory check [--cwd DIR] [--data-dir DIR] [--json] [--model]

Checks every memory of the project (the private memory folder and its team folder) against the
workspace as it is now (the git repository holding --cwd, or --cwd itself):
  - paths it names (src/auth/session.ts, docs/) must be files or folders there (tracked by git, or
    present and not ignored); a path outside the workspace or ignored by .gitignore is not checked;
  - code symbols in backticks (\`createSession()\`, \`SessionStore\`, \`Store.open\`, \`engram.x.y\`) must
    appear in some source file (documentation and lock files are not counted);
  - commands (npm run X, npm test, pnpm/yarn run X, make X, node scripts/x.mjs) must find their
    script in a package.json, their target in a Makefile, or their script file.
A memory with a missing reference is stale: each is listed with why. Also shows how often each memory
was recalled and marked not relevant. Nothing is changed.

Options:
${formatOptions(CHECK_OPTIONS)}

Exit codes: 0 checked (whether or not problems were found), 1 the model check failed (--model), 2 usage error.`;

const MEMORY_HELP = `Usage: engram memory <subcommand> [options]

Subcommands:
  check   Find memories that went stale, repeat or contradict each other (engram memory check --help).
  tidy    Have the model propose merges, rewrites and deletions; apply what you accept (engram memory tidy --help).`;

const SUBCOMMANDS: Record<string, (argv: string[], io: CliIo) => Promise<number>> = { check: runCheck, tidy: runTidy };

export const memoryCommand: Command = {
  name: 'memory',
  summary: "Check a project's memory for stale references, repeats and use (engram memory check).",
  run: runMemory,
};

async function runMemory(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    io.stdout(`${MEMORY_HELP}\n`);
    return EXIT_OK;
  }
  const run = SUBCOMMANDS[sub];
  if (!run)
    throw new UsageError(`Unknown memory subcommand: ${sub} (expected: ${Object.keys(SUBCOMMANDS).join(', ')})`);
  return run(rest, io);
}

async function runCheck(argv: string[], io: CliIo): Promise<number> {
  const { options, positionals } = parseCommandArgs(argv, CHECK_OPTIONS);
  if (options.help) {
    io.stdout(`${CHECK_HELP}\n`);
    return EXIT_OK;
  }
  if (positionals.length > 0) throw new UsageError(`Unexpected argument: ${positionals[0]}`);
  const { cwd, dataDir } = await projectFolders(io, options);
  const result = options.model ? await checkWithModel(io, dataDir, cwd) : await checkProjectMemory(dataDir, cwd);
  if (!result) return EXIT_MODEL_ERROR;
  io.stdout(options.json ? `${JSON.stringify(result, null, 2)}\n` : formatCheck(result));
  return EXIT_OK;
}

/** The check with the model's contradiction check; undefined (with the reason on stderr) when the model is not reachable. */
async function checkWithModel(io: CliIo, dataDir: string, cwd: string): Promise<ProjectMemoryHealth | undefined> {
  const model = cliModel(io);
  if (!model) return undefined;
  try {
    return await checkProjectMemoryWithModel(dataDir, cwd, { ...model, signal: io.signal });
  } catch (e) {
    io.stderr(`engram: the model's contradiction check failed: ${e instanceof Error ? e.message : String(e)}\n`);
    return undefined;
  }
}

/** The check as text: a summary line, then each memory with a problem, then the healthy ones by name. */
export function formatCheck(result: ProjectMemoryHealth): string {
  const { memories } = result;
  const lines = [`Memory folder: ${result.memoryDir}`, `Checked against: ${result.workspace}`];
  if (memories.length === 0) return `${lines.join('\n')}\nNo memories to check.\n`;
  const problems = memories.filter(hasProblem);
  lines.push(
    `${count(memories.length, 'memory', 'memories')}: ${problems.filter((m) => m.stale.length > 0).length} stale, ` +
      `${problems.length} with a problem.`,
  );
  for (const m of problems) {
    lines.push('', `${m.file}  (${useLine(m)})`);
    for (const s of m.stale) lines.push(`  stale ${s.kind.padEnd(8)}${s.ref}: ${s.reason}`);
    if (m.duplicates.length > 0) lines.push(`  repeats   ${m.duplicates.join(', ')}`);
    for (const [i, c] of m.contradicts.entries())
      lines.push(`  contradicts ${c}${m.contradictionNotes?.[i] ? `: ${m.contradictionNotes[i]}` : ''}`);
    for (const n of m.notes ?? []) lines.push(`  note: ${n}`);
  }
  const fine = memories.filter((m) => !hasProblem(m));
  if (fine.length > 0) {
    lines.push('', `No problem found in ${count(fine.length, 'memory', 'memories')}:`);
    for (const m of fine) lines.push(`  ${m.file}  (${useLine(m)})`);
  }
  return `${lines.join('\n')}\n`;
}

function hasProblem(m: MemoryHealth): boolean {
  return m.stale.length > 0 || m.duplicates.length > 0 || m.contradicts.length > 0 || (m.notes?.length ?? 0) > 0;
}

function useLine(m: MemoryHealth): string {
  const parts = [
    `recalled ${m.recalled}`,
    `used ${m.used}`,
    `not relevant ${m.notRelevant}`,
    `corrected ${m.corrected}`,
  ];
  return parts.join(', ');
}
