// Where one session's notes live (DESIGN 3): next to the session's transcript, in Claude Code's layout, so
// the inspector can open Claude Code's notes with the same code. The sidecar state file is Engram's own.
import path from 'node:path';
import { projectDir } from '../../conversation/projectKey';

export interface SessionNotesPaths {
  /** `projects/<key>/<sessionId>/session-memory/` */
  dir: string;
  /** The notes themselves (Markdown, the template's shape). */
  summary: string;
  /** Engram's sidecar: trigger state and which message the notes cover (survives reloads). */
  state: string;
}

export function sessionNotesPaths(dataDir: string, projectPath: string, sessionId: string): SessionNotesPaths {
  const dir = path.join(projectDir(dataDir, projectPath), sessionId, 'session-memory');
  return { dir, summary: path.join(dir, 'summary.md'), state: path.join(dir, 'state.json') };
}

/** A user's own template replaces the default for every session (as in Claude Code). */
export function userTemplatePath(configDir: string): string {
  return path.join(configDir, 'session-memory', 'config', 'template.md');
}
