// Checks a memory's references against the workspace as it is now (the listing and symbol index kept by
// workspaceFiles.ts and symbolIndex.ts): a path must be a listed file or folder, a symbol must appear in
// a source file, a script must be in some package.json and a make target in some Makefile. Lookups only:
// nothing here touches the file system, so a reference (`../../etc/passwd`, an absolute path, a link)
// can never make the check read anything. What cannot be told (outside the workspace, ignored by git,
// a `yarn x` that may be a binary) is "unchecked", with the reason, and never called stale.
import path from 'node:path';
import type { MemoryReference, StaleReference, UncheckedReference } from './healthTypes';
import { hasWord, type SymbolIndex, symbolWords } from './symbolIndex';
import { ALWAYS_SKIPPED, isIgnored, type WorkspaceFiles } from './workspaceFiles';

export interface ReferenceCheck {
  stale: StaleReference[];
  unchecked: UncheckedReference[];
}

/** Checks each reference; the stale ones come back with a reason a person can act on. */
export function checkReferences(
  refs: readonly MemoryReference[],
  ws: WorkspaceFiles,
  idx: SymbolIndex,
): ReferenceCheck {
  const out: ReferenceCheck = { stale: [], unchecked: [] };
  for (const r of refs) {
    const verdict = checkOne(r, ws, idx);
    if (verdict?.stale) out.stale.push({ ref: r.ref, kind: r.kind, reason: verdict.reason });
    else if (verdict) out.unchecked.push({ ref: r.ref, kind: r.kind, reason: verdict.reason });
  }
  return out;
}

type Verdict = { stale: boolean; reason: string } | undefined;

function checkOne(r: MemoryReference, ws: WorkspaceFiles, idx: SymbolIndex): Verdict {
  switch (r.kind) {
    case 'path':
      return checkPath(r.ref, ws);
    case 'symbol':
      return checkSymbol(r.ref, idx);
    case 'command':
      return checkCommand(r.ref, ws);
  }
}

/**
 * The path relative to the workspace (forward slashes), or why it is not checked. `..` is resolved
 * on the text only; a path that leaves the workspace is out of scope.
 */
export function workspacePath(ref: string, root: string): { rel: string } | { outside: string } {
  if (ref.startsWith('~')) return { outside: 'a path in the home folder, outside the workspace (not checked)' };
  if (path.posix.isAbsolute(ref) || path.win32.isAbsolute(ref)) {
    const rel = path.relative(root, ref);
    if (!path.isAbsolute(ref) || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel))
      return { outside: 'an absolute path outside the workspace (not checked)' };
    return { rel: rel.split(path.sep).join('/') };
  }
  const norm = path.posix.normalize(ref.replace(/\/+$/, ''));
  if (norm === '..' || norm.startsWith('../'))
    return { outside: 'a path that leads outside the workspace with ".." (not checked)' };
  return { rel: norm === '.' ? '' : norm };
}

function checkPath(ref: string, ws: WorkspaceFiles, runBy?: string): Verdict {
  const where = workspacePath(ref, ws.root);
  if ('outside' in where) return { stale: false, reason: where.outside };
  const rel = where.rel;
  if (rel === '' || pathExists(ws, rel)) return undefined;
  if (ALWAYS_SKIPPED.has(rel.split('/')[0]))
    return { stale: false, reason: 'inside .git or node_modules (not checked)' };
  if (isIgnored(ws, rel))
    return { stale: false, reason: 'ignored by .gitignore: build output or a local file (not checked)' };
  const elsewhere = [...(ws.byBase.get(rel.slice(rel.lastIndexOf('/') + 1)) ?? [])].sort().slice(0, 2);
  const moved = elsewhere.length > 0 ? `; a file or folder of that name is at ${elsewhere.join(', ')} (moved?)` : '';
  const what = runBy ? ` (run by \`${runBy}\`)` : '';
  return { stale: true, reason: `no file or folder ${rel} in the workspace${what}${moved}` };
}

/** Listed as written, or (a memory written in a sub-folder) as the end of a listed path. */
function pathExists(ws: WorkspaceFiles, rel: string): boolean {
  if (ws.files.has(rel) || ws.dirs.has(rel)) return true;
  const same = ws.byBase.get(rel.slice(rel.lastIndexOf('/') + 1));
  if (!same) return false;
  if (!rel.includes('/')) return true; // a bare file name: anywhere in the workspace
  for (const p of same) if (p.endsWith(`/${rel}`)) return true;
  return false;
}

function checkSymbol(ref: string, idx: SymbolIndex): Verdict {
  const missing = symbolWords(ref).filter((w) => !hasWord(idx, w));
  if (missing.length === 0) return undefined;
  const which = missing.length === 1 && missing[0] !== ref ? ` (\`${missing[0]}\` is not found)` : '';
  return {
    stale: true,
    reason: `\`${ref}\` appears in no source file of the workspace${which}: renamed or removed?`,
  };
}

function checkCommand(ref: string, ws: WorkspaceFiles): Verdict {
  const words = ref.split(' ');
  const tool = words[0];
  if (tool === 'npm' || tool === 'pnpm' || tool === 'yarn') {
    const viaRun = words[1] === 'run';
    const script = viaRun ? words[2] : words[1];
    if (ws.scripts.has(script)) return undefined;
    if (!viaRun && tool !== 'npm') return undefined; // `yarn tsc` may run a binary
    if (ws.manifests.packageJson === 0) return { stale: true, reason: 'no package.json in the workspace' };
    const where =
      ws.manifests.packageJson === 1 ? 'package.json' : `any of the ${ws.manifests.packageJson} package.json files`;
    return { stale: true, reason: `no script "${script}" in ${where}` };
  }
  if (tool === 'make') {
    if (ws.targets.has(words[1])) return undefined;
    if (ws.manifests.makefiles === 0) return { stale: true, reason: 'no Makefile in the workspace' };
    return { stale: true, reason: `no target "${words[1]}" in the Makefile` };
  }
  // An interpreter and its script: the script must exist.
  return checkPath(words.slice(1).join(' '), ws, ref);
}
