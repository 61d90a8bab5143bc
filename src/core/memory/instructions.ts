// Loads the instruction files (CLAUDE.md and friends) the way Claude Code does, so a project's existing
// instructions work unchanged: the user's file, then every directory from the top down to the project
// (AGENTS.md, CLAUDE.md, .claude/CLAUDE.md, CLAUDE.local.md), closer files last so they read as the most
// specific. AGENTS.md, the file most other agents read, comes before the CLAUDE.md beside it: it is written
// for any agent, CLAUDE.md for this kind, so CLAUDE.md reads as the more specific. A folder's files with
// the same text (CLAUDE.md a copy of AGENTS.md, or a link to it) load once. `@path` mentions import other
// files. An untrusted workspace contributes nothing: its files could carry prompt injections.
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type InstructionScope = 'user' | 'project' | 'local';

export interface InstructionFile {
  path: string;
  scope: InstructionScope;
  content: string;
  tokens?: number;
  /** The file whose `@path` line imported this one. */
  importedFrom?: string;
  /** Cut to the size cap. */
  truncated?: boolean;
}

export interface InstructionsResult {
  files: InstructionFile[];
  /** The block for the system prompt ('' when there is nothing to say). */
  text: string;
  warnings: string[];
}

export interface LoadInstructionsOptions {
  /** The project directory (workspace folder). */
  cwd: string;
  /** Engram's (or Claude Code's) config dir; `<configDir>/CLAUDE.md` is the user's file. */
  configDir: string;
  /** Workspace trust: untrusted loads only the user's file. */
  trusted: boolean;
  /** For `~/` imports; defaults to os.homedir(). */
  homeDir?: string;
  /** Highest directory searched for project files (inclusive). Default: up to, not including, the filesystem root. */
  stopAt?: string;
  /** Per-file size cap in characters. */
  maxChars?: number;
  countTokens?: (text: string) => number;
}

/** Imports nest at most this deep (a top-level file is depth 0), as in Claude Code. */
export const INSTRUCTIONS_MAX_IMPORT_DEPTH = 5;
/** Per-file cap: a huge pasted file would crowd out the conversation on every turn. */
export const INSTRUCTIONS_MAX_FILE_CHARS = 40_000;

export async function loadInstructions(opts: LoadInstructionsOptions): Promise<InstructionsResult> {
  const loader = new Loader(opts);
  await loader.load(path.join(opts.configDir, 'CLAUDE.md'), 'user', 0);
  if (opts.trusted) {
    const home = path.resolve(opts.homeDir ?? os.homedir());
    for (const dir of projectDirs(path.resolve(opts.cwd), opts.stopAt)) {
      await loader.load(path.join(dir, 'AGENTS.md'), 'project', 0);
      await loader.load(path.join(dir, 'CLAUDE.md'), 'project', 0);
      // In the home directory, .claude/CLAUDE.md is Claude Code's user file, not a project's.
      if (dir !== home) await loader.load(path.join(dir, '.claude', 'CLAUDE.md'), 'project', 0);
      await loader.load(path.join(dir, 'CLAUDE.local.md'), 'local', 0);
    }
  }
  return { files: loader.files, text: renderInstructions(loader.files), warnings: loader.warnings };
}

/**
 * An instruction file's path as people read it: relative to the project folder when inside it
 * ("AGENTS.md", "docs/style.md"), else from the home folder ("~/.engram/CLAUDE.md"), else in full.
 */
export function instructionLabel(file: string, cwd: string | undefined, homeDir: string = os.homedir()): string {
  const inside = (dir: string): string | undefined => {
    const rel = path.relative(dir, file);
    const outside = rel === '' || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel);
    return outside ? undefined : rel.split(path.sep).join('/');
  };
  const inProject = cwd !== undefined ? inside(path.resolve(cwd)) : undefined;
  if (inProject !== undefined) return inProject;
  const inHome = inside(path.resolve(homeDir));
  return inHome !== undefined ? `~/${inHome}` : file;
}

/** Directories from the top-most down to `cwd`. */
function projectDirs(cwd: string, stopAt: string | undefined): string[] {
  const stop = stopAt ? path.resolve(stopAt) : null;
  const out: string[] = [];
  let dir = cwd;
  for (;;) {
    const parent = path.dirname(dir);
    const isFsRoot = parent === dir;
    if (isFsRoot && out.length > 0 && stop === null) break; // Claude Code stops below the root
    out.push(dir);
    if (isFsRoot || dir === stop) break;
    dir = parent;
  }
  // A stopAt that is not an ancestor of cwd means "just cwd": never wander to unrelated places.
  if (stop !== null && !out.includes(stop)) return [cwd];
  return out.reverse();
}

class Loader {
  readonly files: InstructionFile[] = [];
  readonly warnings: string[] = [];
  private readonly seen = new Set<string>();
  /** The text of each top-level file loaded, by folder: a second file there with the same text is skipped. */
  private readonly textsIn = new Map<string, Set<string>>();
  private readonly home: string;
  private readonly maxChars: number;

  constructor(private readonly opts: LoadInstructionsOptions) {
    this.home = opts.homeDir ?? os.homedir();
    this.maxChars = opts.maxChars ?? INSTRUCTIONS_MAX_FILE_CHARS;
  }

  async load(
    file: string,
    scope: InstructionScope,
    depth: number,
    importedFrom?: string,
    explicit = false,
  ): Promise<void> {
    let real: string;
    try {
      real = await fsp.realpath(file);
      if (!(await fsp.stat(real)).isFile()) return;
    } catch {
      if (explicit) this.warnings.push(`Import not found: ${file} (imported by ${importedFrom}).`);
      return;
    }
    if (this.seen.has(real)) return; // loaded already, or an import cycle
    this.seen.add(real);

    const read = await this.readCapped(file);
    if (read === null) return;
    if (depth === 0 && this.sameTextLoaded(file, read.content)) return;
    const entry: InstructionFile = { path: file, scope, content: read.content };
    if (importedFrom) entry.importedFrom = importedFrom;
    if (read.truncated) entry.truncated = true;
    if (this.opts.countTokens) entry.tokens = this.opts.countTokens(read.content);
    this.files.push(entry);

    for (const ref of findImports(read.content)) {
      const target = this.resolveImport(ref, file);
      if (depth + 1 > INSTRUCTIONS_MAX_IMPORT_DEPTH) {
        this.warnings.push(
          `Import @${ref} in ${file} skipped: imports nest at most ${INSTRUCTIONS_MAX_IMPORT_DEPTH} levels deep.`,
        );
        continue;
      }
      await this.load(target, scope, depth + 1, file, isExplicitPath(ref));
    }
  }

  /** Whether a top-level file with this text was loaded from the same folder (and notes it if not). */
  private sameTextLoaded(file: string, content: string): boolean {
    const dir = path.dirname(file);
    const texts = this.textsIn.get(dir) ?? new Set<string>();
    this.textsIn.set(dir, texts);
    const text = content.trim();
    if (texts.has(text)) return true;
    texts.add(text);
    return false;
  }

  private resolveImport(ref: string, importer: string): string {
    if (ref === '~' || ref.startsWith('~/')) return path.join(this.home, ref.slice(1));
    if (path.isAbsolute(ref)) return ref;
    return path.resolve(path.dirname(importer), ref);
  }

  /** Reads at most what the cap can use, so a huge or endless file costs no more than a small one. */
  private async readCapped(file: string): Promise<{ content: string; truncated: boolean } | null> {
    let buf: Buffer;
    let size: number;
    try {
      const fh = await fsp.open(file, 'r');
      try {
        size = (await fh.stat()).size;
        // A UTF-16 unit never takes more than 3 UTF-8 bytes (4-byte sequences are 2 units).
        const want = Math.min(size, (this.maxChars + 1) * 3);
        buf = Buffer.alloc(want);
        const { bytesRead } = await fh.read(buf, 0, want, 0);
        buf = buf.subarray(0, bytesRead);
      } finally {
        await fh.close();
      }
    } catch (err) {
      this.warnings.push(`Cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`);
      return null;
    }
    if (buf.includes(0)) {
      this.warnings.push(`Skipped ${file}: it is not a text file.`);
      return null;
    }
    let text = buf.toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.length <= this.maxChars && buf.length === size) return { content: text, truncated: false };
    let cut = text.lastIndexOf('\n', this.maxChars);
    if (cut < this.maxChars * 0.8) cut = this.maxChars; // no line break near the cap: cut mid-line
    const content = `${text.slice(0, cut)}\n[... cut: this file is over ${this.maxChars} characters ...]`;
    this.warnings.push(
      `${file} is over ${this.maxChars} characters; only the first part is loaded. ` +
        'Shorten it or split it with @imports.',
    );
    return { content, truncated: true };
  }
}

function isExplicitPath(ref: string): boolean {
  return ref.startsWith('./') || ref.startsWith('../') || ref.startsWith('~/') || ref.startsWith('/');
}

/**
 * The `@path` references of a markdown text, in order: an `@` at the start of a line or after whitespace,
 * outside code blocks, code spans and HTML comments (where `@` is usually code, not an import).
 */
export function findImports(markdown: string): string[] {
  const out: string[] = [];
  const re = /(?:^|\s)@((?:[^\s\\]|\\ )+)/g;
  for (const m of proseOnly(markdown).matchAll(re)) {
    let ref = m[1].replace(/\\ /g, ' ');
    const hash = ref.indexOf('#');
    if (hash > 0) ref = ref.slice(0, hash);
    ref = ref.replace(/[,;:!?)\]'"]+$/, '');
    if (ref.endsWith('.') && !ref.endsWith('..')) ref = ref.slice(0, -1); // sentence-ending period
    if (!/^(\.{1,2}\/|~\/|\/[^/]|[A-Za-z0-9_-]|\.[A-Za-z0-9_])/.test(ref)) continue;
    if (!out.includes(ref)) out.push(ref);
  }
  return out;
}

/** The text with code blocks, code spans and HTML comments blanked out; line structure is kept. */
function proseOnly(markdown: string): string {
  const lines = markdown.replace(/<!--[\s\S]*?-->/g, (c) => c.replace(/[^\n]/g, ' ')).split(/\r?\n/);
  const kept: string[] = [];
  let fence: { ch: string; len: number } | null = null;
  let prevBlank = true;
  let prevCode = false;
  let inList = false;
  for (const line of lines) {
    const blank = line.trim() === '';
    if (fence) {
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
      if (close && close[1][0] === fence.ch && close[1].length >= fence.len) fence = null;
      kept.push('');
      continue;
    }
    const open = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (open) {
      fence = { ch: open[1][0], len: open[1].length };
      kept.push('');
      prevBlank = false;
      continue;
    }
    const indented = /^( {4}|\t)/.test(line);
    const listItem = /^\s*([-*+]|\d+[.)])\s/.test(line);
    // Indented code starts after a blank line, but indented lines inside a list are list content.
    const code: boolean = !blank && indented && !listItem && !inList && (prevBlank || prevCode);
    if (!blank && !indented) inList = listItem;
    if (listItem) inList = true;
    kept.push(code ? '' : line);
    prevCode = code || (prevCode && blank);
    prevBlank = blank;
  }
  // Code spans may wrap lines but never cross a blank line, so strip them paragraph by paragraph.
  return kept
    .join('\n')
    .split(/\n\s*\n/)
    .map((para) => para.replace(/(?<!`)(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)/g, (s) => s.replace(/[^\n]/g, ' ')))
    .join('\n\n');
}

const SCOPE_LABELS: Record<InstructionScope, string> = {
  user: "the user's own instructions for all projects",
  project: "the project's shared instructions",
  local: "the user's private instructions for this project",
};

/** The system prompt block: one tagged section per non-empty file, in load order. */
export function renderInstructions(files: InstructionFile[]): string {
  const parts = files
    .filter((f) => f.content.trim() !== '')
    .map((f) => {
      const from = f.importedFrom ? ` imported-by="${f.importedFrom}"` : '';
      return `<instructions path="${f.path}" scope="${f.scope}"${from}>\n${f.content.trim()}\n</instructions>`;
    });
  if (parts.length === 0) return '';
  const scopes = [
    ...new Set(files.filter((f) => f.content.trim() !== '').map((f) => `${f.scope}: ${SCOPE_LABELS[f.scope]}`)),
  ];
  return [
    'Instruction files from the user and the project follow. Follow them; they override your default behaviour. ' +
      'Later files are more specific than earlier ones. Scopes: ' +
      scopes.join('; ') +
      '.',
    ...parts,
  ].join('\n\n');
}
