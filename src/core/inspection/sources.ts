// What the inspector can be pointed at besides the live session: another session or project under a
// data root, Engram's own (`~/.engram`) or Claude Code's (`$CLAUDE_CONFIG_DIR`, else `~/.claude`), which
// share one layout (DESIGN 3). Plain Node, read-only.
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { listSessions, type SessionSummary } from '../conversation/transcriptReader';
import { MEMORY_DIR_NAME } from '../memory/autoMemory/memoryPaths';

export function claudeConfigDir(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string {
  const dir = env.CLAUDE_CONFIG_DIR?.trim();
  if (dir) return dir.startsWith('~') ? path.join(home, dir.slice(1)) : path.resolve(dir);
  return path.join(home, '.claude');
}

export interface ProjectListing {
  key: string;
  dir: string;
  sessions: number;
  hasMemory: boolean;
  /** Newest change among its sessions and its memory index, ms. */
  modified: number;
}

/** Projects under `<root>/projects/`, most recently changed first. */
export async function listProjects(root: string): Promise<ProjectListing[]> {
  let names: string[];
  try {
    names = (await fsp.readdir(path.join(root, 'projects'), { withFileTypes: true }))
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
  } catch {
    return [];
  }
  const out = await Promise.all(
    names.map(async (key): Promise<ProjectListing> => {
      const dir = path.join(root, 'projects', key);
      let sessions = 0;
      let modified = 0;
      try {
        for (const d of await fsp.readdir(dir, { withFileTypes: true })) {
          if (!d.isFile() || !d.name.endsWith('.jsonl')) continue;
          sessions++;
          modified = Math.max(modified, await mtime(path.join(dir, d.name)));
        }
      } catch {
        // unreadable: listed with what is known
      }
      const indexTime = await mtime(path.join(dir, MEMORY_DIR_NAME, 'MEMORY.md'));
      return {
        key,
        dir,
        sessions,
        hasMemory: indexTime > 0 || (await mtime(path.join(dir, MEMORY_DIR_NAME))) > 0,
        modified: Math.max(modified, indexTime),
      };
    }),
  );
  return out.sort((a, b) => b.modified - a.modified);
}

export function sessionsOf(projectDir: string): Promise<SessionSummary[]> {
  return listSessions(projectDir);
}

/** A session id as a file name: no separators or dots, so it cannot leave the project folder. */
export function isSessionId(id: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/.test(id);
}

export function sessionPaths(
  projectDir: string,
  sessionId: string,
): { transcript: string; summary: string; state: string } {
  if (!isSessionId(sessionId)) throw new Error(`Not a session id: ${JSON.stringify(sessionId.slice(0, 80))}`);
  const notes = path.join(projectDir, sessionId, 'session-memory');
  return {
    transcript: path.join(projectDir, `${sessionId}.jsonl`),
    summary: path.join(notes, 'summary.md'),
    state: path.join(notes, 'state.json'),
  };
}

/** 1-based line of the transcript line with this uuid (or message id), for opening it at that message. */
export async function lineOfMessage(transcript: string, id: string): Promise<number | undefined> {
  const text = await fsp.readFile(transcript, 'utf8');
  const needles = [`"uuid":"${id}"`, `"id":"${id}"`];
  let line = 1;
  let start = 0;
  for (;;) {
    const end = text.indexOf('\n', start);
    const slice = end === -1 ? text.slice(start) : text.slice(start, end);
    if (needles.some((n) => slice.includes(n))) return line;
    if (end === -1) return undefined;
    start = end + 1;
    line++;
  }
}

async function mtime(p: string): Promise<number> {
  try {
    return (await fsp.stat(p)).mtimeMs;
  } catch {
    return 0;
  }
}
