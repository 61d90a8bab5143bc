// Checkpoints and rewinds on the session both hosts drive (issue 33), over the test server: a turn that
// Writes a file, one that runs `sed -i` and `rm` through Bash, one that Writes another, then a hand edit;
// a rewind of code and conversation to turn 1 leaves the hand-edited file as a conflict, a resume reads
// the conversation as it was after turn 1 (the dropped turns stay in the file), and the undo puts it all back.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { AnthropicModelClient } from '../../../src/core/llm/anthropicClient';
import type { EngramSession } from '../../../src/core/session/engramSession';
import { openEngramSession } from '../../../src/core/session/openEngramSession';
import type { SessionEvent } from '../../../src/core/session/sessionEvents';
import { type RawSettings } from '../../../src/core/settings/engramSettings';
import { SettingsStore } from '../../../src/core/settings/settingsStore';
import { openTestSession } from '../support/engramSessions';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';

const server = useTestServer();
const tempDir = useTempDirs();
const SETTINGS: RawSettings = { 'sessionNotes.enabled': false, 'memory.enabled': false };

/** One turn: a tool call, then an answer. */
async function turn(session: EngramSession, prompt: string, name: string, input: Record<string, unknown>) {
  server.enqueue(
    { content: [{ type: 'tool_use' as const, id: `toolu_${prompt.replace(/\W/g, '')}`, name, input }] },
    { content: [{ type: 'text', text: `done: ${prompt}` }] },
  );
  const r = await session.runTurn(prompt);
  assert.equal(r.reason, 'end_turn');
}

function promptsOf(session: EngramSession): string[] {
  return session.agent.messages
    .filter((m) => m.role === 'user')
    .flatMap((m) =>
      typeof m.content === 'string' ? [m.content] : m.content.map((b) => (b.type === 'text' ? b.text : '')),
    )
    .filter((t) => t !== '');
}

/** A workspace with b.txt, three scripted turns and a hand edit of c.txt; the session still open. */
async function scriptedSession(): Promise<{
  session: EngramSession;
  cwd: string;
  dataDir: string;
  events: SessionEvent[];
}> {
  const cwd = tempDir('engram-cp-ws-');
  const dataDir = tempDir('engram-cp-data-');
  fs.writeFileSync(path.join(cwd, 'b.txt'), 'bee\n');
  const session = await openTestSession(server.url, { cwd, dataDir }, SETTINGS);
  const events: SessionEvent[] = [];
  session.on((e) => events.push(e));
  await turn(session, 'write a', 'Write', { file_path: path.join(cwd, 'a.txt'), content: 'one\n' });
  await turn(session, 'edit a, remove b', 'Bash', { command: "sed -i 's/one/two/' a.txt && rm b.txt" });
  await turn(session, 'write c', 'Write', { file_path: path.join(cwd, 'c.txt'), content: 'sea\n' });
  fs.writeFileSync(path.join(cwd, 'c.txt'), 'my own\n');
  return { session, cwd, dataDir, events };
}

const read = (cwd: string, f: string): string | undefined =>
  fs.existsSync(path.join(cwd, f)) ? fs.readFileSync(path.join(cwd, f), 'utf8') : undefined;

describe('checkpoints and rewinds of a session', () => {
  it('takes a checkpoint per turn, rewinds code and conversation to turn 1, resumes there, and undoes it', async () => {
    const { session, cwd, dataDir, events } = await scriptedSession();
    assert.equal(session.checkpoints?.available, true);
    const turns = await session.turns();
    assert.deepEqual(
      turns.map((t) => [t.turn, t.prompt, t.compactedAway, t.checkpoint?.files.map((f) => `${f.change} ${f.path}`)]),
      [
        [1, 'write a', false, ['added a.txt']],
        [2, 'edit a, remove b', false, ['modified a.txt', 'deleted b.txt']],
        [3, 'write c', false, ['added c.txt']],
      ],
    );
    const told = events.filter((e) => e.type === 'checkpoint').map((e) => e.type === 'checkpoint' && e.turn);
    assert.deepEqual(told, [1, 2, 3]);
    assert.equal(session.timeline.filter((t) => t.kind === 'checkpoint').length, 3);

    const plan = await session.planRewind({ toTurn: 1, code: true, conversation: true });
    assert.deepEqual(plan.conversation, { droppedTurns: 2 });
    const files = Object.fromEntries((plan.code?.files ?? []).map((f) => [f.path, f.action]));
    assert.deepEqual(files, { 'a.txt': 'restore', 'b.txt': 'recreate', 'c.txt': 'delete' });
    assert.ok(plan.code?.files.find((f) => f.path === 'c.txt')?.conflict, 'the hand edit is a conflict');

    const outcome = await session.applyRewind(plan);
    assert.equal(read(cwd, 'a.txt'), 'one\n');
    assert.equal(read(cwd, 'b.txt'), 'bee\n');
    assert.equal(read(cwd, 'c.txt'), 'my own\n', 'the person’s edit is left as it is');
    assert.deepEqual(outcome.code?.conflicts, ['c.txt']);
    assert.deepEqual(outcome.conversation, { droppedTurns: 2 });
    assert.match(
      outcome.summary,
      /^Rewound the code \(.*1 file you changed left as it is \(c\.txt\)\) and the conversation \(2 later turns dropped\) to right after turn 1\.$/,
    );
    assert.deepEqual(promptsOf(session), ['write a']);
    assert.deepEqual(
      (await session.turns()).map((t) => t.prompt),
      ['write a'],
    );
    assert.ok(session.timeline.some((t) => t.kind === 'rewind' && t.rewindId === outcome.id));

    // A new turn is turn 2 again; a resume reads turns 1 and 2, the dropped ones stay in the file.
    await turn(session, 'write d', 'Write', { file_path: path.join(cwd, 'd.txt'), content: 'dee\n' });
    assert.deepEqual(
      (await session.turns()).map((t) => [t.turn, t.checkpoint?.files.length]),
      [
        [1, 1],
        [2, 1],
      ],
    );
    await session.finish();
    const resumed = await openTestSession(server.url, { cwd, dataDir }, SETTINGS, session.sessionId);
    assert.deepEqual(
      promptsOf(resumed).filter((t) => !t.startsWith('done')),
      ['write a', 'write d'],
    );
    const listed = (): number[] => resumed.timeline.flatMap((t) => (t.kind === 'checkpoint' ? [t.turn] : []));
    for (let i = 0; i < 100 && listed().length < 4; i++) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(listed(), [1, 2, 3, 2], "the timeline lists the session's checkpoints, the dropped turns' too");
    const file = fs.readFileSync(session.transcriptPath, 'utf8');
    assert.ok(file.includes('edit a, remove b') && file.includes('write c'), 'the dropped turns stay on disk');

    // Undo: the files the rewind wrote go back (d.txt is the new turn's), the conversation is 3 turns again.
    const undone = await resumed.undoRewind(outcome.id);
    assert.equal(read(cwd, 'a.txt'), 'two\n');
    assert.equal(read(cwd, 'b.txt'), undefined);
    assert.deepEqual(
      promptsOf(resumed).filter((t) => !t.startsWith('done')),
      ['write a', 'edit a, remove b', 'write c'],
    );
    assert.match(undone.summary, /^Undid the rewind: the code \(.*\) and the conversation \(back to 3 turns\)\.$/);
    await resumed.finish();
  });

  it('rewinds code and conversation to turn 0 (before the first prompt), goes on from there, resumes, and undoes it', async () => {
    const { session, cwd, dataDir } = await scriptedSession();
    const plan = await session.planRewind({ toTurn: 0, code: true, conversation: true });
    assert.deepEqual(plan.conversation, { droppedTurns: 3 });
    const files = Object.fromEntries((plan.code?.files ?? []).map((f) => [f.path, f.action]));
    assert.deepEqual(files, { 'a.txt': 'delete', 'b.txt': 'recreate', 'c.txt': 'delete' });
    const outcome = await session.applyRewind(plan);
    assert.equal(read(cwd, 'a.txt'), undefined, 'the file turn 1 wrote is gone');
    assert.equal(read(cwd, 'b.txt'), 'bee\n');
    assert.equal(read(cwd, 'c.txt'), 'my own\n', 'the person’s edit is left as it is');
    assert.deepEqual(outcome.conversation, { droppedTurns: 3 });
    assert.match(
      outcome.summary,
      /^Rewound the code \(.*\) and the conversation \(3 later turns dropped\) to before the first prompt\.$/,
    );
    assert.deepEqual(session.agent.messages, [], 'the conversation is empty');
    assert.deepEqual(await session.turns(), []);

    // The next prompt is turn 1 again; a resume reads only it, and the undo brings the 3 turns back.
    await turn(session, 'write d', 'Write', { file_path: path.join(cwd, 'd.txt'), content: 'dee\n' });
    assert.deepEqual(
      (await session.turns()).map((t) => [t.turn, t.prompt]),
      [[1, 'write d']],
    );
    await session.finish();
    const resumed = await openTestSession(server.url, { cwd, dataDir }, SETTINGS, session.sessionId);
    assert.deepEqual(
      promptsOf(resumed).filter((t) => !t.startsWith('done')),
      ['write d'],
    );
    await resumed.undoRewind(outcome.id);
    assert.equal(read(cwd, 'a.txt'), 'two\n');
    assert.equal(read(cwd, 'b.txt'), undefined);
    assert.deepEqual(
      promptsOf(resumed).filter((t) => !t.startsWith('done')),
      ['write a', 'edit a, remove b', 'write c'],
    );
    await resumed.finish();
  });

  it('refuses while a turn runs, and says when a turn is out of range', async () => {
    const cwd = tempDir('engram-cp-ws-');
    const session = await openTestSession(server.url, { cwd, dataDir: tempDir('engram-cp-data-') }, SETTINGS);
    await assert.rejects(
      session.planRewind({ toTurn: 1, code: true, conversation: true }),
      /There is no turn 1 in this session: it has 0 turns/,
    );
    server.enqueue({ content: [{ type: 'text', text: 'slow' }], delayMs: 300 });
    const running = session.runTurn('hello');
    await new Promise((r) => setTimeout(r, 50));
    await assert.rejects(
      session.planRewind({ toTurn: 0, code: false, conversation: true }),
      /A turn is running: wait for it to end/,
    );
    await running;
    await session.finish();
  });

  it('rewinds the conversation behind a full compaction to the uncompacted turn, live and resumed, and undoes it', async () => {
    const cwd = tempDir('engram-cp-ws-');
    const dataDir = tempDir('engram-cp-data-');
    const session = await openTestSession(server.url, { cwd, dataDir }, SETTINGS);
    await turn(session, 'write a', 'Write', { file_path: path.join(cwd, 'a.txt'), content: 'one\n' });
    await turn(session, 'write b', 'Write', { file_path: path.join(cwd, 'b.txt'), content: 'two\n' });
    server.enqueue({
      content: [
        { type: 'text', text: '<analysis>a</analysis>\n<summary>\n1. Primary Request: SUMMARISED\n</summary>' },
      ],
    });
    assert.ok((await session.compactNow('full')).ok);
    await turn(session, 'write c', 'Write', { file_path: path.join(cwd, 'c.txt'), content: 'three\n' });
    assert.match(JSON.stringify(session.agent.messages), /SUMMARISED/);
    assert.deepEqual(
      (await session.turns()).map((t) => [t.turn, t.prompt, t.compactedAway]),
      [
        [1, 'write a', false],
        [2, 'write b', false],
        [3, 'write c', false],
      ],
    );
    const plan = await session.planRewind({ toTurn: 1, code: true, conversation: true });
    assert.deepEqual(plan.conversation, { droppedTurns: 2 });
    const outcome = await session.applyRewind(plan);
    assert.deepEqual(promptsOf(session), ['write a']);
    assert.doesNotMatch(JSON.stringify(session.agent.messages), /SUMMARISED/, 'the turn as it was, uncompacted');
    assert.deepEqual(fs.readdirSync(cwd).sort(), ['a.txt']);

    await turn(session, 'write d', 'Write', { file_path: path.join(cwd, 'd.txt'), content: 'four\n' });
    await session.finish();
    const resumed = await openTestSession(server.url, { cwd, dataDir }, SETTINGS, session.sessionId);
    assert.deepEqual(promptsOf(resumed), ['write a', 'write d']);
    await resumed.undoRewind(outcome.id);
    assert.match(JSON.stringify(resumed.agent.messages), /SUMMARISED/, 'the compacted conversation is back');
    assert.deepEqual(
      promptsOf(resumed).filter((t) => !t.includes('SUMMARISED')),
      ['write c'],
    );
    await resumed.finish();
  });

  it('lets the tool run when the checkpoint fails, and says the turn is not covered', async () => {
    const cwd = tempDir('engram-cp-ws-');
    const dataDir = tempDir('engram-cp-data-');
    const session = await openTestSession(server.url, { cwd, dataDir }, SETTINGS);
    const notices: string[] = [];
    session.on((e) => {
      if (e.type === 'notice') notices.push(e.text);
    });
    await turn(session, 'write a', 'Write', { file_path: path.join(cwd, 'a.txt'), content: 'one\n' });
    assert.deepEqual(notices, []);
    // The shadow repository goes away under the session: the next snapshot fails.
    fs.rmSync(path.join(dataDir, 'checkpoints'), { recursive: true, force: true });
    await turn(session, 'write b', 'Write', { file_path: path.join(cwd, 'b.txt'), content: 'two\n' });
    assert.equal(fs.readFileSync(path.join(cwd, 'b.txt'), 'utf8'), 'two\n', 'the tool ran');
    assert.deepEqual(notices, [
      'Turn 2 is not covered by a checkpoint: the snapshot before its first change failed (the log says why). Its changes cannot be rewound.',
    ]);
    await session.finish();
  });

  it('numbers a retried turn as the one it replaces, and rewinds over both', async () => {
    const cwd = tempDir('engram-cp-ws-');
    const session = await openTestSession(server.url, { cwd, dataDir: tempDir('engram-cp-data-') }, SETTINGS);
    await turn(session, 'write a', 'Write', { file_path: path.join(cwd, 'a.txt'), content: 'one\n' });
    await turn(session, 'write b', 'Write', { file_path: path.join(cwd, 'b.txt'), content: 'two\n' });
    assert.deepEqual(session.rewindLastTurn(), { prompt: 'write b' });
    await turn(session, 'write c', 'Write', { file_path: path.join(cwd, 'c.txt'), content: 'three\n' });
    const turns = await session.turns();
    assert.deepEqual(
      turns.map((t) => [t.turn, t.prompt, t.checkpoint?.files.map((f) => f.path)]),
      [
        [1, 'write a', ['a.txt']],
        [2, 'write c', ['c.txt']],
      ],
    );
    const plan = await session.planRewind({ toTurn: 1, code: true, conversation: true });
    assert.deepEqual(plan.conversation, { droppedTurns: 1 });
    await session.applyRewind(plan);
    assert.deepEqual(fs.readdirSync(cwd).sort(), ['a.txt'], 'the retried turn’s file and the dropped one’s go');
    assert.deepEqual(promptsOf(session), ['write a']);
    await session.finish();
  });

  it('keeps no checkpoints in an untrusted workspace, and still rewinds the conversation', async () => {
    const cwd = tempDir('engram-cp-ws-');
    const session = await openEngramSession(
      {
        cwd,
        dataDir: tempDir('engram-cp-data-'),
        client: new AnthropicModelClient({ apiKey: 'k', baseUrl: server.url }),
        trusted: false,
        permissionPrompt: { ask: async () => 'allowOnce' },
        version: '0.0.0-test',
        entrypoint: 'test',
      },
      new SettingsStore(SETTINGS),
    );
    assert.equal(session.checkpoints, undefined);
    for (const p of ['first', 'second']) {
      server.enqueue({ content: [{ type: 'text', text: `answer to ${p}` }] });
      await session.runTurn(p);
    }
    const plan = await session.planRewind({ toTurn: 1, code: true, conversation: true });
    assert.equal(plan.codeUnavailable, 'Checkpoints are not kept for this session (the workspace is not trusted).');
    const outcome = await session.applyRewind(plan);
    assert.equal(outcome.summary, 'Rewound the conversation (1 later turn dropped) to right after turn 1.');
    assert.deepEqual(promptsOf(session), ['first']);
    await session.finish();
  });
});
