// `engram inspect`: what a data root holds, per project: the memory, in the model the Memory Inspector
// draws (instructions, index entries, unindexed files, team memory, problems, the trash), and sessions
// (lines, unreadable lines, notes, compactions). Works on Engram's data dir and on Claude Code's
// (`--root ~/.claude`), whose layout is the same. Read-only. Hidden characters (bidi, zero-width) in
// the text output are written out and the entries holding them flagged, as in the inspector.
import os from 'node:os';
import path from 'node:path';
import {
  inspectRoot,
  memoryFileName,
  type Inspection,
  type InspectedProject,
  formatBranchReport,
  formatProblem,
} from '../core/host/transcripts';
import { isDirectory } from '../core/host/toolPolicy';
import { hiddenCharsOf, markHiddenChars } from '../core/host/conversationDisplay';
import { formatOptions, parseCommandArgs, UsageError, type OptionSpecs } from './args';
import { expandHome } from './cliSettings';
import { count } from './cliText';
import { EXIT_OK, type CliIo, type Command } from './command';

/** The data root given (or the default one) does not exist. */
export const EXIT_NOT_FOUND = 1;

const OPTIONS = {
  root: {
    type: 'string',
    valueName: 'DIR',
    help: 'Data root to read (default: $ENGRAM_DATA_DIR or ~/.engram; ~/.claude works too).',
  },
  project: {
    type: 'string',
    valueName: 'PATH',
    help: 'Only this project: its folder (or git root), or a project key.',
  },
  json: {
    type: 'boolean',
    help: 'Print JSON: {"root","projects":[{"key","memory","sessions"}]}, memory as the inspector shows it.',
  },
  help: { type: 'boolean', short: 'h', help: 'Show this help.' },
} satisfies OptionSpecs;

export const INSPECT_HELP = `Usage: engram inspect [--root DIR] [--project PATH] [--json]

Shows what a data root holds for each project, as the Memory Inspector does: the user's CLAUDE.md, the
auto memory index (entries with type, tokens, whether they fit the 200-line / 25 KB cap, missing
files, where they came from), topic files the index does not list, team memory, problems found while
reading, pruned entries that can be restored, and each session's line counts, notes and compactions,
with every line skipped or repaired while reading it (FILE:LINE: skipped|repaired: reason) and every
place its conversation branches (two writers at once; engram merge-branches joins them). An empty
transcript, and one that cannot be read (a folder of that name), are listed as such.
Nothing is changed.

Options:
${formatOptions(OPTIONS)}

Exit codes: 0 done, 1 --root is not a folder, 2 usage error.`;

export const inspectCommand: Command = {
  name: 'inspect',
  summary: 'Show the memory and sessions stored under a data root (also ~/.claude).',
  run: runInspect,
};

async function runInspect(argv: string[], io: CliIo): Promise<number> {
  const { options, positionals } = parseCommandArgs(argv, OPTIONS);
  if (options.help) {
    io.stdout(`${INSPECT_HELP}\n`);
    return EXIT_OK;
  }
  if (positionals.length > 0) throw new UsageError(`Unexpected argument: ${positionals[0]}`);
  const root = expandHome(options.root ?? io.env.ENGRAM_DATA_DIR ?? path.join(os.homedir(), '.engram'), io.cwd);
  // A --root that is not there is a typo, not an empty data dir: say so instead of listing no projects.
  // (The default root may simply not exist yet.)
  if (options.root !== undefined && !(await isDirectory(root))) {
    io.stderr(`engram: no data root at ${root} (not a folder)\n`);
    return EXIT_NOT_FOUND;
  }
  const project =
    options.project !== undefined ? { name: options.project, folder: expandHome(options.project, io.cwd) } : undefined;
  const result = await inspectRoot(root, project ? { project } : {});
  if (options.project !== undefined && result.projects.length === 0) {
    io.stderr(`engram: no project data for ${options.project} under ${path.join(root, 'projects')}\n`);
  }
  io.stdout(options.json ? `${JSON.stringify(inspectionJson(result), null, 2)}\n` : formatText(result));
  return EXIT_OK;
}

/**
 * The JSON: the documented fields first (memory: dir, entries, unindexed as file names, warnings; an
 * entry: title, file, hook, type, tokens, loaded, missing), then the rest of the inspector's model.
 */
function inspectionJson(result: Inspection): unknown {
  return {
    root: result.root,
    projects: result.projects.map((p) => ({ key: p.key, memory: memoryJson(p.memory), sessions: p.sessions })),
  };
}

type MemoryEntryView = InspectedProject['memory']['entries'][number];

function memoryJson(m: InspectedProject['memory']): Record<string, unknown> {
  return {
    dir: m.dir,
    entries: m.entries.map(entryJson),
    unindexed: m.unindexed.map(memoryFileName),
    warnings: m.warnings,
    exists: m.exists,
    instructions: m.instructions,
    loadedLines: m.loadedLines,
    totalLines: m.totalLines,
    maxLines: m.maxLines,
    unindexedEntries: m.unindexed.map(entryJson),
    trash: m.trash,
    // The team folder's sync (repository, server, the last sync's counts), as the inspector's team group shows it.
    ...(m.team ? { team: m.team } : {}),
    // What the background agent proposed and waits for review (`memory/.pending/`), when anything does.
    ...(m.review && (m.review.items.length > 0 || m.review.problems.length > 0)
      ? { review: { items: m.review.items, problems: m.review.problems } }
      : {}),
  };
}

function entryJson(e: MemoryEntryView): Record<string, unknown> {
  const { title, file, hook, type, tokens, loaded, missing, ...rest } = e;
  return { title, file, hook, type, tokens, loaded, missing, ...rest };
}

/** A team file's sync state in a word or two (blocked and skipped say why, a conflict where the local copy is). */
function syncFlag(sync: NonNullable<MemoryEntryView['sync']>): string {
  const s = sync.status;
  const state =
    s.state === 'blocked'
      ? `blocked: ${s.rule} line ${s.line}`
      : s.state === 'skipped'
        ? `skipped: ${s.detail}`
        : s.state === 'conflict'
          ? `conflict, yours kept at ${s.keptAt}`
          : s.state;
  return sync.pulled && s.state !== 'conflict' ? `${state}, pulled (${sync.pulled})` : state;
}

function teamSyncLine(team: NonNullable<InspectedProject['memory']['team']>): string {
  const where = `${team.repo ?? '?'} on ${team.server ?? '?'}`;
  const last = team.lastSync;
  if (!last) return `${where}, not synced yet`;
  if (!last.ok) return `${where}, last sync ${last.at} failed: ${last.error ?? 'no reason given'}`;
  const conflicts = last.conflicts ? `, ${last.conflicts} in conflict` : '';
  return (
    `${where}, last sync ${last.at}: ${last.pulled} pulled, ${last.pushed} pushed, ` +
    `${last.skipped} skipped, ${last.blocked} blocked${conflicts}`
  );
}

function formatText(result: Inspection): string {
  const out = [`Root: ${result.root}`];
  if (result.projects.length === 0) out.push('(no projects)');
  for (const p of result.projects) {
    const m = p.memory;
    out.push('', `Project ${p.key}`);
    for (const i of m.instructions)
      out.push(
        `  Instructions: ${i.path} ` +
          `(${i.scope}, ${count(i.tokens, 'token', 'tokens')}${i.truncated ? ', truncated' : ''})`,
      );
    const lines = m.totalLines > 0 ? `, ${m.loadedLines} of ${m.totalLines} index lines loaded` : '';
    out.push(`  Memory: ${m.dir} (${count(m.entries.length, 'entry', 'entries')}${lines})`);
    for (const e of m.entries) {
      const flags = [
        e.group === 'team' ? 'team' : null,
        e.sync ? syncFlag(e.sync) : null,
        e.type ?? 'untyped',
        e.tokens !== null ? count(e.tokens, 'token', 'tokens') : null,
        e.loaded ? null : 'not loaded',
        e.missing ? 'MISSING' : null,
        hiddenFlag(e.title, e.hook, e.file),
      ]
        .filter(Boolean)
        .join(', ');
      out.push(`    - ${e.title} (${e.file}) ${e.hook ? `— ${e.hook} ` : ''}[${flags}]`);
    }
    // Inspect changes nothing (it may be reading ~/.claude); an Engram session opened there does the indexing.
    if (m.unindexed.length > 0)
      out.push(
        '  Not in the index (the next Engram session of this project indexes those with sound front matter): ' +
          m.unindexed.map(memoryFileName).join(', '),
      );
    if (m.team) out.push(`  Team sync: ${teamSyncLine(m.team)}`);
    for (const f of m.team?.files ?? []) out.push(`    - ${f.file} [team, ${syncFlag(f.sync)}]`);
    for (const w of m.warnings) out.push(`  Warning: ${w}`);
    if (m.trash.length > 0) out.push(`  Pruned (restorable): ${m.trash.map((t) => t.file).join(', ')}`);
    if (m.review?.items.length)
      out.push(
        `  Waiting for review: ${m.review.items
          .map((i) => `${i.group === 'team' ? 'team/' : ''}${i.file} (${i.action === 'create' ? 'new' : 'changes it'})`)
          .join(', ')}`,
      );
    out.push(`  Sessions: ${p.sessions.length}`);
    for (const s of p.sessions) {
      if (s.unreadable || s.empty) {
        out.push(
          `    ${s.id}: ` +
            (s.unreadable
              ? `unreadable (${s.unreadable})`
              : 'empty (a run that stopped before writing anything; nothing to resume)'),
        );
        continue;
      }
      const parts = [
        count(s.lines, 'line', 'lines'),
        s.corruptLines ? `${s.corruptLines} unreadable` : null,
        s.repairedLines ? `${s.repairedLines} repaired` : null,
        s.hasNotes ? 'notes' : null,
        s.compactions.length ? `${s.compactions.length} compaction${s.compactions.length === 1 ? '' : 's'}` : null,
      ].filter(Boolean);
      out.push(`    ${s.id}: ${parts.join(', ')}`);
      for (const problem of s.problems) out.push(`      ${formatProblem(problem)}`);
      for (const branch of s.branches ?? [])
        out.push(`      ${formatBranchReport(path.join(result.root, 'projects', p.key, `${s.id}.jsonl`), branch)}`);
    }
  }
  // A name may carry a bidi override or a zero-width character (a memory from the model or a teammate):
  // written out as <U+202E> everywhere, as the inspector does, so the terminal shows what is really there.
  return `${markHiddenChars(out.join('\n'))}\n`;
}

/** The flag of an entry whose title, hook or file name holds hidden characters, naming them. */
function hiddenFlag(...texts: string[]): string | null {
  const hidden = hiddenCharsOf(...texts);
  return hidden.length > 0 ? `HIDDEN CHARACTERS ${hidden.join(' ')}` : null;
}
