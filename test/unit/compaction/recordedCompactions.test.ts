// The compaction records (issue #10, ask 1): what each kind of line holds (Claude Code's fields kept,
// Engram's under `engram`), replaying cuts on load (the bytes checked by sha1; a mismatch leaves the
// result whole and says so; undone cuts stay undone; cuts made before a boundary still apply to the
// segment it kept), undo writing back the same lines with their uuids, and Claude Code's transcripts
// still loading as they did.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadConversation } from '../../../src/core/conversation/conversationLoader';
import { readTranscript } from '../../../src/core/conversation/transcriptReader';
import type { ApiMessage, SystemLine, ToolResultBlock, UserLine } from '../../../src/core/conversation/types';
import { microcompact } from '../../../src/core/compaction/microcompact';
import { contentSha1, cutsBetween } from '../../../src/core/compaction/recordFormat';
import {
  loadReplayedConversation,
  readRecords,
  recordedEvents,
  replayCuts,
} from '../../../src/core/compaction/recordedCompactions';
import { loadTranscriptView } from '../../../src/core/compaction/transcriptView';
import { entriesOf } from '../../../src/core/compaction/types';
import { CC_FIXTURES, fixtureTranscripts } from '../conversation/testSupport';
import { useTempDirs } from '../support/tempDirs';
import { requestProblem } from './compactionSupport';
import { openLive, readBack, resumeLive } from './liveConversation';

const tempDir = useTempDirs();
const systemLines = async (file: string, subtype: string): Promise<SystemLine[]> =>
  (await readTranscript(file)).lines.filter(
    (l): l is SystemLine => l.type === 'system' && (l as SystemLine).subtype === subtype,
  );

/** A turn with one result per size, then two manual microcompacts' worth of old results. */
async function liveWithCuts(dir: string) {
  const live = openLive(dir);
  for (const size of [3_000, 2_500, 50, 1_800, 900]) {
    live.model.plan([size]);
    await live.agent.runTurn(`turn ${size}`);
  }
  const r = await live.orch.compactNow('micro');
  assert.ok(r.ok, r.reason);
  return live;
}

describe('record formats', () => {
  it("microcompact: Claude Code's fields, then Engram's cuts with the original's sha1", async () => {
    const live = await liveWithCuts(tempDir());
    const [line] = await systemLines(live.file, 'microcompact_boundary');
    const meta = line.microcompactMetadata as Record<string, unknown>;
    const event = live.orch.events[0];
    assert.deepEqual(Object.keys(meta).slice(0, 4), ['trigger', 'preTokens', 'postTokens', 'compactedToolIds']);
    assert.equal(meta.trigger, 'manual');
    assert.deepEqual(meta.compactedToolIds, event.trimmedToolUseIds);
    assert.equal(meta.eventId, event.id);
    const engram = meta.engram as {
      v: number;
      maxChars: number;
      results: Array<{ id: string; keptChars: number; totalChars: number; sha1: string }>;
      replacedUuids: string[];
    };
    assert.equal(engram.v, 1);
    assert.equal(engram.maxChars, 400);
    assert.deepEqual(
      engram.results.map((r) => r.id),
      event.trimmedToolUseIds,
    );
    assert.deepEqual(engram.replacedUuids, event.replacedIds);
    const originals = new Map(
      (await readTranscript(live.file)).lines
        .flatMap((l) =>
          l.type === 'user' && Array.isArray((l as UserLine).message.content)
            ? ((l as UserLine).message.content as ToolResultBlock[])
            : [],
        )
        .filter((b) => b.type === 'tool_result')
        .map((b) => [b.tool_use_id, b] as const),
    );
    for (const r of engram.results) {
      assert.equal(r.sha1, contentSha1(originals.get(r.id) as ToolResultBlock));
      assert.equal(r.totalChars, (originals.get(r.id)?.content as string | undefined)?.length);
      assert.ok(r.keptChars <= 400 && r.keptChars > 390, 'cut at the limit, never inside a character');
    }
  });

  it('compact boundary: the replaced line uuids and response ids, the kept index and the summary line', async () => {
    const live = await liveWithCuts(tempDir());
    const r = await live.orch.compactNow('session-memory');
    assert.ok(r.ok, r.reason);
    const [line] = await systemLines(live.file, 'compact_boundary');
    const meta = line.compactMetadata as Record<string, unknown>;
    const event = live.orch.events[1];
    assert.deepEqual([meta.trigger, meta.stage, meta.eventId], ['manual', 'session-memory', event.id]);
    const engram = meta.engram as {
      v: number;
      replacedUuids: string[];
      replacedMessageIds: string[];
      keptFrom: number;
      summaryUuid: string;
    };
    assert.deepEqual(engram.replacedUuids, event.replacedIds);
    assert.ok(
      engram.replacedMessageIds.length > 0 && engram.replacedMessageIds.every((id) => id.startsWith('msg_local_')),
    );
    assert.equal(engram.keptFrom, event.keptFrom);
    const summary = (await readTranscript(live.file)).lines.find((l) => l.uuid === engram.summaryUuid) as UserLine;
    assert.equal(summary.isCompactSummary, true);
    assert.equal(summary.message.content, event.summaryText);
  });

  it('undo of a microcompact is one line naming it; the results come back on load', async () => {
    const live = await liveWithCuts(tempDir());
    const id = live.orch.events[0].id;
    assert.ok(await live.orch.undoLast());
    const lines = await systemLines(live.file, 'microcompact_boundary');
    assert.equal(lines.length, 2);
    const meta = lines[1].microcompactMetadata as {
      compactedToolIds: unknown[];
      engram: { v: number; undoneEventId: string };
    };
    assert.deepEqual(meta.compactedToolIds, []);
    assert.deepEqual(meta.engram, { v: 1, undoneEventId: id });
    const back = await readBack(live);
    assert.equal(back.replayed, 0);
    assert.deepEqual(back.messages, live.agent.messages);
  });
});

describe('replay on load', () => {
  it('cuts what the last process cut, byte for byte, in every reader (loader and transcript view)', async () => {
    const live = await liveWithCuts(tempDir());
    const memory = JSON.stringify(live.agent.messages);
    const raw = await loadConversation(live.file);
    assert.notEqual(JSON.stringify(raw.entries.map((e) => e.message)), memory, 'the lines keep the originals');
    const loaded = await loadReplayedConversation(live.file);
    assert.equal(JSON.stringify(loaded.entries.map((e) => e.message)), memory);
    assert.equal(loaded.replay.replayed, live.orch.events[0].trimmedToolUseIds?.length);
    const view = await loadTranscriptView(live.file);
    assert.equal(JSON.stringify(view.entries.map((e) => e.message)), memory);
  });

  it('a result whose bytes differ from the recorded sha1 is sent whole, with a warning', async () => {
    const live = await liveWithCuts(tempDir());
    await live.agent.transcript?.flush();
    const text = fs.readFileSync(live.file, 'utf8');
    const target = live.orch.events[0].trimmedToolUseIds?.[0] as string;
    // Someone edited that result's line after the cut.
    const edited = text
      .split('\n')
      .map((l) =>
        l.includes(`"tool_use_id":"${target}"`) && l.includes('"tool_result"') ? l.replace('3000:', '3001:') : l,
      )
      .join('\n');
    fs.writeFileSync(live.file, edited);
    const loaded = await loadReplayedConversation(live.file);
    assert.deepEqual(loaded.replay.mismatched, [target]);
    assert.match(loaded.replay.warnings[0], new RegExp(`differ from what compaction trimmed \\(${target}\\)`));
    const result = loaded.entries
      .flatMap((e) => (Array.isArray(e.message.content) ? e.message.content : []))
      .find((b) => b.type === 'tool_result' && b.tool_use_id === target) as ToolResultBlock;
    assert.equal((result.content as string).length, 3_000, 'left whole');
    assert.equal(
      loaded.replay.replayed,
      (live.orch.events[0].trimmedToolUseIds?.length ?? 0) - 1,
      'the other cuts still apply',
    );
  });

  it('cuts made before a boundary apply to the segment it kept; a result written again already cut is left as it is', async () => {
    const dir = tempDir();
    const live = await liveWithCuts(dir);
    live.model.plan([2_000]);
    await live.agent.runTurn('one more');
    assert.ok((await live.orch.compactNow('session-memory')).ok);
    const back = await readBack(live);
    assert.equal(JSON.stringify(back.messages), JSON.stringify(live.agent.messages));
    const resumed = await resumeLive(dir, live);
    assert.equal(JSON.stringify(resumed.agent.messages), JSON.stringify(live.agent.messages));
  });

  it('images beside a cut result become the same notes again', () => {
    const image = {
      type: 'image' as const,
      source: { type: 'base64' as const, media_type: 'image/png' as const, data: 'iVBORw0KGgo'.repeat(50) },
    };
    const messages: ApiMessage[] = [
      { role: 'user', content: 'look' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Read', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'x'.repeat(900) }, image] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't2', name: 'Read', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't2', content: 'short' }] },
    ];
    const cut = microcompact(messages, { keepRecent: 1, maxChars: 100 });
    const cuts = cutsBetween(messages, cut.messages, 100);
    assert.deepEqual(cuts?.imagesIn, ['t1']);
    const records = readRecords([
      {
        type: 'system',
        subtype: 'microcompact_boundary',
        uuid: 'b',
        microcompactMetadata: {
          trigger: 'auto',
          preTokens: 1,
          compactedToolIds: ['t1'],
          eventId: 'e',
          engram: { v: 1, ...cuts },
        },
      },
    ]);
    assert.deepEqual(
      replayCuts(entriesOf(messages), records).entries.map((e) => e.message),
      cut.messages,
    );
  });

  it("replays nothing from records without Engram's data (Claude Code, or before version 1)", () => {
    const messages: ApiMessage[] = [
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'x'.repeat(900) }] },
    ];
    const records = readRecords([
      {
        type: 'system',
        subtype: 'microcompact_boundary',
        uuid: 'b',
        microcompactMetadata: { trigger: 'auto', preTokens: 1, compactedToolIds: ['t1'], maxChars: 100 },
      },
    ]);
    assert.equal(replayCuts(entriesOf(messages), records).entries[0].message, messages[0]);
    assert.deepEqual(recordedEvents(records), { all: [], active: [] });
  });
});

describe('undo writes the restored conversation back with its own ids', () => {
  it('the lines after the undo boundary carry the original uuids and message ids, no copies under new ones', async () => {
    const dir = tempDir();
    const live = await liveWithCuts(dir);
    assert.ok(await live.orch.undoLast(), 'the microcompact first');
    await live.agent.transcript?.flush();
    const before = (await loadReplayedConversation(live.file)).entries;
    const messagesBefore = JSON.stringify(live.agent.messages);
    assert.ok((await live.orch.compactNow('session-memory')).ok);
    assert.ok(await live.orch.undoLast());
    assert.equal(JSON.stringify(live.agent.messages), messagesBefore);
    await live.agent.transcript?.flush();
    const lines = (await readTranscript(live.file)).lines;
    const undoAt = lines.findIndex((l) => l.type === 'system' && (l as SystemLine).compactMetadata?.stage === 'undo');
    const after = lines.slice(undoAt + 1);
    assert.deepEqual(
      after.map((l) => l.uuid),
      before.flatMap((e) => e.uuids),
      'every restored line, same uuid, in order',
    );
    const reread = (await loadReplayedConversation(live.file)).entries;
    assert.deepEqual(
      reread.map((e) => e.uuids),
      before.map((e) => e.uuids),
    );
    assert.deepEqual(
      reread.map((e) => e.messageIds),
      before.map((e) => e.messageIds),
    );
    assert.equal(JSON.stringify(reread.map((e) => e.message)), messagesBefore);
    // The next turn continues from the restored lines.
    live.model.plan([]);
    await live.agent.runTurn('after the undo');
    assert.equal(JSON.stringify((await readBack(live)).messages), JSON.stringify(live.agent.messages));
  });
});

describe('undo of a summary of a summary, with a prompt merged into it', () => {
  // Found by replayProperties (seed -1398664645): a turn, two full compactions, a turn (its prompt is
  // merged into the second summary's message), then undo. The first summary came back followed by the
  // prompt as a second user message in a row, which the transcript reads back as one message.
  it('gives one user message, live and resumed, as the transcript reads back', async () => {
    const dir = tempDir();
    const live = openLive(dir);
    live.model.plan([]);
    await live.agent.runTurn('first');
    assert.ok((await live.orch.compactNow('full')).ok);
    assert.ok((await live.orch.compactNow('full')).ok);
    live.model.plan([]);
    await live.agent.runTurn('after two summaries');
    await live.agent.transcript?.flush();
    const twinDir = tempDir();
    const twinFile = path.join(twinDir, path.basename(live.file));
    fs.copyFileSync(live.file, twinFile);
    const twin = await resumeLive(twinDir, { ...live, file: twinFile });
    assert.ok(await live.orch.undoLast());
    assert.ok(await twin.orch.undoLast());
    const roles = live.agent.messages.map((m) => m.role);
    assert.deepEqual(roles, ['user', 'assistant'], 'the first summary and the prompt are one message');
    assert.equal(JSON.stringify(twin.agent.messages), JSON.stringify(live.agent.messages));
    for (const side of [live, twin]) {
      assert.equal(JSON.stringify((await readBack(side)).messages), JSON.stringify(side.agent.messages));
    }
    assert.equal(requestProblem(live.agent.messages), null);
    assert.match(JSON.stringify(live.agent.messages[0]), /after two summaries/);
  });
});

describe("Claude Code's transcripts", () => {
  it('load as before (nothing of theirs is replayed) and stay valid requests', async () => {
    for (const name of await fixtureTranscripts()) {
      const file = path.join(CC_FIXTURES, name);
      const plain = await loadConversation(file);
      const replayed = await loadReplayedConversation(file);
      assert.deepEqual(replayed.entries, plain.entries, name);
      assert.deepEqual(replayed.replay.warnings, []);
      assert.equal(requestProblem(replayed.entries.map((e) => e.message)), null, name);
      assert.deepEqual(recordedEvents(replayed.records).active, [], `${name}: nothing of theirs can be undone`);
      const view = await loadTranscriptView(file);
      assert.deepEqual(view.entries, plain.entries);
    }
  });
});
