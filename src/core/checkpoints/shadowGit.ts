// Runs the real git CLI on a checkpoint shadow repository: a bare repository under the data folder whose
// work tree is the person's workspace (GIT_DIR + GIT_WORK_TREE). Never a shell, never the person's own
// configuration, hooks or .git: every call gets a clean environment and safe settings, so a workspace's
// fsmonitor, hooks, autocrlf or global excludes cannot change what a checkpoint holds or run anything.
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import os from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';

/** Settings every shadow-git call runs with (they win over any configuration file). */
const SAFE_CONFIG = [
  'core.fsmonitor=false',
  'core.hooksPath=/dev/null',
  'gc.auto=0',
  'maintenance.auto=false',
  'core.autocrlf=false',
  'core.safecrlf=false',
  'core.quotepath=false',
  'core.untrackedCache=true',
  'core.symlinks=true',
  'core.bare=false',
  'advice.addEmbeddedRepo=false',
  'commit.gpgSign=false',
].flatMap((c) => ['-c', c]);

/** A git command that failed: its arguments and what git said. */
export class GitError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly code: number | string | null,
    readonly stderr: string,
  ) {
    super(`git ${args.slice(0, 3).join(' ')} failed (${code}): ${stderr.trim().slice(0, 500) || 'no message'}`);
    this.name = 'GitError';
  }
}

export interface GitCall {
  /** GIT_INDEX_FILE: the session's own index. */
  index?: string;
  /** Extra `-c name=value` settings for this call. */
  config?: readonly string[];
  input?: string | Buffer;
  /** Exit codes that are not failures (`diff --quiet` and the like). */
  okCodes?: readonly number[];
  /** Without GIT_WORK_TREE (`init --bare`). */
  bare?: boolean;
  /** At a lower CPU priority (background packing must not slow the agent's turns). */
  background?: boolean;
}

/** The environment a shadow-git call sees: the process's, minus every GIT_* variable, plus our own. */
function gitEnv(repo: string, workspace: string | undefined, globalConfig: string, index?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_')) env[k] = v;
  Object.assign(env, {
    GIT_DIR: repo,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: globalConfig,
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 'Engram checkpoints',
    GIT_AUTHOR_EMAIL: 'checkpoints@engram.invalid',
    GIT_COMMITTER_NAME: 'Engram checkpoints',
    GIT_COMMITTER_EMAIL: 'checkpoints@engram.invalid',
  });
  if (workspace) env.GIT_WORK_TREE = workspace;
  if (index) env.GIT_INDEX_FILE = index;
  return env;
}

/** Git bound to one shadow repository and one workspace. */
export class ShadowGit {
  constructor(
    readonly repo: string,
    readonly workspace: string,
    /** An empty file (or /dev/null) standing in for the person's ~/.gitconfig. */
    private readonly globalConfig: string,
  ) {}

  private argv(args: readonly string[], call: GitCall): string[] {
    return [...SAFE_CONFIG, ...(call.config ?? []).flatMap((c) => ['-c', c]), ...args];
  }

  /**
   * Runs git and resolves with its stdout (bytes); rejects with GitError on a non-zero exit. A lock file
   * another process holds for a moment (`index.lock`, a ref's lock) is waited for, briefly.
   */
  async run(args: readonly string[], call: GitCall = {}): Promise<Buffer> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.runOnce(args, call);
      } catch (e) {
        if (
          !(e instanceof GitError) ||
          attempt >= 20 ||
          !/\.lock'?: File exists|Unable to create '.*\.lock'/.test(e.stderr)
        )
          throw e;
        await delay(50 + attempt * 25);
      }
    }
  }

  private runOnce(args: readonly string[], call: GitCall): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const child = execFile(
        'git',
        this.argv(args, call),
        {
          cwd: this.workspace,
          env: gitEnv(this.repo, call.bare ? undefined : this.workspace, this.globalConfig, call.index),
          encoding: 'buffer',
          maxBuffer: 1024 * 1024 * 1024,
          windowsHide: true,
        },
        (error, stdout, stderr) => {
          if (!error) return resolve(stdout);
          const code = (error as NodeJS.ErrnoException & { code?: number | string }).code ?? null;
          if (typeof code === 'number' && call.okCodes?.includes(code)) return resolve(stdout);
          reject(new GitError(args, code, stderr.toString('utf8') || error.message));
        },
      );
      if (call.input !== undefined) child.stdin?.end(call.input);
      if (call.background && child.pid) {
        try {
          os.setPriority(child.pid, 15);
        } catch {
          // not allowed here: it runs at normal priority
        }
      }
    });
  }

  /** stdout as text, without the trailing newline. */
  async text(args: readonly string[], call: GitCall = {}): Promise<string> {
    return (await this.run(args, call)).toString('utf8').replace(/\n$/, '');
  }

  /** NUL-separated output (`-z`) as a list. */
  async list(args: readonly string[], call: GitCall = {}): Promise<string[]> {
    return splitZ(await this.run(args, call));
  }

  /**
   * Counts the NUL-separated entries a command prints, stopping it once there are more than `limit`
   * (a huge workspace is not listed to the end). Resolves with the count (limit + 1 when stopped).
   */
  countZ(args: readonly string[], limit: number, call: GitCall = {}): Promise<number> {
    return new Promise((resolve, reject) => {
      const child = spawn('git', this.argv(args, call), {
        cwd: this.workspace,
        env: gitEnv(this.repo, call.bare ? undefined : this.workspace, this.globalConfig, call.index),
        stdio: ['ignore', 'pipe', 'pipe'],
        windowsHide: true,
      });
      let count = 0;
      let stopped = false;
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => {
        for (let i = chunk.indexOf(0); i !== -1; i = chunk.indexOf(0, i + 1)) count++;
        if (count > limit && !stopped) {
          stopped = true;
          child.kill();
        }
      });
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
      });
      child.on('error', reject);
      child.on('close', (code) => {
        if (stopped) resolve(limit + 1);
        else if (code === 0) resolve(count);
        else reject(new GitError(args, code, stderr));
      });
    });
  }
}

export function splitZ(out: Buffer): string[] {
  const text = out.toString('utf8');
  if (!text) return [];
  const parts = text.split('\0');
  if (parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/** Whether git can be run at all (resolves false when it is not on PATH). */
export function gitOnPath(): Promise<boolean> {
  return new Promise((resolve) => {
    execFile('git', ['--version'], { windowsHide: true }, (error) => resolve(!error));
  });
}

/** Git's name for a blob: sha1 of "blob <size>\0<content>", computed here so no process is needed. */
export function blobId(data: Buffer): string {
  return createHash('sha1').update(`blob ${data.length}\0`).update(data).digest('hex');
}
