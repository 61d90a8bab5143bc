// The memory tree's data: instruction files (CLAUDE.md), the MEMORY.md entries with what each costs and
// whether the system prompt gets it, files no line points to, team memory, and the trash that Undo
// restores from. Read-only, plain Node (no `vscode`), so it is unit-tested on fixture folders.
import path from 'node:path';
import { instructionLabel, loadInstructions } from '../memory/instructions';
import {
  loadMemoryIndex,
  parseIndexLine,
  type IndexEntry,
  type MemoryIndex,
  type TopicSummary,
} from '../memory/autoMemory/memoryIndex';
import { readMemoryFile } from '../memory/autoMemory/memoryFiles';
import { teamMemoryDir } from '../memory/autoMemory/memoryPaths';
import { listTrash, type PruneRecord } from '../memory/autoMemory/memoryTrash';
import { readUsage, usesOf, type EntryUsage } from '../memory/autoMemory/usageCounts';
import { capStatus } from '../memory/autoMemory/capWarning';
import { clientProvenance } from '../memory/autoMemory/memoryWriter';
import { parseTopicFile } from '../memory/autoMemory/topicFile';
import { readTeamSyncState } from '../memory/team/syncStateFile';
import type { TeamSyncState } from '../memory/team/teamSyncTypes';
import { MEMORY_INDEX_CAP_WARN_RATIO, MEMORY_INDEX_MAX_LINES } from '../thresholds';
import type { TokenCounter } from '../tokens/accounting';
import type {
  EntryGroup,
  IndexCapView,
  InstructionView,
  MemoryEntryView,
  MemoryView,
  TeamMemoryView,
  TrashView,
} from '../../protocol/messages';
import { teamSyncViews } from './teamView';
import { isDirectory, isFile } from '../fs/fileKind';

export interface MemoryViewInput {
  /** The project's memory folder; undefined when auto memory is off or unknown. */
  dir: string | undefined;
  /** Where to look for CLAUDE.md files; undefined lists none. */
  instructions?: { cwd: string | undefined; configDir: string; trusted: boolean };
  countTokens?: TokenCounter;
}

export async function buildMemoryView(input: MemoryViewInput): Promise<MemoryView> {
  const count = input.countTokens;
  const instructions = input.instructions ? await instructionViews(input.instructions, count) : [];
  // An untrusted workspace: the list says the project's files were left out, not that there are none.
  const skipped = input.instructions && !input.instructions.trusted && input.instructions.cwd !== undefined;
  const trust = skipped ? { projectInstructionsSkipped: true } : {};
  if (!input.dir) {
    return {
      exists: false,
      instructions,
      ...trust,
      entries: [],
      unindexed: [],
      loadedLines: 0,
      totalLines: 0,
      maxLines: MEMORY_INDEX_MAX_LINES,
      warnings: [],
      trash: [],
    };
  }
  const dir = input.dir;
  let teamDir: string | undefined;
  const teamProblems: string[] = [];
  try {
    teamDir = teamMemoryDir(dir);
  } catch (e) {
    teamProblems.push((e as Error).message);
  }
  const [index, loadedTeam, trash, teamTrash, exists, syncState, usage, teamUsage] = await Promise.all([
    loadMemoryIndex(dir, count ? { countTokens: count } : {}),
    teamDir ? loadMemoryIndex(teamDir, count ? { countTokens: count } : {}) : undefined,
    listTrash(dir),
    teamDir ? listTrash(teamDir) : [],
    isDirectory(dir),
    teamDir ? readTeamSyncState(teamDir) : null,
    readUsage(dir),
    teamDir ? readUsage(teamDir) : {},
  ]);
  const team = loadedTeam ?? {
    ...index,
    dir: path.join(dir, 'team'),
    entries: [],
    unindexed: [],
    topics: [],
    warnings: teamProblems,
  };
  const [mine, theirs] = await Promise.all([viewsOf(index, 'private', usage), viewsOf(team, 'team', teamUsage)]);
  const cap = capView(index);
  const teamView = teamDir && syncState ? await withSyncState(teamDir, syncState, theirs) : undefined;
  return {
    dir,
    exists,
    instructions,
    ...trust,
    entries: [...mine.entries, ...theirs.entries],
    unindexed: [...mine.unindexed, ...theirs.unindexed],
    loadedLines: index.loadedLines,
    totalLines: index.totalLines,
    maxLines: MEMORY_INDEX_MAX_LINES,
    warnings: [...index.warnings, ...team.warnings.map((w) => `team: ${w}`)],
    trash: [...trash.map((r) => trashView(r, 'private')), ...teamTrash.map((r) => trashView(r, 'team'))].sort((a, b) =>
      a.prunedAt < b.prunedAt ? 1 : a.prunedAt > b.prunedAt ? -1 : 0,
    ),
    ...(teamView ? { team: teamView } : {}),
    cap,
    // The team index has the same caps: it is loaded into the prompt the same way.
    ...(loadedTeam && loadedTeam.totalLines > 0 ? { teamCap: capView(loadedTeam) } : {}),
  };
}

function capView(index: MemoryIndex): IndexCapView {
  const cap = capStatus({ lines: index.totalLines, bytes: index.totalBytes });
  return {
    lines: cap.lines,
    maxLines: cap.maxLines,
    bytes: cap.bytes,
    maxBytes: cap.maxBytes,
    level: cap.level,
    warnPercent: Math.round(MEMORY_INDEX_CAP_WARN_RATIO * 100),
  };
}

/**
 * Gives each team entry its sync state (in place) and lists the synced files the tree has no row for,
 * if they are still here.
 */
async function withSyncState(
  teamDir: string,
  state: TeamSyncState,
  views: { entries: MemoryEntryView[]; unindexed: MemoryEntryView[] },
): Promise<TeamMemoryView> {
  const listed = [...views.entries, ...views.unindexed];
  const { byFile, team } = teamSyncViews(
    teamDir,
    state,
    listed.filter((e) => !e.missing).map((e) => e.file),
  );
  for (const e of listed) {
    const sync = e.missing ? undefined : byFile.get(e.file);
    if (sync) e.sync = sync;
  }
  const present = await Promise.all(team.files.map((f) => isFile(f.path)));
  return { ...team, files: team.files.filter((_, i) => present[i]) };
}

/** A pruned entry under the title its index line had, so the trash reads like the tree it left. */
function trashView(r: PruneRecord, group: EntryGroup): TrashView {
  const title = (r.removed?.lines ?? []).map((l) => parseIndexLine(l.text.replace(/\r?\n$/, ''))?.title).find((t) => t);
  return { id: r.id, group, file: r.file, ...(title ? { title } : {}), prunedAt: r.prunedAt };
}

async function viewsOf(
  index: MemoryIndex,
  group: EntryGroup,
  usage: Record<string, EntryUsage>,
): Promise<{ entries: MemoryEntryView[]; unindexed: MemoryEntryView[] }> {
  const topics = new Map(index.topics.map((t) => [t.file, t]));
  const origins = await originsOf(index.dir, index.topics);
  const entries = index.entries.map((e) =>
    withUsage(entryView(index.dir, group, e, topics.get(normalise(e.file)), origins), usage),
  );
  const unindexed = index.unindexed.map((file): MemoryEntryView => {
    const t = topics.get(file);
    const provenance = origins.get(file);
    return withUsage(
      {
        key: `${group}:${file}`,
        group,
        title: t?.name?.trim() || file,
        file,
        path: path.join(index.dir, file),
        hook: t?.description ?? '',
        type: t?.type ?? null,
        tokens: t?.tokens ?? null,
        mtimeMs: t?.mtimeMs ?? null,
        line: null,
        loaded: false,
        missing: false,
        indexed: false,
        ...provenance,
      },
      usage,
    );
  });
  return { entries, unindexed };
}

/** The entry's use count and last use, from its folder's `.usage.json`. */
function withUsage(view: MemoryEntryView, usage: Record<string, EntryUsage>): MemoryEntryView {
  const u = Object.hasOwn(usage, view.file) ? usage[view.file] : undefined;
  return {
    ...view,
    uses: usesOf(u),
    ...(u ? { lastUsed: u.lastUsed } : {}),
    ...(u?.notRelevant?.length ? { notRelevant: u.notRelevant } : {}),
  };
}

function entryView(
  dir: string,
  group: EntryGroup,
  e: IndexEntry,
  topic: TopicSummary | undefined,
  origins: Map<string, Provenance>,
): MemoryEntryView {
  const file = normalise(e.file);
  const provenance = origins.get(file);
  return {
    // Two lines may link the same file (a warning says so): the line keeps keys unique.
    key: `${group}:${file}:${e.line}`,
    group,
    title: e.title,
    file,
    path: path.join(dir, file),
    hook: e.hook,
    type: e.type,
    tokens: e.tokens,
    mtimeMs: topic?.mtimeMs ?? null,
    line: e.line,
    loaded: e.loaded,
    missing: e.missing,
    indexed: true,
    ...provenance,
  };
}

/** What a memory's front matter says of where it came from. */
type Provenance = Pick<MemoryEntryView, 'origin' | 'writtenBy'>;

/**
 * Where each memory came from: `originSessionId` / `originMessageId` in its front matter, and for one
 * another agent wrote (through `engram mcp` or VS Code's language model tools) `originClient` / `originVia`.
 */
async function originsOf(dir: string, topics: readonly TopicSummary[]): Promise<Map<string, Provenance>> {
  const out = new Map<string, Provenance>();
  await Promise.all(
    topics.map(async (t) => {
      let buf: Buffer;
      try {
        buf = (await readMemoryFile(dir, path.join(dir, t.file))).data;
      } catch {
        return;
      }
      // Only the front matter matters; a cheap test skips files without any.
      if (
        !buf
          .subarray(0, 4)
          .toString('utf8')
          .replace(/^\ufeff/, '')
          .startsWith('---')
      )
        return;
      const parsed = parseTopicFile(buf);
      if (parsed.binary) return;
      const sessionId = typeof parsed.data.originSessionId === 'string' ? parsed.data.originSessionId : undefined;
      const messageId = typeof parsed.data.originMessageId === 'string' ? parsed.data.originMessageId : undefined;
      const writtenBy = clientProvenance(parsed.data);
      const found: Provenance = {
        ...(sessionId ? { origin: { sessionId, ...(messageId ? { messageId } : {}) } } : {}),
        ...(writtenBy ? { writtenBy } : {}),
      };
      if (found.origin || found.writtenBy) out.set(t.file, found);
    }),
  );
  return out;
}

async function instructionViews(
  opts: { cwd: string | undefined; configDir: string; trusted: boolean },
  count: TokenCounter | undefined,
): Promise<InstructionView[]> {
  try {
    const result = await loadInstructions({
      // Without a known project folder only the user's file is listed.
      cwd: opts.cwd ?? opts.configDir,
      configDir: opts.configDir,
      trusted: opts.trusted && opts.cwd !== undefined,
      ...(count ? { countTokens: count } : {}),
    });
    return result.files.map((f) => ({
      path: f.path,
      label: instructionLabel(f.path, opts.cwd),
      scope: f.scope,
      tokens: f.tokens ?? (count ? count(f.content) : Math.ceil(f.content.length / 4)),
      ...(f.importedFrom ? { importedFrom: f.importedFrom } : {}),
      truncated: f.truncated === true,
    }));
  } catch {
    return [];
  }
}

function normalise(name: string): string {
  return name
    .split(/[\\/]+/)
    .filter((s) => s !== '' && s !== '.')
    .join('/');
}
