// The stale-reference state of a set of memories against one workspace, kept up to date incrementally:
// the workspace is listed and searched once, then a file event (create, change, delete, rename) updates
// the listing and re-reads that one file, and only the memories whose references it can touch are
// checked again (by base name, by a symbol whose presence flipped, or every command when a
// package.json or Makefile changed). A changed memory is re-read alone, searching only words no other
// memory named. Used by `engram memory check` (one cold pass) and by a host that watches files.
import { type Dirent, lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { resolveReal } from '../../fs/pathGuard';
import type { MemoryReference } from './healthTypes';
import { checkReferences, type ReferenceCheck } from './referenceCheck';
import { MAX_REFERENCES_PER_MEMORY, scanReferences } from './referenceExtract';
import { emptySymbolIndex, rescanFile, searchWords, type SymbolIndex, symbolWords } from './symbolIndex';
import {
  ALWAYS_SKIPPED,
  addPath,
  baseOf,
  isIgnored,
  isManifest,
  listWorkspace,
  readManifest,
  removePath,
  type WorkspaceFiles,
} from './workspaceFiles';

/** A folder event looks at most this many files under the folder. */
const MAX_FOLDER_EVENT_FILES = 50_000;

/** A change to a workspace path (absolute, or relative to the workspace). */
export type FileEvent =
  | { kind: 'create' | 'change' | 'delete'; path: string }
  | { kind: 'rename'; from: string; path: string };

/** A memory's references and what the check found. */
export interface MemoryCheck extends ReferenceCheck {
  refs: MemoryReference[];
  /** References found, including those past the cap. */
  total: number;
  /** Said when the check is partial (more references than MAX_REFERENCES_PER_MEMORY). */
  notes: string[];
}

export class MemoryHealthIndex {
  private readonly memories = new Map<string, MemoryCheck>();

  private constructor(
    readonly workspace: WorkspaceFiles,
    private readonly symbols: SymbolIndex,
  ) {}

  /** Lists the workspace at `root` (git, or a walk honouring .gitignore). */
  static async open(root: string): Promise<MemoryHealthIndex> {
    return new MemoryHealthIndex(await listWorkspace(root), emptySymbolIndex());
  }

  /** Sets (or replaces) many memories at once, with one search for all their symbols. */
  async setMemories(memories: ReadonlyArray<{ file: string; text: string }>): Promise<void> {
    const scanned = memories.map((m) => ({ file: m.file, ...scanReferences(m.text) }));
    await searchWords(
      this.workspace,
      this.symbols,
      scanned.flatMap((s) => symbolRefWords(s.refs)),
    );
    for (const s of scanned) this.memories.set(s.file, this.check(s.refs, s.total));
  }

  /** A memory was written (`text`) or deleted (undefined): it alone is re-read and checked. */
  async onMemoryChanged(file: string, text: string | undefined): Promise<MemoryCheck | undefined> {
    if (text === undefined) {
      this.memories.delete(file);
      return undefined;
    }
    await this.setMemories([{ file, text }]);
    return this.memories.get(file);
  }

  /** The current result of one memory. */
  result(file: string): MemoryCheck | undefined {
    return this.memories.get(file);
  }

  /** Every memory's result, by file name. */
  results(): ReadonlyMap<string, MemoryCheck> {
    return this.memories;
  }

  /**
   * Applies file events to the listing and symbol index, re-checks the memories they touch, and
   * returns the files of those memories. Paths outside the workspace are ignored.
   */
  async onFileEvents(events: readonly FileEvent[]): Promise<string[]> {
    const touchedNames = new Set<string>();
    const flipped = new Set<string>();
    let manifests = false;
    const seen = async (abs: string): Promise<void> => {
      const top = this.relative(abs);
      if (top === undefined) return;
      // A folder event (deleted, renamed, created with its files) stands for every file in it.
      for (const rel of this.filesAt(top)) await seenFile(rel);
    };
    const seenFile = async (rel: string): Promise<void> => {
      for (const seg of rel.split('/')) touchedNames.add(seg);
      const present = this.listable(rel);
      if (present) addPath(this.workspace, rel);
      else removePath(this.workspace, rel);
      for (const w of await rescanFile(this.workspace, this.symbols, rel)) flipped.add(w);
      if (isManifest(rel)) {
        manifests = true;
        await readManifest(this.workspace, rel);
      }
    };
    for (const e of events) {
      if (e.kind === 'rename') await seen(e.from);
      await seen(e.path);
    }
    const redo: string[] = [];
    for (const [file, m] of this.memories) {
      if (m.refs.some((r) => touches(r, touchedNames, flipped, manifests))) {
        this.memories.set(file, this.check(m.refs, m.total));
        redo.push(file);
      }
    }
    return redo;
  }

  private check(refs: MemoryReference[], total: number): MemoryCheck {
    const notes =
      total > refs.length
        ? [`only the first ${MAX_REFERENCES_PER_MEMORY} of its ${total} references were checked`]
        : [];
    return { refs, total, notes, ...checkReferences(refs, this.workspace, this.symbols) };
  }

  /**
   * The file paths an event on `rel` concerns: `rel` itself, the files listed under it (a folder that
   * went away), and the files now on disk under it (a folder that arrived), never through a link.
   */
  private filesAt(rel: string): string[] {
    const out = new Set<string>([rel]);
    const prefix = `${rel}/`;
    if (this.workspace.dirs.has(rel)) for (const f of this.workspace.files) if (f.startsWith(prefix)) out.add(f);
    const pending = [rel];
    while (pending.length > 0 && out.size < MAX_FOLDER_EVENT_FILES) {
      const dir = pending.pop() as string;
      const abs = path.join(this.workspace.root, dir);
      if (resolveReal(abs, this.workspace.root) !== abs) continue; // a link, or through one
      let entries: Dirent[];
      try {
        entries = readdirSync(abs, { withFileTypes: true });
      } catch {
        continue; // not a folder (or gone)
      }
      for (const e of entries) {
        const child = `${dir}/${e.name}`;
        if (ALWAYS_SKIPPED.has(e.name) || isIgnored(this.workspace, child)) continue;
        if (e.isDirectory()) pending.push(child);
        else out.add(child);
      }
    }
    return [...out];
  }

  /** Relative path of an event's path inside the workspace, or undefined when it is outside. */
  private relative(p: string): string | undefined {
    const abs = path.resolve(this.workspace.root, p);
    const rel = path.relative(this.workspace.root, abs);
    if (rel === '' || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return undefined;
    return rel.split(path.sep).join('/');
  }

  /**
   * A path the listing keeps: a file (or a link, as git lists links) present in a folder reached without
   * passing through a symbolic link, and not ignored. `link/x.ts` with `link` leading out is not.
   */
  private listable(rel: string): boolean {
    const root = this.workspace.root;
    const abs = path.join(root, rel);
    const dir = path.dirname(abs);
    if (resolveReal(dir, root) !== dir) return false;
    try {
      if (lstatSync(abs).isDirectory()) return false; // folders come from the files in them
    } catch {
      return false;
    }
    return !isIgnored(this.workspace, rel);
  }
}

function symbolRefWords(refs: readonly MemoryReference[]): string[] {
  return refs.filter((r) => r.kind === 'symbol').flatMap((r) => symbolWords(r.ref));
}

/** Whether a reference can have changed: a path sharing a name with a changed path, a flipped word, a command. */
function touches(r: MemoryReference, names: Set<string>, flipped: Set<string>, manifests: boolean): boolean {
  switch (r.kind) {
    case 'path':
      return r.ref.split('/').some((seg) => names.has(seg));
    case 'symbol':
      return symbolWords(r.ref).some((w) => flipped.has(w));
    case 'command':
      return manifests || r.ref.split(/[ /]/).some((seg) => names.has(seg)) || names.has(baseOf(r.ref));
  }
}
