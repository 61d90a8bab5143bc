// `engram memory tidy`: asks the model once to propose a tidy of the project's memory (merges of
// repeats, rewrites of stale entries against the current code, deletions), prints each change as a
// unified diff of the memory folder (MEMORY.md too), and applies only what the person says yes to:
// `--yes` applies every change, a terminal asks y/N per change, anything else applies nothing and says
// how to. What is applied is one step, undone with `engram memory tidy --undo`.
import readline from 'node:readline/promises';
import { createTwoFilesPatch } from 'diff';
import {
  applyTidy,
  autoMemoryDir,
  listTidies,
  proposeProjectTidy,
  TidyAnswerError,
  tidyDiffs,
  undoTidy,
  type TidyChange,
  type TidyProposal,
} from '../core/host/memory';
import { modelReady } from '../core/host/config';
import { createAnthropicClient } from '../core/host/sessions';
import { formatOptions, parseCommandArgs, UsageError, type OptionSpecs } from './args';
import { projectFolders, projectOptions, settingsFromFlags } from './cliSettings';
import { noApiKeyText } from './cliText';
import { cliModelConfig, modelFlag } from './cliProvider';
import { EXIT_MODEL_ERROR, EXIT_OK, type CliIo } from './command';

const TIDY_OPTIONS = {
  ...projectOptions('Where memory lives (default: $ENGRAM_DATA_DIR or ~/.engram).'),
  yes: { type: 'boolean', help: 'Apply every proposed change without asking.' },
  json: { type: 'boolean', help: 'Print {"proposal", "applied"} as JSON (applies only with --yes).' },
  undo: { type: 'boolean', help: 'Undo the last applied tidy (changes nothing else).' },
  help: { type: 'boolean', short: 'h', help: 'Show this help.' },
} satisfies OptionSpecs;

const TIDY_HELP = `Usage: engram memory tidy [--cwd DIR] [--data-dir DIR] [--yes] [--json] [--undo]

Asks the model once (ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL, or Claude on Bedrock, Vertex AI or
Foundry by Claude Code's CLAUDE_CODE_USE_* environment) to propose a tidy of the project's private memory: merges of memories that repeat each other, rewrites of memories whose files, symbols or
commands are gone (against the workspace as it is now), and deletions. Each change is printed as a
unified diff of the memory folder, MEMORY.md included. Nothing is changed unless you say yes: --yes
applies every change; in a terminal you are asked per change; otherwise nothing is applied. The
accepted changes are applied together as one step; --undo takes the last one back.

Options:
${formatOptions(TIDY_OPTIONS)}

Exit codes: 0 done (whether or not anything was applied), 1 the model failed, 2 usage error.`;

/**
 * The model a memory command asks (the settings' model; the Anthropic API with ANTHROPIC_API_KEY and
 * ANTHROPIC_BASE_URL, or Claude Code's provider environment); undefined, with how to set a key on stderr,
 * when the Anthropic API has no key.
 */
export function cliModel(io: CliIo): { client: ReturnType<typeof createAnthropicClient>; model: string } | undefined {
  const config = cliModelConfig(
    settingsFromFlags({ model: modelFlag(undefined, undefined, io.env) }),
    undefined,
    io.env,
  );
  if (!modelReady(config)) {
    io.stderr(noApiKeyText(io.command));
    return undefined;
  }
  return { client: createAnthropicClient(config), model: config.model };
}

export async function runTidy(argv: string[], io: CliIo): Promise<number> {
  const { options, positionals } = parseCommandArgs(argv, TIDY_OPTIONS);
  if (options.help) {
    io.stdout(`${TIDY_HELP}\n`);
    return EXIT_OK;
  }
  if (positionals.length > 0) throw new UsageError(`Unexpected argument: ${positionals[0]}`);
  const { cwd, dataDir } = await projectFolders(io, options);
  if (options.undo) return undoLast(io, dataDir, cwd);
  const model = cliModel(io);
  if (!model) return EXIT_MODEL_ERROR;
  if (!options.json) io.stderr('Asking the model for a tidy proposal...\n');
  let proposal: TidyProposal;
  try {
    const result = await proposeProjectTidy(dataDir, cwd, { ...model, signal: io.signal });
    for (const line of result.recovered) io.stderr(`${line}\n`);
    proposal = result.proposal;
  } catch (e) {
    if (!(e instanceof TidyAnswerError)) throw e;
    io.stderr(`engram: ${e instanceof Error ? e.message : String(e)}\n`);
    return EXIT_MODEL_ERROR;
  }
  const dir = proposal.memoryDir;
  const accepted = options.yes ? proposal.changes.map((c) => c.id) : [];
  if (options.json) {
    const applied = accepted.length > 0 ? await applyTidy(dir, proposal, accepted) : undefined;
    io.stdout(`${JSON.stringify({ proposal, ...(applied ? { applied } : {}) }, null, 2)}\n`);
    return EXIT_OK;
  }
  io.stdout(await formatProposal(proposal));
  if (proposal.changes.length === 0) return EXIT_OK;
  if (!options.yes) {
    if (!(process.stdin.isTTY && process.stdout.isTTY)) {
      io.stdout(`Nothing was applied. To apply every change: ${io.command ?? 'engram'} memory tidy --yes\n`);
      return EXIT_OK;
    }
    accepted.push(...(await askEach(proposal.changes)));
    if (accepted.length === 0) {
      io.stdout('Nothing was applied.\n');
      return EXIT_OK;
    }
  }
  await applyTidy(dir, proposal, accepted);
  io.stdout(
    `Applied ${accepted.length} of ${proposal.changes.length} changes (${accepted.join(', ')}). ` +
      `Undo: ${io.command ?? 'engram'} memory tidy --undo\n`,
  );
  return EXIT_OK;
}

async function undoLast(io: CliIo, dataDir: string, cwd: string): Promise<number> {
  const dir = await autoMemoryDir(dataDir, cwd);
  const last = (await listTidies(dir))[0];
  if (!last) {
    io.stdout('No applied tidy to undo.\n');
    return EXIT_OK;
  }
  await undoTidy(dir, last.id);
  io.stdout(`Undid the tidy of ${last.appliedAt} (${last.changes.map((c) => c.id).join(', ')}).\n`);
  return EXIT_OK;
}

/** Each change with its reason and its unified diff; then what was refused and why. */
async function formatProposal(p: TidyProposal): Promise<string> {
  const out = [`Memory folder: ${p.memoryDir}`];
  if (p.note) out.push(p.note);
  out.push(p.changes.length === 0 ? 'The model proposed no change.' : `${p.changes.length} proposed change(s):`);
  for (const c of p.changes) {
    out.push('', `[${c.id}] ${c.kind} ${c.files.map((f) => f.file).join(' + ')}: ${c.reason}`);
    for (const d of await tidyDiffs(p.memoryDir, p, [c.id])) out.push(unifiedDiff(d.file, d.before, d.after));
  }
  if (p.refused.length > 0) {
    out.push('', `Refused ${p.refused.length} proposed change(s):`);
    for (const r of p.refused) out.push(`  ${r.kind} ${r.files.join(' + ')}: ${r.reason}`);
  }
  return `${out.join('\n')}\n`;
}

/** A unified diff of one memory file (a removed file against /dev/null). */
export function unifiedDiff(file: string, before: string, after: string | null): string {
  return createTwoFilesPatch(`a/${file}`, after === null ? '/dev/null' : `b/${file}`, before, after ?? '', '', '', {
    context: 3,
  }).replace(/^=+\n/, '');
}

async function askEach(changes: readonly TidyChange[]): Promise<string[]> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
  const yes: string[] = [];
  try {
    for (const c of changes) {
      const answer = await rl.question(`Apply [${c.id}] ${c.kind} ${c.files[0]?.file ?? ''}? [y/N] `);
      if (/^y(es)?$/i.test(answer.trim())) yes.push(c.id);
    }
  } finally {
    rl.close();
  }
  return yes;
}
