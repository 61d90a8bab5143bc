// What `engram inspect` shows of a data root: per project, the memory in the same model the Memory
// Inspector draws (buildMemoryView: instructions, index entries with what each costs and whether it is
// loaded, unindexed files, team memory, the trash), and the sessions (size, unreadable lines, notes,
// compactions). The root is Engram's data dir or Claude Code's config dir: the layout is the same
// (DESIGN 3). Read-only: nothing under the root is changed.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { findGitRoot, projectKey } from '../conversation/projectKey';
import { forEachTranscriptLine, transcriptProblems, type TranscriptProblem } from '../conversation/transcriptReader';
import { MEMORY_DIR_NAME, TEAM_DIR_NAME } from '../memory/autoMemory/memoryPaths';
import type { TokenCounter } from '../tokens/accounting';
import { countTokens } from '../tokens/tokenizer';
import type { MemoryView } from '../../protocol/messages';
import { buildMemoryView } from './memoryView';
import { buildReviewQueueView } from './pendingView';
import { isFile } from '../fs/fileKind';
import { isErrno } from '../fs/errno';
import { branchSkeleton, findBranches, reportBranches, type BranchReport } from '../conversation/branches';
import { CurrentLines } from '../conversation/conversationChain';

export interface InspectedCompaction {
  trigger: string | null;
  preTokens: number | null;
  timestamp: string | null;
}

export interface InspectedSession {
  id: string;
  lines: number;
  /** Lines skipped (not readable) and a torn last line. */
  corruptLines: number;
  /** Lines read without the parts the API would reject (malformed content blocks, nesting too deep). */
  repairedLines: number;
  /** Each skipped or repaired line with its reason, as `engram gauge` and `engram compact` report them. */
  problems: TranscriptProblem[];
  hasNotes: boolean;
  compactions: InspectedCompaction[];
  /** Where the conversation branches (two writers at once; only then): a resume reads one branch only. */
  branches?: BranchReport[];
  /** Nothing in it: a run that stopped before its first line (there is nothing to resume). */
  empty?: true;
  /** Why it could not be read at all (a folder where the transcript should be, no permission). */
  unreadable?: string;
}

export interface InspectedProject {
  key: string;
  /** The inspector's memory model, for the project's memory folder. */
  memory: MemoryView & { dir: string };
  sessions: InspectedSession[];
}

export interface Inspection {
  root: string;
  projects: InspectedProject[];
}

export interface InspectOptions {
  /**
   * Only this project (default: every folder under `projects/`): `name` as given (it may be a project
   * key) and the folder it names, whose key and whose git root's key (memory is keyed by it) count too.
   */
  project?: { name: string; folder: string };
  /** Default: the exact tokenizer. */
  countTokens?: TokenCounter;
}

export async function inspectRoot(root: string, opts: InspectOptions = {}): Promise<Inspection> {
  const wanted = opts.project ? await projectKeys(opts.project.name, opts.project.folder) : undefined;
  const count = opts.countTokens ?? countTokens;
  const projectsDir = path.join(root, 'projects');
  let keys: string[];
  try {
    const dirents = await fsp.readdir(projectsDir, { withFileTypes: true });
    keys = dirents.filter((d) => d.isDirectory()).map((d) => d.name);
  } catch {
    keys = [];
  }
  if (wanted) keys = keys.filter((k) => wanted.includes(k));
  keys.sort();
  const projects: InspectedProject[] = [];
  for (const key of keys) projects.push(await inspectProject(path.join(projectsDir, key), key, root, count));
  return { root, projects };
}

/** A file's name under the memory folder (team files under `team/`). */
export function memoryFileName(entry: Pick<InspectedProject['memory']['entries'][number], 'group' | 'file'>): string {
  return entry.group === 'team' ? path.posix.join(TEAM_DIR_NAME, entry.file) : entry.file;
}

async function projectKeys(name: string, folder: string): Promise<string[]> {
  const keys = new Set([name, projectKey(folder)]);
  const gitRoot = await findGitRoot(folder);
  if (gitRoot) keys.add(projectKey(gitRoot));
  return [...keys];
}

/** One project folder; `root` is the data root (its CLAUDE.md is the user's, as the inspector lists it). */
async function inspectProject(dir: string, key: string, root: string, count: TokenCounter): Promise<InspectedProject> {
  const memoryDir = path.join(dir, MEMORY_DIR_NAME);
  // As the inspector reads a project on disk: the project's own folder is not known from its key, so
  // only the user's instructions are listed.
  const memory = await buildMemoryView({
    dir: memoryDir,
    instructions: { cwd: undefined, configDir: root, trusted: true },
    countTokens: count,
  });
  // The review queue's items (the CLI has no review setting of its own: `on` is the default, off).
  const review = await buildReviewQueueView(memoryDir, false);
  return { key, memory: { ...memory, dir: memoryDir, review }, sessions: await inspectSessions(dir) };
}

async function inspectSessions(dir: string): Promise<InspectedSession[]> {
  let names: string[];
  try {
    // Not only files: a folder named like a transcript is listed as unreadable, not left out in silence.
    names = (await fsp.readdir(dir, { withFileTypes: true }))
      .filter((d) => d.name.endsWith('.jsonl'))
      .map((d) => d.name);
  } catch {
    return [];
  }
  names.sort();
  const out: InspectedSession[] = [];
  for (const name of names) {
    const session = await inspectSession(dir, name);
    if (session) out.push(session);
  }
  return out;
}

/** One transcript; undefined when it went away while listing. */
async function inspectSession(dir: string, name: string): Promise<InspectedSession | undefined> {
  const id = name.slice(0, -'.jsonl'.length);
  const file = path.join(dir, name);
  const none = { lines: 0, corruptLines: 0, repairedLines: 0, problems: [], compactions: [] };
  const hasNotes = await isFile(path.join(dir, id, 'session-memory', 'summary.md'));
  const st = await fsp.stat(file).catch((e: unknown) => e as Error);
  if (st instanceof Error) return isErrno(st, 'ENOENT') ? undefined : { id, ...none, hasNotes, unreadable: st.message };
  if (!st.isFile())
    return {
      id,
      ...none,
      hasNotes,
      unreadable: `${st.isDirectory() ? 'a folder' : 'a special file'}, not a transcript file`,
    };
  if (st.size === 0) return { id, ...none, hasNotes, empty: true };
  const compactions: InspectedCompaction[] = [];
  const current = new CurrentLines(false);
  let read;
  try {
    read = await forEachTranscriptLine(file, (line) => {
      current.add(branchSkeleton(line));
      if (line.type !== 'system' || (line as { subtype?: unknown }).subtype !== 'compact_boundary') return;
      const meta = (line as { compactMetadata?: { trigger?: unknown; preTokens?: unknown } }).compactMetadata;
      const timestamp = (line as { timestamp?: unknown }).timestamp;
      compactions.push({
        trigger: typeof meta?.trigger === 'string' ? meta.trigger : null,
        preTokens: typeof meta?.preTokens === 'number' ? meta.preTokens : null,
        timestamp: typeof timestamp === 'string' ? timestamp : null,
      });
    });
  } catch (e) {
    if (isErrno(e, 'ENOENT')) return undefined; // removed while listing
    return { id, ...none, hasNotes, unreadable: e instanceof Error ? e.message : String(e) };
  }
  const repairedLines = read.corrupt.filter((c) => c.repaired).length;
  const branches = await reportBranches(file, findBranches(current.lines));
  return {
    id,
    lines: read.lineCount,
    corruptLines: read.corrupt.length - repairedLines + (read.tornTail ? 1 : 0),
    repairedLines,
    problems: transcriptProblems(file, read),
    hasNotes,
    compactions,
    ...(branches.length > 0 ? { branches } : {}),
  };
}
