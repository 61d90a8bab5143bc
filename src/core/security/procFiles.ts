// The files under /proc that hand out another process's secrets: `environ` (the environment, where the
// engine's ANTHROPIC_API_KEY lives even though Bash children run without it), `cmdline` (arguments,
// where people pass tokens) and `mem` (the memory itself). No tool reads them (issue #13): paths are
// judged where they really lead (a workspace symlink to /proc/<pid> counts), and Bash commands that
// name them are refused. Other /proc files (cpuinfo, status) stay readable.
import path from 'node:path';
import { resolveReal } from '../fs/pathGuard';

/** File names under /proc/<pid>/ (and /proc/<pid>/task/<tid>/) that are never read. */
export const PROC_SECRET_FILES: readonly string[] = ['environ', 'cmdline', 'mem'];

export const PROC_SECRET_REASON =
  "Reading a process's environment, command line or memory (/proc/<pid>/environ, cmdline, mem) is not allowed: " +
  'they hold API keys and other secrets.';

const PROC_SECRET = /^\/proc\/(?:[^/]+\/)+(?:environ|cmdline|mem)$/;

/** `realAbs` (already resolved) is /proc or below it. */
export function isUnderProc(realAbs: string): boolean {
  return process.platform !== 'win32' && (realAbs === '/proc' || realAbs.startsWith('/proc/'));
}

/** The reason to refuse reading or writing `absPath`, judged where it really leads; null when it is fine. */
export function procSecretProblem(absPath: string): string | null {
  if (process.platform === 'win32') return null;
  const real = resolveReal(absPath) ?? path.resolve(absPath);
  return PROC_SECRET.test(real) || PROC_SECRET.test(path.resolve(absPath)) ? PROC_SECRET_REASON : null;
}

/**
 * For Bash commands the read-only classifier does not vouch for (the user allowed Bash): a command that
 * mentions /proc together with one of the secret files is refused. Shell text cannot be judged fully
 * (variables, scripts), so this catches the plain ways; the secret scan on every result is the backstop.
 */
export function commandNamesProcSecret(command: string): boolean {
  return /(^|[^\w-])proc\b/.test(command) && /(^|[^\w-])(environ|cmdline|mem)\b/.test(command);
}
