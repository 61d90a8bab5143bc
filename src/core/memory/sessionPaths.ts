// Where one session's files are, worked out once as the session opens and handed to every part it wires
// (the transcript, the notes, auto memory, team memory), so no part derives them again from the data
// folder and the working folder. Two keys pick the folders, as in Claude Code (DESIGN 3): transcripts and
// notes sit under the key of the working folder; memory sits under the key of the git root, so every
// folder of one repository shares one memory. The layout is the one the older per-module helpers gave
// (projectKey.ts, memoryPaths.ts, sessionNotes/paths.ts), which they still give for callers outside a
// session: existing data is found where it was.
//
// It lives in the memory layer, the lowest that knows every folder's name, so memory, compaction, the
// inspector and the session can all take it.
import path from 'node:path';
import { findGitRoot, projectDir, sessionFolder, sessionTranscriptPath } from '../conversation/projectKey';
import { cursorFileFor } from './autoMemory/messageCursor';
import { MEMORY_INDEX_FILE, memoryDirOf, TEAM_DIR_NAME, TRASH_DIR_NAME } from './autoMemory/memoryPaths';
import { sessionNotesPaths, type SessionNotesPaths } from './sessionNotes/paths';

/** Every path of one session, absolute. */
export interface SessionPaths {
  /** Engram's data folder (also where a user's notes template and instructions are looked for). */
  readonly dataDir: string;
  /** The working folder, resolved: tools work here and it keys the transcripts. */
  readonly cwd: string;
  /** The git repository holding `cwd`, or undefined outside one: it keys the memory. */
  readonly gitRoot: string | undefined;
  readonly sessionId: string;
  /** `<dataDir>/projects/<key of cwd>`: the project's transcripts, one per session. */
  readonly projectDir: string;
  /** `<projectDir>/<sessionId>.jsonl`. */
  readonly transcript: string;
  /** `<projectDir>/<sessionId>`: the session's own folder (notes, the memory cursor, sub-agents). */
  readonly sessionDir: string;
  /** Where auto memory's extraction records how far it has read the transcript. */
  readonly memoryCursor: string;
  /** The session notes and their sidecar state, in `<sessionDir>/session-memory`. */
  readonly notes: SessionNotesPaths;
  /** `<dataDir>/projects/<key of git root or cwd>/memory`. */
  readonly memoryDir: string;
  /** `<memoryDir>/MEMORY.md`, the private index. */
  readonly memoryIndex: string;
  /**
   * `<memoryDir>/team`, where team memory lives when it is on. Whether it is on, and whether the folder
   * stays inside the memory folder, is checked where it is read (teamMemoryLink.ts, autoMemory/attach.ts).
   */
  readonly teamDir: string;
  /** `<memoryDir>/.trash`: pruned memories, one folder per prune. */
  readonly trashDir: string;
}

/** How the git root is found; tests count the calls (opening a session looks once). */
export type GitRootFinder = (cwd: string) => Promise<string | undefined>;

/** The paths of session `sessionId` in `cwd`: the one place they are derived. `sessionId` must be checked. */
export async function sessionPathsFor(
  where: { dataDir: string; cwd: string; sessionId: string },
  findRoot: GitRootFinder = findGitRoot,
): Promise<SessionPaths> {
  const { dataDir, sessionId } = where;
  const cwd = path.resolve(where.cwd);
  const gitRoot = await findRoot(cwd);
  const transcript = sessionTranscriptPath(dataDir, cwd, sessionId);
  const memoryDir = memoryDirOf(dataDir, cwd, gitRoot);
  return {
    dataDir,
    cwd,
    gitRoot,
    sessionId,
    projectDir: projectDir(dataDir, cwd),
    transcript,
    sessionDir: sessionFolder(dataDir, cwd, sessionId),
    memoryCursor: cursorFileFor(transcript),
    notes: sessionNotesPaths(dataDir, cwd, sessionId),
    memoryDir,
    memoryIndex: path.join(memoryDir, MEMORY_INDEX_FILE),
    teamDir: path.join(memoryDir, TEAM_DIR_NAME),
    trashDir: path.join(memoryDir, TRASH_DIR_NAME),
  };
}
