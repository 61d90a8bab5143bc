// Node reports file-system failures as errors with a `code`; callers branch on a few of them (ENOENT
// above all) and rethrow the rest.
export function isErrno(err: unknown, ...codes: string[]): boolean {
  return typeof err === 'object' && err !== null && codes.includes((err as NodeJS.ErrnoException).code ?? '');
}
