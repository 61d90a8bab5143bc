// Which ripgrep a host runs Grep and Glob on (issue 35), and the line that says so. A host lists where a
// binary may be, in its order of preference (a path the person set, VS Code's bundled copy, an `rg` on
// PATH), each with words for where it came from; the first one that exists and answers `--version` wins.
// When none does, the JavaScript engine runs and the reasons are kept, so the log, `/context` and the
// inspector can say why ("no ripgrep found: …") rather than quietly being slower.
import { execFile } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import path from 'node:path';

/** One place a ripgrep binary may be. */
export interface RipgrepCandidate {
  /** Absolute path of the binary. */
  path: string;
  /** Where it came from, in words: "VS Code's bundled copy", "rg on PATH", "--rg-path". */
  source: string;
}

/** The ripgrep a host found (`path` ran and said its version), or why there is none. */
export type RipgrepChoice =
  | { found: true; path: string; source: string; version: string }
  | { found: false; reasons: string[] };

/** How long `rg --version` may take: a binary that hangs is as good as none. */
const VERSION_TIMEOUT_MS = 5_000;

/**
 * The first candidate that is a file and runs (`--version` exits 0 and names ripgrep). A candidate set by
 * the person (`required`) that fails stops the search: their choice is not silently replaced by another
 * copy, and the reason names their setting. Places looked at in vain are said once per source.
 */
export async function pickRipgrep(
  candidates: Array<RipgrepCandidate & { required?: boolean }>,
): Promise<RipgrepChoice> {
  const reasons: string[] = [];
  const missing = new Map<string, string[]>();
  for (const c of candidates) {
    const problem = await whyNotRunnable(c.path);
    if (typeof problem !== 'string') return { found: true, path: c.path, source: c.source, version: problem.version };
    if (problem === MISSING && !c.required) missing.set(c.source, [...(missing.get(c.source) ?? []), c.path]);
    else reasons.push(`${c.source} ${c.path} ${problem}`);
    if (c.required) break;
  }
  for (const [source, paths] of missing) {
    const more = paths.length > 2 ? `, and ${paths.length - 2} more places` : '';
    reasons.push(`no ${source} (looked for ${paths.slice(0, 2).join(', ')}${more})`);
  }
  if (reasons.length === 0) reasons.push('none was configured, bundled or on PATH');
  return { found: false, reasons };
}

const MISSING = 'does not exist';

/** The version the binary reports, or why it cannot be used (a phrase after its path). */
async function whyNotRunnable(file: string): Promise<{ version: string } | string> {
  const stat = await fsp.stat(file).catch((e: NodeJS.ErrnoException) => e);
  if (stat instanceof Error)
    return stat.code === 'ENOENT' || stat.code === 'ENOTDIR' ? MISSING : `cannot be read (${stat.code})`;
  if (!stat.isFile()) return 'is not a file';
  return new Promise((resolve) => {
    execFile(
      file,
      ['--version'],
      { timeout: VERSION_TIMEOUT_MS, windowsHide: true, maxBuffer: 64 * 1024 },
      (error, stdout) => {
        // `ripgrep 15.0.0 (rev 3a612f88b8)` is the first line of every release's --version.
        const version = /^ripgrep (\S+)/.exec(stdout)?.[1];
        if (error) resolve(`did not run (${(error as NodeJS.ErrnoException).code ?? error.message})`);
        else if (!version) resolve('is not ripgrep (its --version does not say "ripgrep")');
        else resolve({ version });
      },
    );
  });
}

/**
 * `rg` (`rg.exe`, or with another PATHEXT extension on Windows) in each folder of a PATH value, in order:
 * candidates for pickRipgrep.
 */
export function ripgrepOnPath(pathValue: string | undefined, platform: NodeJS.Platform = process.platform): string[] {
  const names = platform === 'win32' ? ['rg.exe'] : ['rg'];
  const dirs = (pathValue ?? '').split(platform === 'win32' ? ';' : ':').filter((d) => d.trim() !== '');
  // A PATH often names one folder twice: each candidate is checked (and run) once.
  return [...new Set(dirs.flatMap((dir) => names.map((n) => path.join(dir, n))))];
}

/** The engine a search runs on, in words for the log, `/context` and the inspector. */
export function describeRipgrepChoice(choice: RipgrepChoice): string {
  return choice.found
    ? `ripgrep ${choice.version} (${choice.source} at ${choice.path})`
    : `the JavaScript engine (no ripgrep found: ${choice.reasons.join('; ')})`;
}
