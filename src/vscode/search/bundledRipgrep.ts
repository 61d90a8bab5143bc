// Where VS Code keeps the ripgrep it ships, and which of the workspace's exclude settings a search honours
// (issue 35). Plain functions of their inputs (no `vscode` import), so a unit test can check them.
import path from 'node:path';

/**
 * The places the editor's own ripgrep may be under `vscode.env.appRoot`, newest layout first:
 * - VS Code 1.1xx and its server (code-server, the test host): `@vscode/ripgrep-universal`, one binary per
 *   platform under `bin/<platform>-<arch>/`; VS Code's own search takes its path from that package and swaps
 *   `node_modules.asar` for `node_modules.asar.unpacked` (seen in code-server 1.139's extensionHostProcess.js);
 * - older desktop builds: `@vscode/ripgrep/bin/rg`, in `node_modules` or `node_modules.asar.unpacked`
 *   (the paths Cline's getBinPath.ts and Sourcegraph Cody's rg.ts try), and before that `vscode-ripgrep`.
 * On Windows the binary is `rg.exe`.
 */
export function bundledRipgrepPaths(appRoot: string, platform: string, arch: string): string[] {
  const exe = platform === 'win32' ? 'rg.exe' : 'rg';
  const roots = ['node_modules', 'node_modules.asar.unpacked'].map((dir) => path.join(appRoot, dir));
  return [
    ...roots.map((r) => path.join(r, '@vscode', 'ripgrep-universal', 'bin', `${platform}-${arch}`, exe)),
    ...roots.map((r) => path.join(r, '@vscode', 'ripgrep', 'bin', exe)),
    ...roots.map((r) => path.join(r, 'vscode-ripgrep', 'bin', exe)),
  ];
}

/** `files.exclude` / `search.exclude` as VS Code stores them: glob -> true, false, or `{ when: ... }`. */
export type ExcludeSetting = Record<string, unknown> | undefined;

/**
 * The globs a search leaves out: the keys of `files.exclude` and `search.exclude` set to `true` (VS Code's
 * own search reads both), in gitignore form relative to the workspace folder. VS Code matches a pattern
 * without `**` against the path from the folder (`build` is the top-level build folder only), so such
 * patterns are anchored with a leading `/`; `**\/x` patterns stay as they are. A `{ "when": "$(basename).ts" }` entry hides a file
 * only beside a sibling, which a glob cannot say: it is skipped here (the file is searched) and counted
 * in `conditional`, so the host can say so.
 */
export function workspaceExcludes(...settings: ExcludeSetting[]): { globs: string[]; conditional: string[] } {
  // A later setting's value for the same pattern wins (`search.exclude: { "**/dist": false }` searches dist).
  const merged: Record<string, unknown> = Object.assign({}, ...settings);
  const globs: string[] = [];
  const conditional: string[] = [];
  for (const [pattern, value] of Object.entries(merged)) {
    const glob = pattern.trim().replace(/^\.\//, '');
    if (glob === '') continue;
    if (value === true) globs.push(glob.startsWith('**/') || glob.startsWith('/') ? glob : `/${glob}`);
    else if (value !== null && typeof value === 'object') conditional.push(pattern);
  }
  return { globs, conditional };
}
