// Issue #10 on the session both hosts drive. Ask 1: a session opened again from its transcript holds
// the conversation the last process sent (cuts replayed), lists that process's compactions on its
// timeline, and undoes the newest to the same messages with the same ids, again after another reopen.
// Ask 6: the gauge shows the new size as soon as a compaction or an undo swaps the conversation (the
// session's `context` event, which the Chat view, the status bar and the inspector follow), not at the
// next response.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { readTranscript } from '../../../src/core/conversation/transcriptReader';
import type { SystemLine } from '../../../src/core/conversation/types';
import { gaugeState } from '../../../src/core/inspection/contextSnapshot';
import type { EngramSession } from '../../../src/core/session/engramSession';
import type { RawSettings } from '../../../src/core/settings/engramSettings';
import { openTestSession } from '../support/engramSessions';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';

const server = useTestServer();
const tempDir = useTempDirs();
const SETTINGS: RawSettings = {
  'sessionNotes.enabled': false,
  'memory.enabled': false,
  'compaction.keepRecentToolResults': 1,
  'compaction.toolResultChars': 500,
};
const SUMMARY = {
  content: [
    {
      type: 'text' as const,
      text: '<analysis>a</analysis>\n<summary>\n1. Primary Request and Intent: read the files\n2. Current Work: done\n</summary>',
    },
  ],
};

function open(
  where: { cwd: string; dataDir: string },
  resumeSessionId?: string,
  raw: RawSettings = SETTINGS,
): Promise<EngramSession> {
  return openTestSession(server.url, where, raw, resumeSessionId);
}

/** A project with files to read, each `size` characters of varied text. */
function project(sizes: number[]): { cwd: string; dataDir: string; files: string[] } {
  const cwd = tempDir('engram-resume-ws-');
  const dataDir = tempDir('engram-resume-data-');
  const files = sizes.map((size, i) => {
    const file = path.join(cwd, `file${i}.txt`);
    let text = '';
    for (let k = 0; text.length < size; k++) text += `line ${k} of file ${i}: ${'lorem ipsum dolor '.repeat(k % 5)}\n`;
    fs.writeFileSync(file, text.slice(0, size));
    return file;
  });
  return { cwd, dataDir, files };
}

/** One turn reading every file (one call each), then an answer. */
async function readAll(session: EngramSession, files: string[], tag: string): Promise<void> {
  server.enqueue(
    ...files.map((f, i) => ({
      content: [{ type: 'tool_use' as const, id: `toolu_${tag}_${i}`, name: 'Read', input: { file_path: f } }],
    })),
    { content: [{ type: 'text', text: `read ${tag}` }] },
  );
  const r = await session.runTurn(`read the files (${tag})`);
  assert.equal(r.reason, 'end_turn');
}

const json = (v: unknown): string => JSON.stringify(v);

describe('a session opened again from its transcript', () => {
  it('holds the same conversation, lists the compactions, and undoes the newest to the same messages and ids', async () => {
    const where = project([6_000, 5_000, 200]);
    const first = await open(where);
    await readAll(first, where.files, 'a');
    assert.ok((await first.compactNow('micro')).ok);
    const afterMicro = json(first.agent.messages);
    await readAll(first, where.files.slice(2), 'b');
    const beforeFull = json(first.agent.messages);
    server.enqueue(SUMMARY);
    assert.ok((await first.compactNow('full')).ok);
    const events = first.compaction.events.map((e) => [e.id, e.stage]);
    const held = json(first.agent.messages);
    await first.finish();

    const second = await open(where, first.sessionId);
    assert.equal(json(second.agent.messages), held, 'the messages the last process sent');
    assert.deepEqual(
      second.warnings.filter((w) => w.includes('trimmed')),
      [],
    );
    assert.deepEqual(
      second.timeline.map((t) => (t.kind === 'compaction' ? [t.event.id, t.event.stage] : t.kind)),
      events,
    );
    assert.deepEqual(
      second.compaction.events.map((e) => [e.id, e.stage]),
      events,
    );
    const full = second.timeline[1];
    assert.ok(
      full.kind === 'compaction' &&
        full.event.summaryText?.includes('read the files') &&
        full.event.replacedIds.length > 0,
    );

    assert.ok(await second.undoLastCompaction(), 'undo works after a reload');
    assert.equal(
      json(second.agent.messages),
      beforeFull,
      'the messages before the summary, the earlier cuts still made',
    );
    const lines = (await readTranscript(second.transcriptPath)).lines;
    const undo = lines.findIndex((l) => l.type === 'system' && (l as SystemLine).compactMetadata?.stage === 'undo');
    const restored = lines.slice(undo + 1).map((l) => l.uuid);
    const originals = new Set(lines.slice(0, undo).map((l) => l.uuid));
    assert.ok(
      restored.length > 0 && restored.every((u) => originals.has(u)),
      'the restored lines are the original ones, by uuid',
    );
    await second.finish();

    const third = await open(where, first.sessionId);
    assert.equal(json(third.agent.messages), beforeFull);
    assert.deepEqual(
      third.compaction.events.map((e) => e.stage),
      ['micro'],
      'the undone summary is not undone twice',
    );
    assert.ok(await third.undoLastCompaction());
    const untrimmed = JSON.parse(afterMicro) as unknown[];
    assert.notEqual(json(third.agent.messages.slice(0, untrimmed.length)), afterMicro, 'the results are whole again');
    assert.ok(json(third.agent.messages).length > beforeFull.length);
    await third.finish();
    const fourth = await open(where, first.sessionId);
    assert.equal(json(fourth.agent.messages), json(third.agent.messages));
    assert.deepEqual(fourth.compaction.events, []);
    fourth.dispose();
  });

  it('sends a result whole and says so when its bytes are not the ones that were cut', async () => {
    const where = project([6_000, 200]);
    const first = await open(where);
    await readAll(first, where.files, 'a');
    assert.ok((await first.compactNow('micro')).ok);
    await first.finish();
    const text = fs.readFileSync(first.transcriptPath, 'utf8');
    fs.writeFileSync(first.transcriptPath, text.replace('line 0 of file 0', 'LINE 0 of file 0'));
    const second = await open(where, first.sessionId);
    assert.ok(
      second.warnings.some((w) => /1 tool result\(s\) differ from what compaction trimmed \(toolu_a_0\)/.test(w)),
      second.warnings.join('\n'),
    );
    assert.ok(json(second.agent.messages).includes('LINE 0 of file 0'));
    assert.ok(!json(second.agent.messages).includes('Output trimmed'), 'left whole');
    second.dispose();
  });
});

describe('the gauge follows a compaction at once', () => {
  /** The gauge as a surface reads it on each `context` event, and what a fresh measure of the conversation says then. */
  function watch(session: EngramSession): Array<{ shown: number; fresh: number }> {
    const seen: Array<{ shown: number; fresh: number }> = [];
    session.on((e) => {
      if (e.type !== 'context') return;
      const gauge = session.compaction.gauge;
      const shown = gaugeState(gauge, session.agent, session.settings).usedTokens;
      // Measured whole: the fixed parts and every message as it is now, no report of an older list.
      seen.push({
        shown,
        fresh: gauge.fixedTokens + session.agent.messages.reduce((n, m) => n + gauge.tokensOf(m), 0),
      });
    });
    return seen;
  }

  it("after Compact Now and after an undo: the last size posted is the new conversation's", async () => {
    const where = project([9_000, 8_000, 200]);
    const session = await open(where);
    await readAll(session, where.files, 'a');
    const seen = watch(session);
    const before = gaugeState(session.compaction.gauge, session.agent, session.settings).usedTokens;
    assert.ok((await session.compactNow('micro')).ok);
    const compacted = seen[seen.length - 1];
    assert.ok(compacted.shown < before - 2_000, `${compacted.shown} < ${before}`);
    assert.equal(compacted.shown, compacted.fresh, 'what the surfaces show is the new list, measured whole');
    assert.ok(await session.undoLastCompaction());
    const undone = seen[seen.length - 1];
    assert.ok(undone.shown > compacted.shown + 2_000);
    assert.equal(undone.shown, undone.fresh);
    session.dispose();
  });

  it('after an automatic compaction, before the next response', async () => {
    const where = project([30_000, 25_000, 200]);
    const session = await open(where, undefined, {
      ...SETTINGS,
      contextWindow: 20_000,
      'compaction.fullPercent': 100,
      'compaction.sessionMemoryPercent': 95,
    });
    const order: string[] = [];
    const seen = watch(session);
    session.on((e) => {
      if (e.type === 'agent' && (e.event.type === 'conversationReplaced' || e.event.type === 'usage'))
        order.push(e.event.type);
      if (e.type === 'context') order.push(`context ${seen.length}`);
    });
    await readAll(session, where.files, 'a');
    assert.ok(
      session.compaction.events.some((e) => e.stage === 'micro'),
      'it compacted on its own',
    );
    const at = order.indexOf('conversationReplaced');
    assert.ok(at >= 0, order.join(', '));
    const next = order[at + 1];
    assert.match(next, /^context /, 'a context event right after the swap');
    const posted = seen[Number(next.slice('context '.length)) - 1];
    assert.equal(posted.shown, posted.fresh);
    session.dispose();
  });
});
