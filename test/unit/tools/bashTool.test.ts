import assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { bashTool, commandEnv, HeadTailBuffer, type BashData } from '../../../src/core/tools/bashTool';
import { useTempDirs } from '../support/tempDirs';
import { makeCtx } from './toolTestKit';
import { alive } from '../support/processes';

const tempDir = useTempDirs();

const bash = bashTool();

async function waitDead(pid: number, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (!alive(pid)) return true;
    await sleep(25);
  }
  return !alive(pid);
}

async function readPid(file: string): Promise<number> {
  for (let i = 0; i < 100; i++) {
    const t = await fsp.readFile(file, 'utf8').catch(() => '');
    if (/^\d+\s*$/.test(t)) return Number(t);
    await sleep(20);
  }
  throw new Error('no pid written');
}

describe('Bash', () => {
  it('runs in the cwd and returns stdout and stderr', async () => {
    const dir = tempDir('engram-tools-');
    const r = await bash.run({ command: 'pwd; echo out; echo err >&2' }, makeCtx(dir));
    assert.equal(r.isError, false);
    assert.equal(r.content, `${dir}\nout\nerr`);
    assert.equal((r.data as BashData).exitCode, 0);
  });

  it('returns a non-zero exit as an error result with the code', async () => {
    const r = await bash.run({ command: 'echo failing; exit 3' }, makeCtx(tempDir('engram-tools-')));
    assert.equal(r.isError, true);
    assert.equal(r.content, 'failing\n[Exit code 3]');
    assert.equal((r.data as BashData).exitCode, 3);
  });

  it('says when there is no output', async () => {
    const r = await bash.run({ command: 'true' }, makeCtx(tempDir('engram-tools-')));
    assert.deepEqual([r.isError, r.content], [false, '(no output)']);
  });

  it('kills the whole process group on timeout', async () => {
    const dir = tempDir('engram-tools-');
    const pidFile = path.join(dir, 'child.pid');
    const started = Date.now();
    const r = await bash.run(
      { command: `sleep 30 & echo $! > ${pidFile}; echo started; wait`, timeout: 500 },
      makeCtx(dir),
    );
    assert.ok(Date.now() - started < 5000);
    assert.equal(r.isError, true);
    assert.match(r.content, /^started\n\[Command timed out after 0\.5 s/);
    assert.equal((r.data as BashData).timedOut, true);
    assert.ok(await waitDead(await readPid(pidFile)), 'the background child was killed too');
  });

  it('escalates to SIGKILL when the command ignores SIGTERM', async () => {
    const dir = tempDir('engram-tools-');
    const pidFile = path.join(dir, 'p.pid');
    const r = await bash.run(
      { command: `trap '' TERM; echo $$ > ${pidFile}; while :; do sleep 0.1; done`, timeout: 300 },
      makeCtx(dir),
    );
    assert.equal((r.data as BashData).timedOut, true);
    assert.ok(await waitDead(await readPid(pidFile), 5000), 'killed after the grace period');
  });

  it('kills the process group when aborted', async () => {
    const dir = tempDir('engram-tools-');
    const pidFile = path.join(dir, 'child.pid');
    const ac = new AbortController();
    const running = bash.run({ command: `sleep 30 & echo $! > ${pidFile}; wait` }, makeCtx(dir, { signal: ac.signal }));
    const pid = await readPid(pidFile);
    ac.abort();
    const r = await running;
    assert.equal(r.isError, true);
    assert.match(r.content, /interrupted/);
    assert.equal((r.data as BashData).interrupted, true);
    assert.ok(await waitDead(pid));
  });

  it('does not wait for a background process that keeps the output open', async () => {
    const started = Date.now();
    const r = await bash.run({ command: 'sleep 2 & echo done' }, makeCtx(tempDir('engram-tools-')));
    assert.equal(r.content, 'done');
    assert.ok(Date.now() - started < 1500, `took ${Date.now() - started} ms`);
  });

  it('caps long output, keeping head and tail', async () => {
    const r = await bash.run(
      { command: 'echo START; for i in $(seq 1 20000); do echo "line $i"; done; echo END' },
      makeCtx(tempDir('engram-tools-')),
    );
    assert.equal(r.isError, false);
    assert.ok(r.content.length < 30_200, `length ${r.content.length}`);
    assert.ok(r.content.startsWith('START\nline 1\n'));
    assert.ok(r.content.endsWith('line 20000\nEND'));
    assert.match(r.content, /\[\.\.\. \d+ characters omitted \.\.\.\]/);
    assert.equal((r.data as BashData).truncated, true);
  });

  it('validates input and clamps the timeout', async () => {
    assert.match(bash.validate({}) ?? '', /Missing required field "command"/);
    assert.match(bash.validate({ command: 'ls', timeout: '5' }) ?? '', /integer/);
    assert.equal(bash.validate({ command: 'ls', timeout: 10_000_000, description: 'list' }), null);
    assert.equal(bash.summarize({ command: 'ls -la\ncat x', description: 'look' }), 'ls -la ⏎ cat x  (look)');
  });
});

describe('HeadTailBuffer', () => {
  it('returns short output verbatim', () => {
    const b = new HeadTailBuffer(10);
    b.append('abc');
    b.append('defghij');
    assert.equal(b.text(), 'abcdefghij');
    assert.equal(b.truncated, false);
  });

  it('keeps the first and last halves of long output in bounded memory', () => {
    const b = new HeadTailBuffer(10);
    for (const ch of 'abcdefghijklmnopqrstuvwxyz') b.append(ch);
    assert.equal(b.total, 26);
    assert.equal(b.text(), 'abcde\n\n[... 16 characters omitted ...]\n\nvwxyz');
  });

  it('handles one large chunk', () => {
    const b = new HeadTailBuffer(6);
    b.append('0123456789');
    assert.equal(b.text(), '012\n\n[... 4 characters omitted ...]\n\n789');
  });
});

describe('Bash environment', () =>
  it('commands never see the API credentials of the agent', () => {
    const env = commandEnv({ PATH: '/bin', ANTHROPIC_API_KEY: 'sk-secret', ANTHROPIC_AUTH_TOKEN: 't', HOME: '/h' });
    assert.equal(env.ANTHROPIC_API_KEY, undefined);
    assert.equal(env.ANTHROPIC_AUTH_TOKEN, undefined);
    assert.equal(env.PATH, '/bin');
    assert.equal(env.GIT_TERMINAL_PROMPT, '0');
  }));
