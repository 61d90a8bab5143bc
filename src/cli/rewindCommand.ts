// `engram rewind SESSION --to-turn N [--code] [--conversation]` (issue 33): takes a session's workspace
// files (its checkpoints) and its conversation (a rewind line in the transcript) back to the state right
// after turn N, both when neither flag is given. It prints what will change first (each file with what
// happens to it, conflicts and why, what the checkpoints did not cover, the conversation turns dropped),
// asks on a terminal unless --yes (off a terminal it applies), then prints what it did and the exact
// command that undoes it. --json prints one stable object instead.
import path from 'node:path';
import readline from 'node:readline/promises';
import { openSessionOnDisk, type RewindOutcome, type RewindPlan, type SessionTurn } from '../core/host/checkpoints';
import { formatOptions, parseCommandArgs, UsageError, type OptionSpecs } from './args';
import { dataDirOf, settingsFromFlags } from './cliSettings';
import { EXIT_MODEL_ERROR, EXIT_OK, type CliIo, type Command } from './command';

const OPTIONS = {
  'to-turn': {
    type: 'string',
    valueName: 'N',
    help: 'Go back to the state right after turn N (1: the first prompt; 0: before it).',
  },
  code: { type: 'boolean', help: "Rewind the workspace's files (with --conversation: both; neither: both)." },
  conversation: { type: 'boolean', help: 'Rewind the conversation (a resume reads it as it was after turn N).' },
  force: { type: 'boolean', help: 'Restore files you changed after the agent did too (conflicts).' },
  'dry-run': { type: 'boolean', help: 'Print what would change, change nothing.' },
  yes: { type: 'boolean', help: 'Do not ask (a terminal is asked y/N; elsewhere it applies).' },
  undo: { type: 'string', valueName: 'ID', help: 'Undo the rewind a previous run printed the id of.' },
  json: { type: 'boolean', help: 'Print {"session", "plan", "outcome", "undo"} as JSON.' },
  cwd: { type: 'string', valueName: 'DIR', help: 'The project folder of the session (default: the current folder).' },
  'data-dir': {
    type: 'string',
    valueName: 'DIR',
    help: 'Where sessions live (default: $ENGRAM_DATA_DIR or ~/.engram).',
  },
  help: { type: 'boolean', short: 'h', help: 'Show this help.' },
} satisfies OptionSpecs;

const HELP = `Usage: engram rewind SESSION --to-turn N [--code] [--conversation] [--force] [--dry-run] [--yes] [--json]
       engram rewind SESSION --undo ID [--force] [--json]

Takes session SESSION back to the state right after turn N (turn 1 is the session's first prompt):
--code puts the workspace's files back from the session's checkpoints, --conversation makes a resume
read the conversation as it was after turn N (the later turns stay in the transcript as a side branch);
both when neither is given. A file you changed after the agent did is a conflict: it is left as it is
unless --force. It prints what will change first and asks on a terminal (--yes does not ask); then what
it did and the command that undoes it.

Options:
${formatOptions(OPTIONS)}

Exit codes: 0 done (or nothing to do), 1 it could not rewind (the message says why), 2 usage error.`;

export const rewindCommand: Command = {
  name: 'rewind',
  summary: "Take a session's files and conversation back to a turn (checkpoints).",
  run: runRewind,
};

async function runRewind(argv: string[], io: CliIo): Promise<number> {
  const { options, positionals } = parseCommandArgs(argv, OPTIONS);
  if (options.help) {
    io.stdout(`${HELP}\n`);
    return EXIT_OK;
  }
  const [sessionId, extra] = positionals;
  if (sessionId === undefined) throw new UsageError('Name the session: engram rewind SESSION --to-turn N');
  if (extra !== undefined) throw new UsageError(`Unexpected argument: ${extra}`);
  const toTurn = options['to-turn'] === undefined ? undefined : turnNumber(options['to-turn']);
  if (toTurn === undefined && options.undo === undefined)
    throw new UsageError('Say where to go: --to-turn N (or --undo ID to undo a rewind)');
  const cwd = path.resolve(io.cwd, options.cwd ?? '.');
  const dataDir = dataDirOf(
    io,
    options['data-dir'] === undefined ? undefined : path.resolve(io.cwd, options['data-dir']),
  );
  const session = await openSessionOnDisk({ dataDir, cwd, sessionId, settings: settingsFromFlags({}) });
  const undoArgs = [...(options.cwd ? ['--cwd', cwd] : []), ...(options['data-dir'] ? ['--data-dir', dataDir] : [])];
  const again = (id: string): string =>
    [io.command ?? 'engram', ...['rewind', sessionId, '--undo', id, ...undoArgs].map(quote)].join(' ');
  const force = options.force ? { force: true } : {};
  try {
    if (options.undo !== undefined) {
      const outcome = await session.undo(options.undo, force);
      if (options.json) io.stdout(`${json({ session: sessionId, outcome, undo: again(outcome.id) })}\n`);
      else io.stdout(`${outcome.summary}\n${failedLines(outcome)}Undo this: ${again(outcome.id)}\n`);
      return outcome.code?.failed.length ? EXIT_MODEL_ERROR : EXIT_OK;
    }
    const explicit = Boolean(options.code) || Boolean(options.conversation);
    const want = { code: !explicit || Boolean(options.code), conversation: !explicit || Boolean(options.conversation) };
    const plan = await session.plan({ toTurn: toTurn as number, ...want });
    const refused = explicit ? refusal(plan, want) : undefined;
    if (refused) {
      io.stderr(`engram: ${refused}\n`);
      return EXIT_MODEL_ERROR;
    }
    const turns = await session.turns();
    if (!options.json) io.stdout(describePlan(sessionId, plan, turns));
    if (nothingToDo(plan) || options['dry-run']) {
      if (options.json) io.stdout(`${json({ session: sessionId, plan })}\n`);
      else io.stdout(options['dry-run'] ? 'Dry run: nothing was changed.\n' : 'Nothing to rewind.\n');
      return EXIT_OK;
    }
    if (!options.yes && !options.json && process.stdin.isTTY && process.stdout.isTTY && !(await confirm())) {
      io.stdout('Nothing was changed.\n');
      return EXIT_OK;
    }
    const outcome = await session.apply(usable(plan), force);
    if (options.json) io.stdout(`${json({ session: sessionId, plan, outcome, undo: again(outcome.id) })}\n`);
    else io.stdout(`${outcome.summary}\n${failedLines(outcome)}Undo: ${again(outcome.id)}\n`);
    return outcome.code?.failed.length ? EXIT_MODEL_ERROR : EXIT_OK;
  } finally {
    await session.close();
  }
}

function turnNumber(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n))
    throw new UsageError(`--to-turn takes a turn number (0 or more), not "${value}"`);
  return n;
}

/** Asked for explicitly and not possible: the reason, said as an error. */
function refusal(plan: RewindPlan, want: { code: boolean; conversation: boolean }): string | undefined {
  if (want.code && plan.codeUnavailable) return `The code cannot be rewound: ${plan.codeUnavailable}`;
  if (want.conversation && plan.conversation?.compactedAway) return plan.conversation.compactedAway;
  return undefined;
}

/** The parts of a plan that can be applied (a part that cannot is said in the plan and left out). */
function usable(plan: RewindPlan): RewindPlan {
  const { conversation, ...rest } = plan;
  return conversation && !conversation.compactedAway ? { ...rest, conversation } : rest;
}

function nothingToDo(plan: RewindPlan): boolean {
  const files = plan.code?.files.length ?? 0;
  const turns = plan.conversation && !plan.conversation.compactedAway ? plan.conversation.droppedTurns : 0;
  return files === 0 && turns === 0;
}

/** What will change, as the person reads it before saying yes. */
function describePlan(sessionId: string, plan: RewindPlan, turns: readonly SessionTurn[]): string {
  const turn = turns.find((t) => t.turn === plan.toTurn);
  const named = turn?.prompt ? ` (${JSON.stringify(short(turn.prompt))})` : '';
  const out = [`Rewind session ${sessionId} to right after turn ${plan.toTurn}${named}:`];
  if (plan.codeUnavailable) out.push(`  Code: not rewound: ${plan.codeUnavailable}`);
  else if (plan.code) {
    const files = plan.code.files;
    out.push(
      files.length === 0
        ? '  Code: no file to change.'
        : `  Code: ${files.length} file${files.length === 1 ? '' : 's'}:`,
    );
    for (const f of files) {
      const why = f.conflict ? `  CONFLICT: ${f.conflict} (left as it is; --force restores it)` : '';
      out.push(`    ${f.action.padEnd(8)} ${f.path}${why}`);
    }
    if (plan.code.skipped.length > 0) {
      out.push('  Not covered by the checkpoints (left as they are):');
      for (const s of plan.code.skipped)
        out.push(`    ${s.path} (${s.reason}${s.bytes !== undefined ? `, ${s.bytes} bytes` : ''})`);
    }
  }
  const c = plan.conversation;
  if (c?.compactedAway) out.push(`  Conversation: ${c.compactedAway}`);
  else if (c)
    out.push(
      c.droppedTurns === 0
        ? '  Conversation: already ends there.'
        : `  Conversation: ${c.droppedTurns} later turn${c.droppedTurns === 1 ? '' : 's'} dropped (kept in the transcript as a side branch).`,
    );
  return `${out.join('\n')}\n`;
}

function failedLines(outcome: RewindOutcome): string {
  return (outcome.code?.failed ?? []).map((f) => `Not written: ${f.path}: ${f.message}\n`).join('');
}

async function confirm(): Promise<boolean> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await rl.question('Rewind? [y/N] ')).trim());
  } finally {
    rl.close();
  }
}

function short(text: string): string {
  const line = text.split('\n')[0];
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}

/** A word for the shell: quoted when it holds anything but plain characters. */
function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}
