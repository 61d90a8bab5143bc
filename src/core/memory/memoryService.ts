// A project's memory as other agents read it (`engram mcp`, VS Code's language model tools): search with
// the very recall a chat turn uses (local ranking, its relevance bar, no model call), the index entries,
// one memory file, and a session's notes. A memory found or read counts as a use, as in the chat. Every
// read stays inside its folder: names go through the same checks as the memory writer's (no `..`, no
// absolute paths, no hidden files) and files are opened through memoryFiles.ts / confinedFile.ts, so a
// symlink out of the folder is refused. Writing is memoryRemember.ts.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { projectDir } from '../conversation/projectKey';
import { isErrno } from '../fs/errno';
import { readFileWithin } from '../fs/confinedFile';
import { RECALL_MAX_FILES } from '../thresholds';
import { readMemoryText } from './autoMemory/memoryFiles';
import { loadMemoryIndex } from './autoMemory/memoryIndex';
import {
  autoMemoryDir,
  isIndexName,
  memoryHome,
  memoryNameProblem,
  MemoryPathError,
  resolveMemoryFile,
  TEAM_DIR_NAME,
  teamMemoryDir,
} from './autoMemory/memoryPaths';
import { recallForPrompt } from './autoMemory/recall';
import { RECALL_FILE_MAX_CHARS } from './autoMemory/recallIndex';
import { parseTopicFile, type MemoryType } from './autoMemory/topicFile';
import { recordUse, type UseKind } from './autoMemory/usageCounts';
import { sessionNotesPaths } from './sessionNotes/paths';

/** One project's memory as a client sees it: where it lives and which folders the chat's recall reads. */
export interface MemoryScope {
  dataDir: string;
  /** The project folder (keys the transcripts and session notes). */
  cwd: string;
  /** The private memory folder (keyed by the git root). */
  memoryDir: string;
  /** Team memory is on: its folder (`<memoryDir>/team`) is searched, listed and read too. */
  team: boolean;
  /** engram.memory.recall.maxFiles: the most files one search returns, as a turn attaches. */
  maxFiles: number;
}

/** A refusal a client can act on (bad name, missing file, a secret): its message is for the client. */
export class MemoryRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MemoryRequestError';
  }
}

/** The scope of the project at `cwd` under `dataDir`, its memory folder found as a session finds it. */
export async function openMemoryScope(
  dataDir: string,
  cwd: string,
  opts: { team?: boolean; maxFiles?: number } = {},
): Promise<MemoryScope> {
  const resolved = path.resolve(cwd);
  return {
    dataDir,
    cwd: resolved,
    memoryDir: await autoMemoryDir(dataDir, resolved),
    team: opts.team === true,
    maxFiles: Math.min(opts.maxFiles ?? RECALL_MAX_FILES, RECALL_MAX_FILES),
  };
}

/** One memory a search found: what it is, its text, and why recall chose it. */
export interface MemoryMatch {
  /** Relative to the memory folder (`team/<file>` for team memory). */
  file: string;
  title: string;
  type: MemoryType | null;
  team: boolean;
  description: string;
  /** The topic file's body (front matter left out), cut at RECALL_FILE_MAX_CHARS with a note. */
  text: string;
  /** Recall's score (BM25 over the fields, see recallRank.ts). */
  score: number;
  /** The question's words it matched, as typed (a related word's phrase as it stands). */
  matchedWords: string[];
  /** The same in a sentence. */
  why: string;
}

/**
 * The memories the chat's recall would attach to `query` as the first message of a conversation:
 * the same index, ranking, relevance bar and dismissed-word records, no model call. At most `limit`
 * (default and cap: the scope's maxFiles). Often none: most questions need no memory.
 */
export async function searchMemory(scope: MemoryScope, query: string, limit?: number): Promise<MemoryMatch[]> {
  const maxFiles = Math.min(limit ?? scope.maxFiles, scope.maxFiles);
  const result = await recallForPrompt(scope.memoryDir, query, [], { maxFiles, team: scope.team });
  const out: MemoryMatch[] = [];
  for (const f of result.files) {
    const topic = await readTopic(scope, f.file).catch(() => undefined);
    if (!topic) continue; // changed or gone since recall read it
    const words = f.words.map((w) => `"${w}"`).join(', ');
    out.push({
      file: f.file,
      title: f.title,
      type: topic.type,
      team: topic.team,
      description: topic.description,
      text: topic.body,
      score: Math.round(f.score * 100) / 100,
      matchedWords: f.words,
      why:
        `Matched ${f.words.length === 1 ? 'the word' : 'the words'} ${words} of the question ` +
        `(recall score ${f.score.toFixed(2)}, above the relevance bar a chat turn uses)`,
    });
  }
  await countUses(
    scope,
    out.map((m) => m.file),
    'recall',
  );
  return out;
}

/**
 * Counts a use of each file in its folder's use counts (usageCounts.ts), as the chat counts a recall or
 * a Read: a memory other agents rely on is not among the "least used" the inspector offers to prune.
 */
async function countUses(scope: MemoryScope, names: readonly string[], kind: UseKind): Promise<void> {
  const byDir = new Map<string, string[]>();
  for (const name of names) {
    if (isIndexName(name)) continue;
    const home = memoryHome(scope.memoryDir, name);
    byDir.set(home.dir, [...(byDir.get(home.dir) ?? []), home.file]);
  }
  for (const [dir, files] of byDir) await recordUse(dir, files, kind);
}

/** The matches as a model reads them: each memory's title, file, type, why it matched, and its text. */
export function describeMatches(query: string, matches: readonly MemoryMatch[]): string {
  if (matches.length === 0)
    return `No memory bears clearly on "${query}". Listing the memories shows every memory's title.`;
  return matches.map((m) => `## ${m.title} (${m.file}, ${m.type ?? 'no type'})\n${m.why}.\n\n${m.text}`).join('\n\n');
}

/** One line of an index: a topic file with its title and hook. */
export interface MemoryListEntry {
  file: string;
  title: string;
  hook: string;
  type: MemoryType | null;
  team: boolean;
  /** The line points at no readable file. */
  missing: boolean;
}

/** The index entries of the private folder, then the team folder's (when team memory is on). */
export async function listMemoryEntries(scope: MemoryScope): Promise<MemoryListEntry[]> {
  const folders: Array<{ dir: string; prefix: string }> = [{ dir: scope.memoryDir, prefix: '' }];
  if (scope.team) {
    try {
      folders.push({ dir: teamMemoryDir(scope.memoryDir), prefix: `${TEAM_DIR_NAME}/` });
    } catch {
      // a team folder that links out of the memory folder is not read
    }
  }
  const out: MemoryListEntry[] = [];
  for (const { dir, prefix } of folders) {
    const index = await loadMemoryIndex(dir);
    for (const e of index.entries) {
      out.push({
        file: `${prefix}${e.file}`,
        title: e.title,
        hook: e.hook,
        type: e.type,
        team: prefix !== '',
        missing: e.missing,
      });
    }
  }
  return out;
}

/** The topic files of every folder the scope reads (relative names), for listing them as resources. */
export async function memoryFileNames(scope: MemoryScope): Promise<string[]> {
  const names = (await loadMemoryIndex(scope.memoryDir)).topics.map((t) => t.file);
  if (scope.team) {
    try {
      const team = await loadMemoryIndex(teamMemoryDir(scope.memoryDir));
      names.push(...team.topics.map((t) => `${TEAM_DIR_NAME}/${t.file}`));
    } catch {
      // a team folder that links out of the memory folder is not read
    }
  }
  return names;
}

/**
 * The text of memory file `file` (relative to the memory folder; `MEMORY.md` and `team/MEMORY.md` are
 * the indexes). Refused with a MemoryRequestError: `..`, absolute paths, hidden files, links out of the
 * folder, the team folder while team memory is off, a missing file.
 */
export async function readMemoryEntry(scope: MemoryScope, file: string): Promise<string> {
  const text = await readConfined(scope, file);
  await countUses(scope, [file], 'read');
  return text;
}

async function readConfined(scope: MemoryScope, file: string): Promise<string> {
  const { home, abs } = locate(scope, file);
  try {
    return await readMemoryText(home.dir, abs);
  } catch (e) {
    if (isErrno(e, 'ENOENT', 'ENOTDIR', 'EISDIR'))
      throw new MemoryRequestError(`No memory file ${file}: list the memories to see which files there are.`);
    if (e instanceof MemoryPathError) throw new MemoryRequestError(e.message);
    throw e;
  }
}

interface Topic {
  type: MemoryType | null;
  team: boolean;
  description: string;
  body: string;
}

async function readTopic(scope: MemoryScope, file: string): Promise<Topic> {
  const parsed = parseTopicFile(await readConfined(scope, file));
  if (parsed.binary) throw new MemoryRequestError(`${file} is not text.`);
  let body = parsed.body.trim();
  if (body.length > RECALL_FILE_MAX_CHARS)
    body = `${body.slice(0, RECALL_FILE_MAX_CHARS)}\n[... cut at ${RECALL_FILE_MAX_CHARS} characters; read the file for the rest]`;
  return {
    type: parsed.type,
    team: memoryHome(scope.memoryDir, file).team,
    description: parsed.description ?? '',
    body,
  };
}

function locate(scope: MemoryScope, file: string): { home: ReturnType<typeof memoryHome>; abs: string } {
  if (typeof file !== 'string' || file.trim() === '')
    throw new MemoryRequestError('No file named: give a memory file, e.g. MEMORY.md.');
  // The raw name first: normalising would turn `/etc/x.md` into `etc/x.md`, a name that only looks safe.
  const problem = memoryNameProblem(file, { allowIndex: true });
  if (problem) throw new MemoryRequestError(`Refused memory file ${JSON.stringify(file)}: ${problem}.`);
  const home = memoryHome(scope.memoryDir, file);
  if (home.team && !scope.team)
    throw new MemoryRequestError(`${file} is team memory, and team memory is off for this project.`);
  try {
    return { home, abs: resolveMemoryFile(home.dir, home.file, { allowIndex: true }) };
  } catch (e) {
    if (e instanceof MemoryPathError) throw new MemoryRequestError(e.message);
    throw e;
  }
}

/** A session's notes (`<project>/<session>/session-memory/summary.md`), as its updater last wrote them. */
export interface SessionNotesRead {
  sessionId: string;
  path: string;
  text: string;
  /** ISO time of the notes file's last change. */
  updatedAt: string;
}

/**
 * The notes of session `sessionId` of the project, or, when none is named, of its newest session that has
 * notes (by the transcript's last change: a session just started has none yet). The id must be one of the
 * project's sessions, so it can name no other file.
 */
export async function readSessionNotes(scope: MemoryScope, sessionId?: string): Promise<SessionNotesRead> {
  const sessions = await projectSessions(scope);
  if (sessions.length === 0) throw new MemoryRequestError(`The project ${scope.cwd} has no Engram sessions yet.`);
  if (sessionId !== undefined && !sessions.includes(sessionId)) {
    const shown = sessions.slice(0, 5).join(', ');
    throw new MemoryRequestError(
      `No session ${JSON.stringify(sessionId)} in ${scope.cwd}; its newest sessions: ${shown}${sessions.length > 5 ? ', ...' : ''}.`,
    );
  }
  for (const id of sessionId !== undefined ? [sessionId] : sessions) {
    const notes = await notesOf(scope, id);
    if (notes) return notes;
  }
  throw new MemoryRequestError(
    sessionId !== undefined
      ? `Session ${sessionId} has no notes yet: they are written once its conversation has grown past about 10,000 tokens.`
      : `No session of ${scope.cwd} has notes yet: they are written once a conversation has grown past about 10,000 tokens.`,
  );
}

/** The notes of one session, or undefined when it has none. */
async function notesOf(scope: MemoryScope, id: string): Promise<SessionNotesRead | undefined> {
  const folder = projectDir(scope.dataDir, scope.cwd);
  const notes = sessionNotesPaths(scope.dataDir, scope.cwd, id).summary;
  try {
    const { data, stats } = await readFileWithin(folder, notes);
    return { sessionId: id, path: notes, text: data.toString('utf8'), updatedAt: stats.mtime.toISOString() };
  } catch (e) {
    if (isErrno(e, 'ENOENT', 'ENOTDIR')) return undefined;
    throw e;
  }
}

/** The project's session ids, newest first (by the transcript's last change). */
async function projectSessions(scope: MemoryScope): Promise<string[]> {
  const folder = projectDir(scope.dataDir, scope.cwd);
  let names: string[];
  try {
    names = (await fsp.readdir(folder)).filter((n) => n.endsWith('.jsonl'));
  } catch (e) {
    if (isErrno(e, 'ENOENT', 'ENOTDIR')) return [];
    throw e;
  }
  const dated = await Promise.all(
    names.map(async (n) => ({
      id: n.slice(0, -'.jsonl'.length),
      at: await fsp.stat(path.join(folder, n)).then(
        (s) => s.mtimeMs,
        () => 0,
      ),
    })),
  );
  return dated.sort((a, b) => b.at - a.at || a.id.localeCompare(b.id)).map((d) => d.id);
}
