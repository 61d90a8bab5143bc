// The turn index and the conversation rewind of issue 33 on real transcript files: turns numbered along
// the conversation across a compaction, a rewind to turn N read back by the loader a resume uses (the
// later turns stay in the file), a rewind behind a compaction, a Retry after it, and the undo.
import assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadConversation } from '../../../src/core/conversation/conversationLoader';
import {
  planConversationRewind,
  recordConversationRewind,
  recordRewindUndo,
} from '../../../src/core/conversation/conversationRewind';
import { recordRewind } from '../../../src/core/conversation/rewindLine';
import { TranscriptWriter } from '../../../src/core/conversation/transcriptWriter';
import { readTurnIndex } from '../../../src/core/conversation/turnIndex';
import type { ApiMessage } from '../../../src/core/conversation/types';
import { writeTurn } from '../support/branchedTranscript';
import { useTempDirs } from '../support/tempDirs';

const tempDir = useTempDirs('each');

function promptsOf(messages: readonly ApiMessage[]): string[] {
  return messages
    .filter((m) => m.role === 'user')
    .flatMap((m) =>
      typeof m.content === 'string' ? [m.content] : m.content.map((b) => (b.type === 'text' ? b.text : '')),
    )
    .filter((t) => t !== '' && !t.includes('Summary'));
}

async function messagesIn(file: string): Promise<ApiMessage[]> {
  return (await loadConversation(file)).entries.map((e) => e.message);
}

async function rewind(w: TranscriptWriter, file: string, toTurn: number): Promise<string> {
  const index = await readTurnIndex(file);
  const plan = planConversationRewind(index, index.turns, toTurn);
  return recordConversationRewind(w, plan, w.lastUuid, index);
}

describe('turn index and conversation rewind', () => {
  it('numbers the turns, rewinds to turn 2 (a resume reads turns 1-2, the rest stays on disk) and undoes it', async () => {
    const file = path.join(tempDir(), 's.jsonl');
    const w = new TranscriptWriter({ file, sessionId: 's', cwd: '/p', version: '0' });
    for (const p of ['one', 'two', 'three', 'four']) await writeTurn(w, p, 1);
    const index = await readTurnIndex(file);
    assert.deepEqual(
      index.turns.map((t) => [t.turn, t.prompt]),
      [
        [1, 'one'],
        [2, 'two'],
        [3, 'three'],
        [4, 'four'],
      ],
    );
    assert.equal(planConversationRewind(index, index.turns, 2).droppedTurns, 2);
    assert.throws(
      () => planConversationRewind(index, index.turns, 5),
      /There is no turn 5 in this conversation: it has 4 turns/,
    );

    const size = (await fsp.stat(file)).size;
    const marker = await rewind(w, file, 2);
    assert.deepEqual(promptsOf(await messagesIn(file)), ['one', 'two']);
    assert.ok((await fsp.readFile(file, 'utf8')).includes('"four"'), 'the dropped turns stay in the file');
    assert.ok((await fsp.stat(file)).size > size);

    // A new turn continues from turn 2; the turn index numbers it 3.
    await writeTurn(w, 'three again', 0);
    assert.deepEqual(
      (await readTurnIndex(file)).turns.map((t) => t.prompt),
      ['one', 'two', 'three again'],
    );
    await recordRewindUndo(w, file, marker, await readTurnIndex(file));
    assert.deepEqual(promptsOf(await messagesIn(file)), ['one', 'two', 'three', 'four']);
    await writeTurn(w, 'five', 0);
    assert.deepEqual(promptsOf(await messagesIn(file)), ['one', 'two', 'three', 'four', 'five']);
  });

  it('goes back behind a compaction to the uncompacted turns, keeps them across a Retry, and undoes it', async () => {
    const file = path.join(tempDir(), 's.jsonl');
    const w = new TranscriptWriter({ file, sessionId: 's', cwd: '/p', version: '0' });
    for (const p of ['one', 'two', 'three']) await writeTurn(w, p, 1);
    await w.appendCompactBoundary({ trigger: 'manual', preTokens: 1000 });
    await w.appendCompactSummary('Summary of one, two and three.');
    await writeTurn(w, 'four', 1);
    const index = await readTurnIndex(file);
    assert.deepEqual(
      index.turns.map((t) => t.prompt),
      ['one', 'two', 'three', 'four'],
      'the index goes on across the boundary',
    );
    assert.deepEqual(promptsOf(await messagesIn(file)), ['four'], 'a resume reads the summary on');

    const marker = await rewind(w, file, 2);
    assert.deepEqual(promptsOf(await messagesIn(file)), ['one', 'two']);

    // A turn after the rewind, then Retry on it: the conversation is still turns 1-2.
    const before = w.lastUuid;
    await writeTurn(w, 'retried', 0);
    await recordRewind(w, before, w.lastUuid);
    assert.deepEqual(promptsOf(await messagesIn(file)), ['one', 'two']);
    await writeTurn(w, 'three bis', 0);
    assert.deepEqual(promptsOf(await messagesIn(file)), ['one', 'two', 'three bis']);

    await recordRewindUndo(w, file, marker, await readTurnIndex(file));
    const back = await messagesIn(file);
    assert.deepEqual(promptsOf(back), ['four'], 'the compacted conversation is back');
    assert.ok(JSON.stringify(back).includes('Summary of one, two and three.'));
  });

  it('says a turn the file no longer holds was compacted away', async () => {
    const file = path.join(tempDir(), 's.jsonl');
    const w = new TranscriptWriter({ file, sessionId: 's', cwd: '/p', version: '0' });
    for (const p of ['one', 'two']) await writeTurn(w, p, 0);
    await w.appendCompactBoundary({ trigger: 'auto', preTokens: 1000 });
    await w.appendCompactSummary('Summary.');
    await writeTurn(w, 'three', 0);
    // Another tool kept only the lines from the boundary on.
    const lines = (await fsp.readFile(file, 'utf8')).split('\n');
    const from = lines.findIndex((l) => l.includes('compact_boundary'));
    await fsp.writeFile(file, lines.slice(from).join('\n'));
    const index = await readTurnIndex(file);
    assert.equal(index.cut, true);
    const numbered = index.turns.map((t) => ({ ...t, turn: t.turn + 2 }));
    const plan = planConversationRewind(index, numbered, 2);
    assert.equal(
      plan.unavailable,
      'Turn 2 was compacted away: its conversation cannot be restored; the code can still be rewound.',
    );
  });

  it('counts a prompt of attachments only as a turn (the session counts every prompt it writes)', async () => {
    const file = path.join(tempDir(), 's.jsonl');
    const w = new TranscriptWriter({ file, sessionId: 's', cwd: '/p', version: '0' });
    await writeTurn(w, 'one', 0);
    await w.appendUserPrompt([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
    ]);
    await writeTurn(w, 'three', 0);
    assert.deepEqual(
      (await readTurnIndex(file)).turns.map((t) => [t.turn, t.prompt]),
      [
        [1, 'one'],
        [2, ''],
        [3, 'three'],
      ],
    );
  });
});
