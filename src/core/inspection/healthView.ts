// The inspector's Health view (issue 32) on the engine side: a workspace's memory health kept up to date
// from file events (WorkspaceHealth: the index is listed once, then each batch of events or a changed
// memory folder re-checks what it touches), and the view the webview draws from its last result (each
// memory with its title from MEMORY.md, problems first, and the counts of the summary line).
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { findGitRoot } from '../conversation/projectKey';
import { autoMemoryDir, TEAM_DIR_NAME } from '../memory/autoMemory/memoryPaths';
import { type FileEvent, MemoryHealthIndex } from '../memory/health/healthIndex';

export type { FileEvent };
import type { MemoryHealth } from '../memory/health/healthTypes';
import { memoryHealth } from '../memory/health/memoryHealth';
import type { HealthEntryView, HealthView, MemoryView } from '../../protocol/messages';

/** One check's outcome: each memory's health, and the line of each stale reference (by file, then ref). */
export interface HealthResult {
  memoryDir: string;
  workspace: string;
  memories: MemoryHealth[];
  lines: Record<string, Record<string, number>>;
  checkedAt: number;
}

/** What the host knows of the health check when a snapshot is taken. */
export interface HealthState {
  result?: HealthResult;
  checking: boolean;
  error?: string;
  unavailable?: HealthView['unavailable'];
}

/** The memory of the project at `cwd` checked against its workspace (its git root, else `cwd`), kept up to date. */
export class WorkspaceHealth {
  private constructor(
    private readonly memoryDir: string,
    private readonly team: boolean,
    private readonly index: MemoryHealthIndex,
    /** The folder as the host names it, and as git does (links resolved), when they differ. */
    private readonly alias?: { from: string; to: string },
  ) {}

  /** Lists the workspace (git ls-files, or a walk honouring .gitignore); `check()` does the first check. */
  static async open(dataDir: string, cwd: string, team: boolean): Promise<WorkspaceHealth> {
    const resolved = path.resolve(cwd);
    const root = (await findGitRoot(resolved)) ?? resolved;
    const [memoryDir, index, real] = await Promise.all([
      autoMemoryDir(dataDir, resolved),
      MemoryHealthIndex.open(root),
      fsp.realpath(resolved).catch(() => resolved),
    ]);
    return new WorkspaceHealth(memoryDir, team, index, real !== resolved ? { from: resolved, to: real } : undefined);
  }

  /** The workspace root the references are checked against. */
  get root(): string {
    return this.index.workspace.root;
  }

  /** Re-reads every memory (a memory changed) and checks it; symbols already searched are not searched again. */
  async check(): Promise<HealthResult> {
    const memories = await memoryHealth({ memoryDir: this.memoryDir, team: this.team }, this.index);
    const lines: HealthResult['lines'] = {};
    for (const m of memories) {
      if (m.stale.length === 0) continue;
      const refs = this.index.result(m.file)?.refs ?? [];
      const mine: Record<string, number> = {};
      for (const s of m.stale) {
        const at = refs.find((r) => r.ref === s.ref && r.kind === s.kind)?.line;
        if (at !== undefined) mine[s.ref] = at;
      }
      lines[m.file] = mine;
    }
    return { memoryDir: this.memoryDir, workspace: this.root, memories, lines, checkedAt: Date.now() };
  }

  /** Applies workspace file events; true when a memory's result may have changed (check() again then). */
  async onFileEvents(events: readonly FileEvent[]): Promise<boolean> {
    const inside = (from: string, p: string) => {
      const rel = path.relative(from, path.resolve(p));
      return rel.startsWith('..') || path.isAbsolute(rel) ? undefined : rel;
    };
    const real = (p: string) => {
      if (!this.alias || inside(this.root, p) !== undefined) return p;
      for (const [from, to] of [
        [this.alias.from, this.alias.to],
        [this.alias.to, this.alias.from],
      ]) {
        const rel = inside(from, p);
        if (rel !== undefined) return path.join(to, rel);
      }
      return p;
    };
    // An editor names files by the folder it opened (a link, say); git names them by where they are.
    const named = events.map((e) =>
      e.kind === 'rename' ? { ...e, from: real(e.from), path: real(e.path) } : { ...e, path: real(e.path) },
    );
    return (await this.index.onFileEvents(named)).length > 0;
  }
}

/** The view of `state` for a snapshot whose memory tree is `memory` (titles and types come from it). */
export function buildHealthView(state: HealthState, memory: MemoryView): HealthView {
  const r = state.result;
  const base = {
    checking: state.checking,
    ...(state.error ? { error: state.error } : {}),
    ...(state.unavailable ? { unavailable: state.unavailable } : {}),
  };
  if (!r) return { entries: [], stale: 0, duplicatePairs: 0, contradictions: 0, ...base };
  const known = new Map([...memory.entries, ...memory.unindexed].map((e) => [`${e.group}:${e.file}`, e]));
  const nameOf = (file: string) => {
    const team = file.startsWith(`${TEAM_DIR_NAME}/`);
    return { group: team ? ('team' as const) : ('private' as const), entryFile: team ? file.slice(5) : file };
  };
  const titleOf = (file: string) => {
    const { group, entryFile } = nameOf(file);
    return known.get(`${group}:${entryFile}`)?.title ?? entryFile;
  };
  const entries: HealthEntryView[] = r.memories.map((m) => {
    const { group, entryFile } = nameOf(m.file);
    const lines = r.lines[m.file] ?? {};
    return {
      file: m.file,
      group,
      entryFile,
      title: titleOf(m.file),
      path: known.get(`${group}:${entryFile}`)?.path ?? path.join(r.memoryDir, m.file),
      type: known.get(`${group}:${entryFile}`)?.type ?? null,
      stale: m.stale.map((s) => ({ ...s, ...(lines[s.ref] !== undefined ? { line: lines[s.ref] } : {}) })),
      duplicates: m.duplicates.map((file) => ({ file, title: titleOf(file) })),
      contradicts: m.contradicts.map((file) => ({ file, title: titleOf(file) })),
      contradictionNotes: m.contradictionNotes ?? [],
      recalled: m.recalled,
      used: m.used,
      notRelevant: m.notRelevant,
      corrected: m.corrected,
      ...(m.lastUsed ? { lastUsed: m.lastUsed } : {}),
      notes: m.notes ?? [],
    };
  });
  entries.sort((a, b) => rank(a) - rank(b) || a.title.localeCompare(b.title) || a.file.localeCompare(b.file));
  return {
    entries,
    stale: entries.filter((e) => e.stale.length > 0).length,
    duplicatePairs: pairs(entries, (e) => e.duplicates),
    contradictions: pairs(entries, (e) => e.contradicts),
    workspace: r.workspace,
    checkedAt: r.checkedAt,
    ...base,
  };
}

/** 0 stale, 1 contradicts, 2 repeats, 3 fine. */
function rank(e: HealthEntryView): number {
  if (e.stale.length > 0) return 0;
  if (e.contradicts.length > 0) return 1;
  return e.duplicates.length > 0 ? 2 : 3;
}

/** Unordered pairs named by `others` (a pair named from both sides counts once). */
function pairs(entries: readonly HealthEntryView[], others: (e: HealthEntryView) => HealthOtherList): number {
  const seen = new Set<string>();
  for (const e of entries)
    for (const o of others(e)) seen.add([e.file, o.file].sort((x, y) => x.localeCompare(y)).join('\n'));
  return seen.size;
}

type HealthOtherList = HealthEntryView['duplicates'];
