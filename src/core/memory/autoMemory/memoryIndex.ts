// MEMORY.md, the index of a project's auto memory: one line per topic file, `- [Title](file.md) — hook`.
// It goes into every system prompt, so it is capped (200 lines / 25 KB); what does not fit is cut with
// a warning in the prompt that names it, never silently, and a second warning near the cap tells the
// agent to consolidate before anything is cut. Loading reports every problem it meets (missing files,
// broken front matter, binary files, files no line points to) once each, and changes nothing on disk.
// A line with a NUL byte is left out on its own (the rest of the index still loads), and every file is
// opened through memoryFiles.ts, so an index or topic file that links out of the folder is not read.
import { promises as fsp, type Dirent, type Stats } from 'node:fs';
import path from 'node:path';
import { MEMORY_INDEX_LINE_CHARS, MEMORY_INDEX_MAX_BYTES, MEMORY_INDEX_MAX_LINES } from '../../thresholds';
import { estimateTokensFast } from '../../tokens/tokenizer';
import { isErrno } from '../../fs/errno';
import { looksBinary } from '../../fs/fileText';
import { readMemoryFile } from './memoryFiles';
import { MEMORY_INDEX_FILE, MemoryPathError, TEAM_DIR_NAME, memoryNameProblem, normaliseName } from './memoryPaths';
import { parseTopicFile, type MemoryType } from './topicFile';

/** At this share of either cap, the prompt asks the writer to consolidate (before anything is cut). */
export const MEMORY_INDEX_WARN_RATIO = 0.9;
/** How many cut entries the visible warning names; the rest are counted. */
const CUT_NAMED_MAX = 10;

export interface IndexLine {
  title: string;
  /** As written in the link (URL-decoded). */
  file: string;
  hook: string;
  /**
   * The link exactly as written, when URL-decoding changed it: a file may really be named `a%41b.md`
   * (people and models write names raw), so readers try both.
   */
  written?: string;
}

/** The index line links to topic file `name` (normalised), decoded or as written. */
export function linksTo(entry: IndexLine, name: string): boolean {
  return normaliseName(entry.file) === name || (entry.written !== undefined && normaliseName(entry.written) === name);
}

export interface IndexEntry extends IndexLine {
  /** 1-based line number in MEMORY.md. */
  line: number;
  /** From the topic file's front matter; null when missing or unknown. */
  type: MemoryType | null;
  /** Tokens of the topic file; null when it cannot be read. */
  tokens: number | null;
  /** Inside the system prompt's cap. */
  loaded: boolean;
  /** The link points to no readable file (or outside the folder). */
  missing: boolean;
  name?: string;
  description?: string;
}

export interface TopicSummary {
  /** Relative to the memory folder, forward slashes. */
  file: string;
  name?: string;
  description?: string;
  type: MemoryType | null;
  tokens: number;
  mtimeMs: number;
  size: number;
}

export interface MemoryIndex {
  dir: string;
  /** MEMORY.md exists. */
  exists: boolean;
  /** What the system prompt gets: the kept lines, then the visible warnings ('' for an empty index). */
  text: string;
  entries: IndexEntry[];
  /** Topic files no index line points to. */
  unindexed: string[];
  /** Every topic file that could be read, by relative name. */
  topics: TopicSummary[];
  warnings: string[];
  /** Lines and bytes of MEMORY.md, and how many of its lines the prompt got. */
  totalLines: number;
  totalBytes: number;
  loadedLines: number;
}

export interface LoadIndexOptions {
  /** Default: a fast estimate (the exact tokenizer costs ~1 s to load). */
  countTokens?: (text: string) => number;
  maxLines?: number;
  maxBytes?: number;
  /** How warnings name the index file, e.g. `team/MEMORY.md` for the team folder. Default MEMORY.md. */
  label?: string;
}

const ENTRY =
  /^\s*(?:[-*+]|\d+[.)])\s+(?:\*\*|__)?\[((?:\\.|[^\]\\])*)\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+"[^"]*")?\s*\)(?:\*\*|__)?\s*(.*)$/;

/** Parses one index line; undefined for headings, prose, blank lines and links to web pages. */
export function parseIndexLine(line: string): IndexLine | undefined {
  const m = ENTRY.exec(line.replace(/\r$/, ''));
  if (!m) return undefined;
  const written = m[2].startsWith('<') ? m[2].slice(1, -1) : m[2];
  if (/^[a-z][a-z0-9+.-]*:/i.test(written) && !/^[A-Za-z]:[\\/]/.test(written)) return undefined; // http:, mailto:, ...
  let file = written;
  try {
    file = decodeURIComponent(written);
  } catch {
    // a stray % is part of the name
  }
  const title = m[1].replace(/\\(.)/g, '$1').trim();
  const hook = m[3]
    .trim()
    .replace(/^(?:—|–|--?|:)\s*/, '')
    .trim();
  return file === written ? { title, file, hook } : { title, file, hook, written };
}

/** `- [Title](file.md) — hook`, shortened to the line budget by cutting the hook. */
export function formatIndexLine(entry: IndexLine): string {
  const title = oneLine(entry.title).replace(/([\\[\]])/g, '\\$1');
  const file = /[\s()<>]/.test(entry.file) ? `<${entry.file}>` : entry.file;
  const head = `- [${title}](${file})`;
  let hook = oneLine(entry.hook);
  if (!hook) return head;
  const room = MEMORY_INDEX_LINE_CHARS - head.length - 3;
  if (hook.length > room) hook = room > 1 ? `${hook.slice(0, room - 1).trimEnd()}…` : '';
  return hook ? `${head} — ${hook}` : head;
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** Reads the memory folder for the system prompt and the inspector. Never writes. */
export async function loadMemoryIndex(dir: string, opts: LoadIndexOptions = {}): Promise<MemoryIndex> {
  const count = opts.countTokens ?? estimateTokensFast;
  const maxLines = opts.maxLines ?? MEMORY_INDEX_MAX_LINES;
  const maxBytes = opts.maxBytes ?? MEMORY_INDEX_MAX_BYTES;
  const label = opts.label ?? MEMORY_INDEX_FILE;
  const warnings = new WarningList();

  const scan = await scanTopics(dir, count, warnings);
  let raw: Buffer | undefined;
  try {
    raw = (await readMemoryFile(dir, path.join(dir, MEMORY_INDEX_FILE))).data;
  } catch (e) {
    if (e instanceof MemoryPathError)
      warnings.add(`${label} is a symbolic link that leads outside the memory folder; it was not loaded`);
    else if (!isErrno(e, 'ENOENT')) warnings.add(`${label} could not be read: ${(e as Error).message}`);
  }
  const text = raw ? raw.toString('utf8').replace(/^\ufeff/, '') : '';
  const allLines = text === '' ? [] : text.replace(/\r?\n$/, '').split(/\r?\n/);
  // One NUL byte (a bad paste, a crashed editor) must not cost the whole index: that line is left
  // out. Only when most lines have one is the file not text at all (UTF-16, an image).
  const nulLines = allLines.flatMap((l, i) => (l.includes('\0') ? [i + 1] : []));
  if (raw && nulLines.length > 0 && nulLines.length * 2 > allLines.length) {
    warnings.add(`${label} is not a text file; it was not loaded`);
    raw = undefined;
  } else if (nulLines.length > 0) {
    const several = nulLines.length > 1;
    warnings.add(
      `${label} line${several ? 's' : ''} ${nulLines.join(', ')} contain${several ? '' : 's'} NUL bytes; ` +
        'left out, the rest was loaded',
    );
  }
  const kept = raw ? allLines.map((t, i) => ({ t, no: i + 1 })).filter((l) => !l.t.includes('\0')) : [];
  const lines = kept.map((l) => l.t);
  const totalBytes = raw ? raw.length : 0;

  // Cut by whole lines: the first line that would pass either cap and everything after it.
  let loadedLines = 0;
  let bytes = 0;
  for (const line of lines) {
    const size = Buffer.byteLength(line, 'utf8') + 1;
    if (loadedLines + 1 > maxLines || bytes + size > maxBytes) break;
    loadedLines++;
    bytes += size;
  }

  const entries: IndexEntry[] = [];
  const seen = new Map<string, number>();
  lines.forEach((line, i) => {
    const linked = parseIndexLine(line);
    if (!linked) return;
    const { written, ...parsed } = linked;
    // `a%41b.md` is that very file when it exists, else the decoded `aAb.md`.
    if (written !== undefined && !scan.known(normaliseName(parsed.file)) && scan.known(normaliseName(written)))
      parsed.file = written;
    const no = kept[i].no;
    const loaded = i < loadedLines;
    const name = normaliseName(parsed.file);
    const problem = memoryNameProblem(name);
    const topic = problem ? undefined : scan.byName.get(name);
    if (problem)
      warnings.add(
        `${label} line ${no} ("${parsed.title}") links to ${parsed.file}, ` +
          `which is not a topic file in this folder: ${problem}`,
      );
    else if (!topic && !scan.unreadable.has(name))
      warnings.add(`${label} line ${no} ("${parsed.title}") links to ${parsed.file}, which does not exist`);
    if (!problem) {
      const first = seen.get(name);
      if (first !== undefined) warnings.add(`${label} lines ${first} and ${no} both link to ${name}`);
      else seen.set(name, no);
    }
    entries.push({
      ...parsed,
      line: no,
      type: topic?.type ?? null,
      tokens: topic ? topic.tokens : null,
      loaded,
      missing: !topic,
      ...(topic?.name !== undefined ? { name: topic.name } : {}),
      ...(topic?.description !== undefined ? { description: topic.description } : {}),
    });
  });
  const unindexed = scan.topics.map((t) => t.file).filter((f) => !seen.has(f));

  const shown = lines.slice(0, loadedLines);
  const notes: string[] = [];
  if (loadedLines < lines.length) {
    const cut = entries.filter((e) => !e.loaded);
    const named = cut
      .slice(0, CUT_NAMED_MAX)
      .map((e) => e.file)
      .join(', ');
    const more = cut.length > CUT_NAMED_MAX ? ` and ${cut.length - CUT_NAMED_MAX} more` : '';
    const why = loadedLines >= maxLines ? `${maxLines}-line` : `${Math.round(maxBytes / 1000)} KB`;
    const warning =
      `${label} is over its ${why} limit (${allLines.length} lines, ${formatKb(totalBytes)}): ` +
      `lines ${kept[loadedLines].no}-${allLines.length} were not loaded` +
      (cut.length > 0 ? ` (${cut.length} entries: ${named}${more})` : '') +
      '. Merge or remove entries so the index fits.';
    warnings.add(warning);
    notes.push(`WARNING: ${warning}`);
  } else if (lines.length >= maxLines * MEMORY_INDEX_WARN_RATIO || totalBytes >= maxBytes * MEMORY_INDEX_WARN_RATIO) {
    const warning =
      `${label} is close to its limit (${lines.length}/${maxLines} lines, ` +
      `${formatKb(totalBytes)}/${formatKb(maxBytes)}); lines past the limit will not be loaded. ` +
      'Merge or remove entries before adding more.';
    warnings.add(warning);
    notes.push(`NOTE: ${warning}`);
  }
  const body = shown.join('\n').trim();
  return {
    dir,
    exists: raw !== undefined,
    text: [body, ...notes].filter(Boolean).join('\n\n'),
    entries,
    unindexed,
    topics: scan.topics,
    warnings: warnings.list,
    totalLines: allLines.length,
    totalBytes,
    loadedLines,
  };
}

function formatKb(bytes: number): string {
  return `${(bytes / 1000).toFixed(1)} KB`;
}

/** Keeps the order of first report and drops repeats, so each problem is reported once. */
class WarningList {
  readonly list: string[] = [];
  private readonly seen = new Set<string>();
  add(text: string): void {
    if (this.seen.has(text)) return;
    this.seen.add(text);
    this.list.push(text);
  }
}

interface TopicScan {
  topics: TopicSummary[];
  byName: Map<string, TopicSummary>;
  /** Files that exist but were skipped (binary, unreadable): an index line to them is not "missing". */
  unreadable: Set<string>;
  /** A file of that name is in the folder (read or not). */
  known(name: string): boolean;
}

/** Every Markdown file under the folder except the index, hidden folders (trash) and team memory. */
async function scanTopics(dir: string, count: (text: string) => number, warnings: WarningList): Promise<TopicScan> {
  const topics: TopicSummary[] = [];
  const unreadable = new Set<string>();
  const walk = async (rel: string, depth: number): Promise<void> => {
    let names: Dirent[];
    try {
      names = await fsp.readdir(path.join(dir, rel), { withFileTypes: true });
    } catch (e) {
      if (rel !== '' || (e as NodeJS.ErrnoException).code !== 'ENOENT')
        warnings.add(`${rel || dir} could not be listed: ${(e as Error).message}`);
      return;
    }
    names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const d of names) {
      const name = rel ? `${rel}/${d.name}` : d.name;
      if (d.name.startsWith('.')) continue;
      if (d.isDirectory()) {
        if (rel === '' && d.name === TEAM_DIR_NAME) continue;
        // Deep trees are not memory an agent wrote; stop before a symlink loop can matter.
        if (depth < 4) await walk(name, depth + 1);
        continue;
      }
      if (name === MEMORY_INDEX_FILE) continue;
      await readTopic(dir, name, count, warnings, topics, unreadable);
    }
  };
  await walk('', 0);
  const byName = new Map(topics.map((t) => [t.file, t]));
  return { topics, byName, unreadable, known: (name) => byName.has(name) || unreadable.has(name) };
}

async function readTopic(
  dir: string,
  name: string,
  count: (text: string) => number,
  warnings: WarningList,
  topics: TopicSummary[],
  unreadable: Set<string>,
): Promise<void> {
  const abs = path.join(dir, name);
  let buf: Buffer;
  let st: Stats;
  try {
    ({ data: buf, stats: st } = await readMemoryFile(dir, abs));
  } catch (e) {
    if (isErrno(e, 'ENOTFILE')) return; // a linked folder, a FIFO: not a topic file
    // A link out of the folder counts as no file: an index line to it is reported missing.
    if (e instanceof MemoryPathError)
      warnings.add(`${name} is a symbolic link that leads outside the memory folder; skipped`);
    else {
      unreadable.add(name);
      warnings.add(`${name} could not be read: ${(e as Error).message}`);
    }
    return;
  }
  const isMarkdown = name.toLowerCase().endsWith('.md');
  if (looksBinary(buf)) {
    unreadable.add(name);
    warnings.add(`${name} is a binary file; skipped`);
    return;
  }
  if (!isMarkdown) {
    warnings.add(`${name} is not a Markdown file; ignored`);
    return;
  }
  const parsed = parseTopicFile(buf);
  if (parsed.binary) return;
  for (const w of parsed.warnings) warnings.add(`${name}: ${w}`);
  topics.push({
    file: name,
    ...(parsed.name !== undefined ? { name: parsed.name } : {}),
    ...(parsed.description !== undefined ? { description: parsed.description } : {}),
    type: parsed.type,
    tokens: count(buf.toString('utf8')),
    mtimeMs: st.mtimeMs,
    size: st.size,
  });
}
