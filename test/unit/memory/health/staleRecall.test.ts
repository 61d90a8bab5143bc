// Recall respects stale memories (issue 32 item 2), on real folders: a memory naming a file the workspace
// no longer has is attached with a one-line caveat naming it (setting "caveat"), or left out and reported
// (setting "skip"); once the file is back, it is attached plainly. The chat's recall line says which.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { recallForPrompt, recalledEventOf } from '../../../../src/core/memory/autoMemory/recall';
import { MemoryHealthIndex } from '../../../../src/core/memory/health/healthIndex';
import { staleCheckFor } from '../../../../src/core/memory/health/staleRecall';
import { isRecallNotice, staleRecallNotices } from '../../../../src/core/session/sessionNotices';
import { recalledMemories } from '../../../../src/vscode/chat/chatItems';

function folders(): { dir: string; ws: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-stale-recall-'));
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-stale-ws-'));
  fs.mkdirSync(path.join(ws, 'src', 'auth'), { recursive: true });
  fs.writeFileSync(path.join(ws, 'src', 'auth', 'tokens.ts'), 'export function refreshToken() {}\n');
  fs.writeFileSync(
    path.join(dir, 'project_session.md'),
    '---\nname: Session handling\ndescription: where login sessions are kept\ntype: project\n---\n' +
      'Login sessions are kept in `src/auth/session.ts`; tokens are refreshed by src/auth/tokens.ts.\n',
  );
  fs.writeFileSync(path.join(dir, 'MEMORY.md'), '- [Session handling](project_session.md) — login sessions\n');
  return { dir, ws };
}

const PROMPT = 'where are login sessions kept?';

test('a stale memory is attached with a caveat naming what no longer exists', async () => {
  const { dir, ws } = folders();
  const r = await recallForPrompt(dir, PROMPT, [], { stale: { check: staleCheckFor(ws), mode: 'caveat' } });
  assert.equal(r.blocks.length, 1);
  const lines = r.blocks[0].text.split('\n');
  const caveat = lines.filter((l) => l.startsWith('Caveat:'));
  assert.equal(caveat.length, 1, 'one caveat line');
  assert.match(caveat[0], /no longer exists in the workspace: src\/auth\/session\.ts \(/);
  assert.doesNotMatch(caveat[0], /tokens\.ts/, 'what still exists is not named');
  assert.deepEqual(
    r.files[0].stale?.map((s) => s.ref),
    ['src/auth/session.ts'],
  );
  const line = recalledMemories(recalledEventOf(r));
  assert.deepEqual(line, [
    {
      file: 'project_session.md',
      title: 'Session handling',
      words: ['login', 'sessions', 'kept'],
      stale: ['src/auth/session.ts'],
    },
  ]);
});

test('with "skip" a stale memory is left out, and the recall line says so', async () => {
  const { dir, ws } = folders();
  const r = await recallForPrompt(dir, PROMPT, [], { stale: { check: staleCheckFor(ws), mode: 'skip' } });
  assert.deepEqual(r.blocks, []);
  assert.deepEqual(r.files, []);
  assert.deepEqual(
    r.skipped?.map((f) => f.file),
    ['project_session.md'],
  );
  const line = recalledMemories(recalledEventOf(r));
  assert.equal(line.length, 1);
  assert.equal(line[0].staleSkipped, true);
  assert.deepEqual(line[0].stale, ['src/auth/session.ts']);
});

test('once the file exists again (after the listing is refreshed), the memory is attached plainly', async () => {
  const { dir, ws } = folders();
  let clock = 0;
  // Waits for the new listing however long it takes (a busy machine), so the next check is the fresh one.
  const check = staleCheckFor(ws, { refreshMs: 1000, refreshWaitMs: 60_000, now: () => clock });
  const before = await recallForPrompt(dir, PROMPT, [], { stale: { check, mode: 'caveat' } });
  assert.match(before.blocks[0].text, /Caveat:/);
  fs.writeFileSync(path.join(ws, 'src', 'auth', 'session.ts'), 'export const sessions = new Map();\n');
  clock = 5000;
  const after = await recallForPrompt(dir, PROMPT, [], { stale: { check, mode: 'caveat' } });
  assert.doesNotMatch(after.blocks[0].text, /Caveat:/);
  assert.equal(after.files[0].stale, undefined);
});

test('a listing slower than the wait does not hold up the turn: the one before answers, the new one next', async () => {
  const { dir, ws } = folders();
  let clock = 0;
  // The second listing is held back until the test lets it go: slower than any wait.
  let release = (): void => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  let listings = 0;
  const list = async (root: string): Promise<MemoryHealthIndex> => {
    if (++listings > 1) await held;
    return MemoryHealthIndex.open(root);
  };
  const check = staleCheckFor(ws, { refreshMs: 1000, refreshWaitMs: 10, now: () => clock, list });
  const caveated = async (): Promise<boolean> =>
    /Caveat:/.test(
      (await recallForPrompt(dir, PROMPT, [], { stale: { check, mode: 'caveat' } })).blocks[0]?.text ?? '',
    );
  assert.equal(await caveated(), true);
  fs.writeFileSync(path.join(ws, 'src', 'auth', 'session.ts'), 'export const sessions = new Map();\n');
  clock = 5000;
  assert.equal(await caveated(), true, 'the listing from before the file came back answers meanwhile');
  assert.equal(listings, 2, 'a new listing was started');
  release();
  let tries = 0;
  while ((await caveated()) && tries++ < 200) await new Promise((resolve) => setTimeout(resolve, 25));
  assert.ok(tries <= 200, 'the new listing is used once it is made');
  assert.equal(listings, 2, 'and it was made once');
});

test('without the check (an untrusted workspace), recall is as before', async () => {
  const { dir } = folders();
  const r = await recallForPrompt(dir, PROMPT, []);
  assert.equal(r.blocks.length, 1);
  assert.doesNotMatch(r.blocks[0].text, /Caveat:/);
});

test('the CLI notice names the stale memories and what they name, caveated or left out', async () => {
  const { dir, ws } = folders();
  const caveat = await recallForPrompt(dir, PROMPT, [], { stale: { check: staleCheckFor(ws), mode: 'caveat' } });
  const said = staleRecallNotices({ type: 'memoryRecalled', ...recalledEventOf(caveat) });
  assert.deepEqual(
    said.map((n) => n.text),
    [
      'Stale memories attached with a caveat (what they name no longer exists): project_session.md: src/auth/session.ts.',
    ],
  );
  const skip = await recallForPrompt(dir, PROMPT, [], { stale: { check: staleCheckFor(ws), mode: 'skip' } });
  const left = staleRecallNotices({ type: 'memoryRecalled', ...recalledEventOf(skip) });
  assert.match(left[0]?.text ?? '', /^Stale memories left out .*: project_session\.md: src\/auth\/session\.ts\.$/);
  assert.ok(isRecallNotice(left[0]?.words.template ?? ''), 'the chat shows it in its recall line instead');
});
