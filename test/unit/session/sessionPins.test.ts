// Issue 24, pins on the session both hosts drive: pin lines round-trip through the transcript (adds
// minus removals, outside the conversation's chain), a corrupt pin line is skipped with a clear problem,
// and the pins survive a compaction, a resume and an undo: the pinned text is in every request after.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { activePins } from '../../../src/core/conversation/pinLines';
import { parseTranscriptText } from '../../../src/core/conversation/transcriptReader';
import { diskSourceInput } from '../../../src/core/inspection/inspectorService';
import { buildInspectorSnapshot } from '../../../src/core/inspection/snapshotBuilder';
import { resolveSettings } from '../../../src/core/settings/engramSettings';
import type { ApiMessage } from '../../../src/core/conversation/types';
import type { EngramSession } from '../../../src/core/session/engramSession';
import { readPinLines } from '../../../src/core/session/sessionPins';
import { openTestSession } from '../support/engramSessions';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';

const server = useTestServer();
const tempDir = useTempDirs();

function open(where: { cwd: string; dataDir: string }, resumeSessionId?: string): Promise<EngramSession> {
  const settings = {
    'sessionNotes.enabled': false,
    'memory.enabled': false,
    'compaction.keepMinTokens': 10,
    'compaction.keepMaxTokens': 1_000,
    'compaction.keepMinTextMessages': 1,
  };
  return openTestSession(server.url, where, settings, resumeSessionId);
}

const where = () => ({ cwd: tempDir('engram-spins-ws-'), dataDir: tempDir('engram-spins-data-') });
const SUMMARY = {
  content: [{ type: 'text' as const, text: '<analysis>a</analysis><summary>1. Intent: go on.</summary>' }],
};

async function turn(session: EngramSession, prompt: string, reply: string): Promise<void> {
  server.enqueue({ content: [{ type: 'text', text: reply }] });
  const r = await session.runTurn(prompt);
  assert.equal(r.reason, 'end_turn');
}

const lastSent = (): string =>
  JSON.stringify(server.requests[server.requests.length - 1].body.messages as ApiMessage[]);

describe('pins on a session', () => {
  it('are recorded in the transcript as adds and removals, outside the chain, and read back on resume', async () => {
    const w = where();
    const first = await open(w);
    await turn(first, 'first prompt', 'first reply');
    const a = await first.pins.add('first prompt', { kind: 'message', role: 'user' });
    const b = await first.pins.add('reply', { kind: 'selection', role: 'assistant', messageId: 'msg_1:0' });
    const c = await first.pins.add('carried path src/a.ts', { kind: 'dropped' });
    assert.equal(
      (await first.pins.add('first prompt', { kind: 'message', role: 'user' })).id,
      a.id,
      'one pin per text',
    );
    assert.ok(await first.pins.remove(b.id));
    assert.equal(await first.pins.remove(b.id), false);
    await turn(first, 'second prompt', 'second reply');
    await first.finish();

    const lines = await readPinLines(first.transcriptPath);
    assert.deepEqual(
      lines.map((l) => l.op),
      ['add', 'add', 'add', 'remove'],
    );
    assert.ok(lines.every((l) => !('parentUuid' in l) && l.sessionId === first.sessionId));
    assert.deepEqual(
      activePins(lines).map((p) => p.id),
      [a.id, c.id],
    );
    const second = await open(w, first.sessionId);
    assert.deepEqual(
      second.pins.list().map((p) => [p.text, p.source.kind]),
      [
        ['first prompt', 'message'],
        ['carried path src/a.ts', 'dropped'],
      ],
    );
    assert.equal(second.agent.messages.length, 4, 'the pin lines do not break the conversation chain');
    assert.deepEqual(second.warnings, []);
    second.dispose();

    // The inspector on the session read from disk lists the same pins, with their cost.
    const snapshot = await buildInspectorSnapshot(
      diskSourceInput(
        {
          kind: 'session',
          label: 'Engram',
          root: w.dataDir,
          projectKey: path.basename(path.dirname(first.transcriptPath)),
          sessionId: first.sessionId,
          readOnly: false,
        },
        resolveSettings().settings,
        Date.now(),
      ),
    );
    assert.deepEqual(
      snapshot.pins?.pins.map((p) => [p.text, p.source]),
      [
        ['first prompt', 'message'],
        ['carried path src/a.ts', 'dropped'],
      ],
    );
    assert.equal(snapshot.pins?.budget, 4_000);
  });

  it('skip a corrupt pin line, saying which line and why', () => {
    const good = { type: 'engram-pin', op: 'add', uuid: 'u1', timestamp: 't', sessionId: 's', text: 'keep' };
    const text = [
      JSON.stringify({ ...good, source: { kind: 'message', role: 'user' } }),
      JSON.stringify({ ...good, uuid: 'u2', text: '', source: { kind: 'dropped' } }),
      JSON.stringify({ ...good, uuid: 'u3', source: { kind: 'elsewhere' } }),
      JSON.stringify({ type: 'engram-pin', op: 'remove', uuid: 'u4', timestamp: 't', sessionId: 's' }),
    ].join('\n');
    const read = parseTranscriptText(`${text}\n`);
    assert.equal(read.lines.length, 1);
    assert.deepEqual(read.corrupt, [
      { line: 2, error: 'engram-pin line without its pinned "text"' },
      { line: 3, error: 'engram-pin line with an unknown source kind' },
      { line: 4, error: 'engram-pin removal without "pinUuid"' },
    ]);
  });

  it('are in every request after pinning: through two compactions, a resume and an undo', async () => {
    const w = where();
    const first = await open(w);
    await turn(first, 'set up the project', `Use the rule KEEP-THIS-RULE-42 always. ${'x'.repeat(300)}`);
    await first.pins.add('Use the rule KEEP-THIS-RULE-42 always.', { kind: 'selection', role: 'assistant' });
    await turn(first, `more work ${'y'.repeat(300)}`, `done ${'z'.repeat(300)}`);
    assert.ok(lastSent().includes('KEEP-THIS-RULE-42'));
    server.enqueue(SUMMARY);
    assert.ok((await first.compactNow('full')).ok);
    await turn(first, `after one ${'q'.repeat(300)}`, `reply one ${'r'.repeat(300)}`);
    assert.ok(lastSent().includes('KEEP-THIS-RULE-42'), 'after the first compaction');
    server.enqueue(SUMMARY);
    assert.ok((await first.compactNow('full')).ok);
    assert.deepEqual(first.compaction.events[1].pinsCarried?.count, 1);
    await turn(first, 'after two', 'reply two');
    assert.ok(lastSent().includes('KEEP-THIS-RULE-42'), 'after the second compaction');
    await first.finish();

    const second = await open(w, first.sessionId);
    await turn(second, 'after the resume', 'resumed');
    assert.ok(lastSent().includes('KEEP-THIS-RULE-42'), 'after the resume');
    assert.ok(await second.undoLastCompaction());
    assert.equal(second.pins.list().length, 1, 'the undo keeps the pin');
    await turn(second, 'after the undo', 'undone');
    assert.ok(lastSent().includes('KEEP-THIS-RULE-42'), 'after the undo');
    server.enqueue(SUMMARY);
    assert.ok((await second.compactNow('full')).ok);
    await turn(second, 'after a compaction of the resumed session', 'ok');
    assert.ok(lastSent().includes('KEEP-THIS-RULE-42'));

    const pin = second.pins.list()[0];
    assert.ok(await second.pins.remove(pin.id));
    server.enqueue(SUMMARY);
    assert.ok((await second.compactNow('full')).ok);
    await turn(second, 'after the unpin', 'ok');
    assert.ok(!lastSent().includes('KEEP-THIS-RULE-42'), 'an unpinned text is no longer carried');
    assert.equal(fs.existsSync(second.transcriptPath), true);
    second.dispose();
  });
});
