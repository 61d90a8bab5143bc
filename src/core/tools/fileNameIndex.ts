// The workspace's file names for the chat's `@` completion (issue 35): listed once through the search
// engine (ripgrep where the host has it, else the JavaScript engine: the files Glob sees, with .gitignore
// and the host's excludes honoured), kept, and brought up to date from file events. A keystroke matches
// against lowercase copies made once per listing and keeps only the best few, so on a 100,000-file tree an
// answer takes milliseconds, not a listing.
import type { SearchEngine } from './searchTypes';

const WINDOWS = process.platform === 'win32';
/** Past this many files the listing stops (and the picker offers those). */
const MAX_FILES = 300_000;
/** A listing that takes longer than this stops with what it has. */
const LIST_TIME_LIMIT_MS = 20_000;

export interface FileNameIndexOptions {
  /** The workspace folder, absolute. */
  root: string;
  /** The engine to list with, asked at each listing (a host may find ripgrep after the index is made). */
  engine: () => SearchEngine;
  /** Globs the host leaves out (VS Code's files.exclude / search.exclude), asked at each listing. */
  excludes?: () => string[];
  maxFiles?: number;
}

interface Listing {
  /** Workspace-relative paths, forward slashes. */
  paths: string[];
  lower: string[];
  /** Where each path's file name starts. */
  nameAt: Int32Array;
  set?: Set<string>;
}

const EMPTY: Listing = { paths: [], lower: [], nameAt: new Int32Array(0) };

export class FileNameIndex {
  private listing = EMPTY;
  private pending: Promise<void> | undefined;
  private listed = false;
  /** A file event came since the listing began: list again before the next answer needs it. */
  private stale = false;
  /** Deleted since the last listing: left out of answers at once. */
  private readonly gone = new Set<string>();

  private readonly root: string;

  constructor(private readonly opts: FileNameIndexOptions) {
    this.root = opts.root.replace(/[\\/]+$/, '');
  }

  /**
   * Paths containing `query` (any case), best first: file names that start with it, then paths that do,
   * then the rest; shorter paths first within each. The first call waits for the listing; later ones answer
   * from the kept list while a listing made stale by file events is made again behind them.
   */
  async suggest(query: string, max: number): Promise<string[]> {
    if (!this.listed) await this.refresh();
    else if (this.stale) void this.refresh();
    return rankListing(this.listing, query.toLowerCase(), max, this.gone);
  }

  /** Whether the workspace has the file `rel` (listed again first when file events came since). */
  async has(rel: string): Promise<boolean> {
    if (!this.listed || this.stale) await this.refresh();
    const l = this.listing;
    l.set ??= new Set(l.paths);
    return l.set.has(rel) && !this.gone.has(rel);
  }

  /** A file was created, changed, deleted or renamed (absolute path): the list follows. */
  onFileEvent(kind: 'create' | 'change' | 'delete', absPath: string): void {
    if (kind === 'change') return; // same name
    const rel = this.relative(absPath);
    if (rel === undefined) return;
    if (kind === 'delete') this.gone.add(rel);
    this.stale = true;
  }

  /** Lists the workspace now (one listing at a time: a caller during one waits for it). */
  refresh(): Promise<void> {
    if (this.pending !== undefined) return this.pending;
    this.stale = false;
    const started = this.opts.engine().files(
      {
        root: this.opts.root,
        pattern: '**',
        namesOnly: true,
        maxResults: this.opts.maxFiles ?? MAX_FILES,
        timeLimitMs: LIST_TIME_LIMIT_MS,
        maxFileBytes: Number.MAX_SAFE_INTEGER,
        excludes: this.opts.excludes?.() ?? [],
      },
      AbortSignal.timeout(LIST_TIME_LIMIT_MS * 2),
    );
    this.pending = started
      .then((found) => {
        this.listing = listingOf(found.files.map((f) => this.relative(f.path)).filter((p) => p !== undefined));
        this.gone.clear();
      })
      .finally(() => {
        this.listed = true;
        this.pending = undefined;
      });
    return this.pending;
  }

  /** `abs` relative to the root with forward slashes, or undefined outside it (called for every file listed). */
  private relative(abs: string): string | undefined {
    const root = this.root;
    const sep = abs.charCodeAt(root.length);
    if (!abs.startsWith(root) || (sep !== 47 && sep !== 92)) return undefined; // '/' or '\\'
    const rel = abs.slice(root.length + 1);
    return WINDOWS ? rel.replace(/\\/g, '/') : rel; // elsewhere a backslash is part of a name
  }
}

function listingOf(paths: string[]): Listing {
  const lower = paths.map((p) => p.toLowerCase());
  const nameAt = new Int32Array(paths.length);
  for (let i = 0; i < paths.length; i++) nameAt[i] = (paths[i] as string).lastIndexOf('/') + 1;
  return { paths, lower, nameAt };
}

/** The ranking of `rankPaths`, on a listing with its lowercase copies made. */
function rankListing(l: Listing, q: string, max: number, gone: ReadonlySet<string>): string[] {
  // The best `max` so far, kept sorted: a new path only costs a comparison with the worst of them.
  const best: Array<{ score: number; path: string }> = [];
  for (let i = 0; i < l.lower.length; i++) {
    const lower = l.lower[i] as string;
    const at = lower.indexOf(q);
    if (at < 0) continue;
    const path = l.paths[i] as string;
    const name = l.nameAt[i] as number;
    const bucket = lower.startsWith(q, name) ? 0 : at === 0 ? 1 : 2;
    const score = bucket * 100_000 + path.length;
    if (best.length === max && !better(score, path, best[max - 1] as { score: number; path: string })) continue;
    if (gone.size > 0 && gone.has(path)) continue;
    let k = best.length < max ? best.length : max - 1;
    while (k > 0 && better(score, path, best[k - 1] as { score: number; path: string })) {
      best[k] = best[k - 1] as { score: number; path: string };
      k--;
    }
    best[k] = { score, path };
  }
  return best.map((b) => b.path);
}

function better(score: number, path: string, than: { score: number; path: string }): boolean {
  return score < than.score || (score === than.score && path.localeCompare(than.path) < 0);
}

/**
 * Paths for a completion list: those containing `query` (any case), file names that start with it first,
 * then paths that do, then shorter paths; an empty query lists the shortest paths.
 */
export function rankPaths(paths: readonly string[], query: string, max: number): string[] {
  return rankListing(listingOf([...paths]), query.toLowerCase(), max, new Set());
}
