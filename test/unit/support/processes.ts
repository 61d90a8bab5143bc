// Whether a process is still there, for tests that check a stopped command or search left none behind.

/** True while a process with `pid` exists (signal 0 only asks). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
