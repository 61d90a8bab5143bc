// The search index recall ranks with: one minisearch index per memory folder over every topic file's
// title and hook (from MEMORY.md), front matter name and description, and body. It runs before every
// turn, so it is kept between turns: each call lists the folder and stats the files (about a
// millisecond for 200), re-reads and re-parses only the files whose mtime, size or inode changed, and
// rebuilds the index only when something did. Files are opened through memoryFiles.ts, so a topic file
// that links out of the folder is never read; the listing follows memoryIndex.ts's rules (Markdown only,
// no hidden folders, no MEMORY.md, the team folder apart, at most five levels).
import fs, { type Dirent } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import MiniSearch from 'minisearch';
import { looksBinary } from '../../fs/fileText';
import { RECALL_MIN_CORPUS } from '../../thresholds';
import { readMemoryFile } from './memoryFiles';
import { parseIndexLine } from './memoryIndex';
import { MEMORY_INDEX_FILE, normaliseName, TEAM_DIR_NAME, teamMemoryDir } from './memoryPaths';
import { recallTerm, recallTokens } from './recallText';
import { parseTopicFile } from './topicFile';

/** What recall knows of one topic file. `id` is relative to the private folder (`team/<file>` for team files). */
export interface RecallDoc {
  id: string;
  title: string;
  hook: string;
  name: string;
  description: string;
  body: string;
  mtimeMs: number;
  /** Of the whole file as read (the attachment's hash). */
  hash: string;
  /** What an attachment of it says: the file's text, trimmed, cut at RECALL_FILE_MAX_CHARS with a note. */
  attachBody: string;
}

/** A topic file longer than this is attached cut, with a note; the agent can Read the rest. */
export const RECALL_FILE_MAX_CHARS = 8_000;

/** Field weights: what the index line and the front matter say is a summary; the body is detail. */
export const RECALL_FIELD_BOOST = { title: 3, hook: 3, name: 2, description: 2, body: 1 } as const;
const FIELDS = Object.keys(RECALL_FIELD_BOOST);
/** A body is indexed up to this many characters: enough for its substance, bounded for huge files. */
const BODY_INDEX_CHARS = 6_000;

export interface RecallIndex {
  search: MiniSearch<RecallDoc>;
  docs: Map<string, RecallDoc>;
  /** Every term the files hold: a related word (recallRank.ts) none of them has is not searched for. */
  terms: ReadonlySet<string>;
}

interface CachedFile {
  key: string;
  doc: Omit<RecallDoc, 'title' | 'hook'> | null;
}

interface FolderCache {
  files: Map<string, CachedFile>;
  indexKey: string;
  lines: Map<string, { title: string; hook: string }>;
  /** The last answer, given again while nothing on disk changed. */
  last?: { names: string[]; result: { key: string; docs: RecallDoc[] } };
}

interface IndexCache {
  key: string;
  index: RecallIndex;
}

const folders = new Map<string, FolderCache>();
const indexes = new Map<string, IndexCache>();

/** The index of the folder `dir` (and with `team` its team folder), brought up to date with the disk. */
export async function recallIndexFor(dir: string, team: boolean): Promise<RecallIndex> {
  const parts = [await folderDocs(dir, '')];
  if (team) {
    let teamDir: string | undefined;
    try {
      teamDir = teamMemoryDir(dir);
    } catch {
      teamDir = undefined; // a team folder that links out is not read
    }
    if (teamDir) parts.push(await folderDocs(teamDir, `${TEAM_DIR_NAME}/`));
  }
  const key = parts.map((p) => p.key).join('\n');
  const cacheKey = `${team ? 'team' : 'own'}\0${dir}`;
  const cached = indexes.get(cacheKey);
  if (cached?.key === key) return cached.index;
  const index = buildIndex(parts.flatMap((p) => p.docs));
  indexes.set(cacheKey, { key, index });
  return index;
}

function buildIndex(docs: RecallDoc[]): RecallIndex {
  const terms = new Set<string>();
  let adding = true;
  const search = new MiniSearch<RecallDoc>({
    fields: FIELDS,
    storeFields: [],
    tokenize: recallTokens,
    // While the files are added, their terms are noted; a search's terms are not.
    processTerm: (raw) => {
      const term = recallTerm(raw);
      if (adding && term !== null) terms.add(term);
      return term;
    },
  });
  search.addAll(docs);
  adding = false;
  // Rarity (BM25's idf) is measured against at least RECALL_MIN_CORPUS files: in a folder of three, a
  // word found in one would otherwise count for almost nothing, and a small memory could never clear
  // the bar. The fillers have no fields, so they change no average length and match nothing; added
  // last, they only raise the document count.
  for (let i = docs.length; i < RECALL_MIN_CORPUS; i++) search.add({ id: `\0filler${i}` } as RecallDoc);
  return { search, docs: new Map(docs.map((d) => [d.id, d])), terms };
}

async function folderDocs(dir: string, prefix: string): Promise<{ key: string; docs: RecallDoc[] }> {
  let cache = folders.get(dir);
  if (!cache) {
    cache = { files: new Map(), indexKey: '', lines: new Map() };
    folders.set(dir, cache);
  }
  // Listed and stat'ed synchronously: for a folder of 200 files that is well under a millisecond, where
  // as many promises through libuv's thread pool take several.
  const names = listTopicFiles(dir);
  const indexKey = statKey(path.join(dir, MEMORY_INDEX_FILE));
  const keys = names.map((n) => statKey(path.join(dir, n)));
  const last = cache.last;
  if (last && indexKey === cache.indexKey && sameFiles(last.names, names, keys, cache.files)) return last.result;
  if (indexKey !== cache.indexKey) {
    cache.lines = await readIndexLines(dir);
    cache.indexKey = indexKey;
  }
  const files = new Map<string, CachedFile>();
  await Promise.all(
    names.map(async (name, i) => {
      const known = cache.files.get(name);
      files.set(name, known && known.key === keys[i] ? known : { key: keys[i], doc: await readDoc(dir, name) });
    }),
  );
  cache.files = files;
  const docs: RecallDoc[] = [];
  for (const name of names) {
    const doc = files.get(name)?.doc;
    if (!doc) continue;
    const line = cache.lines.get(name);
    docs.push({ ...doc, id: prefix + doc.id, title: line?.title ?? '', hook: line?.hook ?? '' });
  }
  const result = { key: `${dir}\0${indexKey}\0${names.map((n, i) => `${n}:${keys[i]}`).join('\0')}`, docs };
  cache.last = { names, result };
  return result;
}

/** The same files as last time, each with the stat key it was read at. */
function sameFiles(
  before: readonly string[],
  names: readonly string[],
  keys: readonly string[],
  files: Map<string, CachedFile>,
): boolean {
  if (before.length !== names.length) return false;
  return names.every((n, i) => n === before[i] && files.get(n)?.key === keys[i]);
}

/** Changes when the file is written, replaced or swapped for a link (stat follows it: another inode). */
function statKey(abs: string): string {
  try {
    const st = fs.statSync(abs, { throwIfNoEntry: false });
    return st ? `${st.mtimeMs}:${st.size}:${st.ino}` : 'none';
  } catch {
    return 'none';
  }
}

/** Markdown files under `dir`, relative, forward slashes, sorted. */
function listTopicFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string, depth: number): void => {
    let entries: Dirent[];
    try {
      entries = fs.readdirSync(path.join(dir, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const d of entries) {
      const name = rel ? `${rel}/${d.name}` : d.name;
      if (d.name.startsWith('.')) continue;
      if (d.isDirectory()) {
        if (!(rel === '' && d.name === TEAM_DIR_NAME) && depth < 4) walk(name, depth + 1);
      } else if (name !== MEMORY_INDEX_FILE && d.name.toLowerCase().endsWith('.md')) {
        out.push(name);
      }
    }
  };
  walk('', 0);
  return out.sort();
}

async function readIndexLines(dir: string): Promise<Map<string, { title: string; hook: string }>> {
  const lines = new Map<string, { title: string; hook: string }>();
  let text: string;
  try {
    text = (await readMemoryFile(dir, path.join(dir, MEMORY_INDEX_FILE))).data.toString('utf8');
  } catch {
    return lines; // no index, or one that links out: the files are still ranked by what they say
  }
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.includes('\0') ? undefined : parseIndexLine(raw);
    if (!line) continue;
    const entry = { title: line.title, hook: line.hook };
    for (const name of [line.file, line.written]) {
      if (name !== undefined && !lines.has(normaliseName(name))) lines.set(normaliseName(name), entry);
    }
  }
  return lines;
}

async function readDoc(dir: string, name: string): Promise<CachedFile['doc']> {
  let data: Buffer;
  let mtimeMs: number;
  try {
    const read = await readMemoryFile(dir, path.join(dir, name));
    data = read.data;
    mtimeMs = read.stats.mtimeMs;
  } catch {
    return null; // gone, unreadable, or a link out of the folder
  }
  if (looksBinary(data)) return null;
  const text = data.toString('utf8');
  const parsed = parseTopicFile(data);
  if (parsed.binary) return null;
  return {
    id: name,
    name: (parsed.name ?? name.replace(/\.md$/i, '')).replace(/[-_./\\]+/g, ' '),
    description: parsed.description ?? '',
    body: parsed.body.slice(0, BODY_INDEX_CHARS),
    mtimeMs,
    hash: contentHash(text),
    attachBody: attachmentBody(text),
  };
}

function attachmentBody(content: string): string {
  const body = content.replace(/\r\n/g, '\n').trim();
  if (body.length <= RECALL_FILE_MAX_CHARS) return body;
  const cut = `[... cut at ${RECALL_FILE_MAX_CHARS} of ${body.length} characters; Read the file for the rest]`;
  return `${body.slice(0, RECALL_FILE_MAX_CHARS)}\n${cut}`;
}

/** The short content hash an attachment carries. */
export function contentHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}
