// Which repository a team memory belongs to: `owner/repo` from the `origin` remote (DESIGN 4), so every
// clone of one repository, whatever its path or protocol, shares one team memory on the server.
import { execFile } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { findGitRoot } from '../../conversation/projectKey';
import { isErrno } from '../../fs/errno';
import { RepoSlug } from './teamProtocol';

/**
 * `owner/repo` of a remote URL: scp-like ssh `git@host:o/r.git`, `ssh://git@host[:port]/o/r`,
 * `https://[user@]host/o/r(.git)`, `git://host/o/r`, with or without `.git` or a trailing slash. On
 * hosts with nested groups (`gitlab.com/group/sub/repo`) the last two segments are taken. Null when the
 * URL names no such pair (a local path, a bare host).
 */
export function parseRemoteUrl(url: string): string | null {
  const trimmed = url.trim();
  if (trimmed === '') return null;
  let pathPart: string;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\/([^/]*)(\/.*)?$/i.exec(trimmed);
  if (scheme) {
    if (scheme[1].toLowerCase() === 'file') return null;
    pathPart = scheme[3] ?? '';
  } else {
    // scp-like syntax: [user@]host:path, where host has no slash (else git reads it as a local path).
    const scp = /^(?:[^@/\s]+@)?([^:/\s]+):(?!\/\/)(.+)$/.exec(trimmed);
    if (!scp || /^[A-Za-z]$/.test(scp[1])) return null; // `C:\...` is a Windows path
    pathPart = scp[2];
  }
  const segments = pathPart.split('/').filter((s) => s !== '');
  if (segments.length < 2) return null;
  const owner = segments[segments.length - 2];
  const repo = segments[segments.length - 1].replace(/\.git$/i, '');
  const slug = `${owner}/${repo}`;
  return RepoSlug.safeParse(slug).success ? slug : null;
}

/** `owner/repo` of the `origin` remote of the git repository containing cwd, or null with no repo/remote. */
export async function repoSlugOf(cwd: string): Promise<string | null> {
  return repoSlugAtRoot(await findGitRoot(cwd));
}

/** The same, once the git root is known (a session finds it once as it opens); null outside a repository. */
export async function repoSlugAtRoot(root: string | undefined): Promise<string | null> {
  if (!root) return null;
  const url = await originUrl(root);
  return url === null ? null : parseRemoteUrl(url);
}

/** Asks git itself (it knows includes, worktrees and `insteadOf`); without git on PATH, reads .git/config. */
async function originUrl(root: string): Promise<string | null> {
  try {
    return await gitConfigOrigin(root);
  } catch (err) {
    if (!isErrno(err, 'ENOENT')) return null;
  }
  return originFromConfigFile(root);
}

function gitConfigOrigin(root: string): Promise<string | null> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      ['config', '--get', 'remote.origin.url'],
      { cwd: root, timeout: 10_000, windowsHide: true },
      (error, stdout) => {
        // Exit 1: the key is not set. Any other failure but a missing git says the same for our purpose.
        if (error && isErrno(error, 'ENOENT')) reject(error);
        else resolve(error ? null : stdout.trim() || null);
      },
    );
  });
}

async function originFromConfigFile(root: string): Promise<string | null> {
  let gitDir = path.join(root, '.git');
  try {
    const st = await fsp.stat(gitDir);
    if (st.isFile()) {
      // A worktree or submodule: `.git` says `gitdir: <path>`; a worktree's config is in its commondir.
      const m = /^gitdir:\s*(.+)$/m.exec(await fsp.readFile(gitDir, 'utf8'));
      if (!m) return null;
      gitDir = path.resolve(root, m[1].trim());
      const common = await fsp.readFile(path.join(gitDir, 'commondir'), 'utf8').catch(() => null);
      if (common !== null) gitDir = path.resolve(gitDir, common.trim());
    }
    return urlInConfig(await fsp.readFile(path.join(gitDir, 'config'), 'utf8'));
  } catch {
    return null;
  }
}

function urlInConfig(text: string): string | null {
  let inOrigin = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const section = /^\[\s*remote\s+"([^"]*)"\s*\]$/.exec(line);
    if (section) inOrigin = section[1] === 'origin';
    else if (line.startsWith('[')) inOrigin = false;
    else if (inOrigin) {
      const kv = /^url\s*=\s*(.+)$/.exec(line);
      if (kv) return kv[1].trim().replace(/^"(.*)"$/, '$1');
    }
  }
  return null;
}
