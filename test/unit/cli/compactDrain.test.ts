// `engram compact --json` on a long session writes its messages in parts and waits for each to leave the
// process before the next (a slow reader on a pipe held every part in memory at once: 425 MB instead of
// 331 MB on a 200 MB transcript). The output is the same as when nothing waits.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { CliIo } from '../../../src/cli/command';
import { runCli } from '../../../src/cli/dispatcher';
import { generate } from '../../bench/transcriptLoad';
import { useTempDirs } from '../support/tempDirs';

const tempDir = useTempDirs('all');

async function compactJson(file: string, slowReader: boolean): Promise<{ out: string; parts: number; waits: number }> {
  let out = '';
  let parts = 0;
  let waits = 0;
  let pending = false;
  const io: CliIo = {
    stdout: (t) => {
      assert.equal(pending, false, 'a part was written before the one before it had left');
      out += t;
      parts++;
      if (slowReader) pending = true;
    },
    stderr: () => undefined,
    env: {},
    cwd: process.cwd(),
    signal: new AbortController().signal,
    ...(slowReader
      ? {
          drained: () => {
            waits++;
            return new Promise<void>((done) =>
              setTimeout(() => {
                pending = false;
                done();
              }, 1),
            );
          },
        }
      : {}),
  };
  const code = await runCli(['compact', file, '--json', '--stage', 'micro'], io);
  assert.equal(code, 0);
  return { out, parts, waits };
}

describe('engram compact --json and a slow reader', () => {
  it('waits for each part to leave before writing the next; the same JSON as without waiting', async () => {
    const file = path.join(tempDir('engram-compact-drain-'), 'long.jsonl');
    await generate(file, 2 * 1024 * 1024, Number.POSITIVE_INFINITY);
    const slow = await compactJson(file, true);
    const fast = await compactJson(file, false);
    assert.ok(slow.parts > 5, `written in ${slow.parts} parts`);
    assert.ok(slow.waits >= slow.parts - 1, `waited ${slow.waits} times for ${slow.parts} parts`);
    assert.equal(slow.out, fast.out);
    assert.ok(Array.isArray((JSON.parse(slow.out) as { messages: unknown[] }).messages));
  });
});
