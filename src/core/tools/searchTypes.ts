// The search port Grep and Glob run on (issue 35): one contract, two engines. The ripgrep engine runs the
// `rg` binary a host found (VS Code's bundled copy, an `rg` on PATH, or a configured path); the JavaScript
// engine is the fallback and gives the same answers. The tools format what an engine returns, so the
// model sees one output format whichever engine ran, and every file left out is counted and named.

export type SearchEngineName = 'ripgrep' | 'javascript';

/** Why a file was not searched (or listed): never dropped silently. */
export type LeftOutReason = 'tooBig' | 'binary' | 'excluded' | 'hostExcluded' | 'unreadable';

export interface LeftOut {
  reason: LeftOutReason;
  /** How many files, all of them. */
  count: number;
  /** Their paths (absolute), the first few at least, for the message ("2 files over 5 MB not searched: …"). */
  paths: string[];
  /** hostExcluded (a folder or file the host's excludes matched): how many of `count` are folders. */
  folders?: number;
}

/** What bounds a search, whatever the engine. */
export interface SearchBounds {
  /** Stop and say so after this long (a setting). */
  timeLimitMs: number;
  /** Files over this size are not searched (counted in `leftOut` as tooBig). */
  maxFileBytes: number;
  /** Globs (relative to the root, gitignore-like) the host excludes, e.g. VS Code's files.exclude / search.exclude. */
  excludes: string[];
  /** The folder `excludes` are relative to (VS Code's workspace folder); the search root when absent. */
  excludesRoot?: string;
}

export interface GrepQuery extends SearchBounds {
  /** A directory or one file, absolute. */
  root: string;
  pattern: string;
  ignoreCase: boolean;
  multiline: boolean;
  glob?: string;
  type?: string;
  mode: 'content' | 'files_with_matches' | 'count';
  /** Context lines (content mode). */
  before: number;
  after: number;
  /** Enough entries for the caller's page (offset + head_limit); an engine may stop early after this many. */
  wanted: number;
}

export interface GrepLine {
  /** 1-based. */
  line: number;
  text: string;
  /** false for a context line. */
  isMatch: boolean;
}

export interface GrepFileHit {
  /** Absolute path. */
  path: string;
  mtimeMs: number;
  matches: number;
  /** Matching and context lines in order (content mode only). */
  lines: GrepLine[];
}

export interface GrepOutcome {
  engine: SearchEngineName;
  files: GrepFileHit[];
  leftOut: LeftOut[];
  /** The engine stopped early (enough entries, or the output cap). */
  truncated: boolean;
  timedOut: boolean;
}

export interface FileQuery extends SearchBounds {
  /** Directory, absolute. */
  root: string;
  /** A glob relative to the root. */
  pattern: string;
  maxResults: number;
  /**
   * Names only, in no order (the `@` picker lists every file): no stat call per file, every mtimeMs 0.
   * On 100,000 files that saves most of a second.
   */
  namesOnly?: boolean;
}

export interface FileListing {
  engine: SearchEngineName;
  /** Newest first, at most `maxResults`. */
  files: Array<{ path: string; mtimeMs: number }>;
  /** How many files matched in all (more than `files` when cut). */
  total?: number;
  leftOut: LeftOut[];
  truncated: boolean;
  timedOut: boolean;
}

/** One engine. A pattern the engine cannot run is a thrown SearchPatternError with words for the model. */
export interface SearchEngine {
  readonly name: SearchEngineName;
  /** For logs, /context and the inspector: e.g. "ripgrep 15.0.0 (VS Code's bundled copy)". */
  readonly detail: string;
  grep(query: GrepQuery, signal: AbortSignal): Promise<GrepOutcome>;
  files(query: FileQuery, signal: AbortSignal): Promise<FileListing>;
}

/** A pattern the engine cannot run (ripgrep's parse error, a regex too slow for the JS engine), in words for the model. */
export class SearchPatternError extends Error {
  override name = 'SearchPatternError';
}
