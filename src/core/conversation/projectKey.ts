// Where a project's transcripts live. The key and the layout are Claude Code's (DESIGN 3), so Engram's
// data dir and `~/.claude` can be read by the same code and each tool can read the other's sessions.
import { promises as fsp } from 'node:fs';
import path from 'node:path';

/** `/Users/me/code/demo` -> `-Users-me-code-demo`; every character outside [a-zA-Z0-9] becomes `-`. */
export function projectKey(absPath: string): string {
  return absPath.replace(/[^a-zA-Z0-9]/g, '-');
}

/**
 * The nearest directory at or above `dir` holding `.git` (a directory, or a file for worktrees and
 * submodules), or undefined outside a repository. Auto memory is keyed by it so that every folder of
 * one repository shares one memory.
 */
export async function findGitRoot(dir: string): Promise<string | undefined> {
  let current = path.resolve(dir);
  for (;;) {
    try {
      const st = await fsp.stat(path.join(current, '.git'));
      if (st.isDirectory() || st.isFile()) return current;
    } catch {
      // not here (or unreadable): keep walking up
    }
    const parent = path.dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

export function projectDir(dataDir: string, projectPath: string): string {
  return path.join(dataDir, 'projects', projectKey(projectPath));
}

export function sessionTranscriptPath(dataDir: string, projectPath: string, sessionId: string): string {
  return path.join(projectDir(dataDir, projectPath), `${sessionId}.jsonl`);
}

/** `<project>/<sessionId>`: the session's own folder beside its transcript (notes, cursors, sub-agents). */
export function sessionFolder(dataDir: string, projectPath: string, sessionId: string): string {
  return path.join(projectDir(dataDir, projectPath), sessionId);
}

/** Forked and sub-agent transcripts sit in a folder named after the parent session. */
export function subagentTranscriptPath(
  dataDir: string,
  projectPath: string,
  sessionId: string,
  agentId: string,
): string {
  return subagentTranscriptIn(sessionFolder(dataDir, projectPath, sessionId), agentId);
}

/** A sub-agent's transcript in the folder of its parent session (`sessionFolder`). */
export function subagentTranscriptIn(sessionDir: string, agentId: string): string {
  return path.join(sessionDir, 'subagents', `agent-${agentId}.jsonl`);
}

export function historyPath(dataDir: string): string {
  return path.join(dataDir, 'history.jsonl');
}
