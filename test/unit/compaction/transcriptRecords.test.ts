// What a compaction writes to the transcript, read back by the normal loader: the conversation held in
// memory after the compaction, whether the kept lines are referenced (preservedSegment) or written
// again, on Engram's own lines and on Claude Code's session-memory-compacted transcript.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { assembleCompacted } from '../../../src/core/compaction/compactedConversation';
import { widenToKeepInvariants } from '../../../src/core/compaction/invariants';
import { recordCompaction } from '../../../src/core/compaction/transcriptRecords';
import { isLinearSegment, loadTranscriptView } from '../../../src/core/compaction/transcriptView';
import { TranscriptWriter } from '../../../src/core/conversation/transcriptWriter';
import type { ApiMessage } from '../../../src/core/conversation/types';
import { CC_FIXTURES } from '../conversation/testSupport';
import { withTempDir } from '../support/tempDirs';
import { requestProblem } from './compactionSupport';

function blocks(messages: readonly ApiMessage[]): unknown {
  return messages.map((m) => ({
    role: m.role,
    content: typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content,
  }));
}

async function compactCopy(source: string, dir: string, keepAt: (count: number) => number, forceRewrite: boolean) {
  const file = path.join(dir, path.basename(source));
  fs.copyFileSync(source, file);
  const view = await loadTranscriptView(file);
  const keptFrom = widenToKeepInvariants(view.entries, keepAt(view.entries.length));
  const writer = new TranscriptWriter({
    file,
    sessionId: 'copy',
    cwd: dir,
    version: 'test',
    parentUuid: view.report.leafUuid ?? null,
  });
  const kept = view.entries.slice(keptFrom);
  const linear = kept.length > 0 && isLinearSegment(view.lines, kept[0].uuids[0], writer.lastUuid as string);
  const summaryText = 'Summary of the earlier part.';
  const recorded = await recordCompaction(writer, {
    trigger: 'auto',
    stage: 'session-memory',
    preTokens: 1,
    postTokens: 1,
    modelCalls: 0,
    durationMs: 1,
    eventId: 'e1',
    summaryText,
    kept,
    keptLinesLinear: linear && !forceRewrite,
  });
  // The conversation goes on after the compaction.
  await writer.appendUserPrompt('after the compaction');
  await writer.flush();
  const expected = [
    ...assembleCompacted(summaryText, view.entries, keptFrom).map((e) => e.message),
    { role: 'user' as const, content: 'after the compaction' },
  ];
  const reread = await loadTranscriptView(file);
  return { recorded, expected, reread: reread.entries.map((e) => e.message), linear };
}

describe('compaction records read back as the compacted conversation', () => {
  for (const name of [
    'sm-compact.transcript.jsonl',
    'tool-multiturn-before-compact.jsonl',
    'auto-compact-window60000.transcript.jsonl',
  ]) {
    for (const forceRewrite of [false, true]) {
      it(`${name}: kept lines ${forceRewrite ? 'written again' : 'referenced when linear'}`, async () => {
        await withTempDir(async (dir) => {
          for (const keepAt of [(n: number) => n - 1, (n: number) => Math.floor(n / 2), () => 1]) {
            const r = await compactCopy(path.join(CC_FIXTURES, name), dir, keepAt, forceRewrite);
            assert.equal(r.recorded.kept, forceRewrite || !r.linear ? 'rewritten' : 'preserved');
            assert.deepEqual(blocks(mergeUsers(r.reread)), blocks(mergeUsers(r.expected)));
            assert.equal(requestProblem(r.reread), null);
          }
        });
      });
    }
  }

  it("Claude Code's preserved segments are not one parent chain: such a cut is written again, not referenced", async () => {
    await withTempDir(async (dir) => {
      const r = await compactCopy(path.join(CC_FIXTURES, 'sm-compact.transcript.jsonl'), dir, () => 1, false);
      assert.equal(r.linear, false);
      assert.equal(r.recorded.kept, 'rewritten');
    });
  });
});

/** The reader merges consecutive user messages; compare on that shape. */
function mergeUsers(messages: readonly ApiMessage[]): ApiMessage[] {
  const out: ApiMessage[] = [];
  for (const m of messages) {
    const prev = out[out.length - 1];
    if (prev && prev.role === 'user' && m.role === 'user') {
      const a = typeof prev.content === 'string' ? [{ type: 'text' as const, text: prev.content }] : prev.content;
      const b = typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : m.content;
      out[out.length - 1] = { role: 'user', content: [...a, ...b] };
    } else out.push(m);
  }
  return out;
}
