// The automatic chain's decisions (issue #10): which marks call for what, when a trim is held back to
// keep the prompt cache, the notes before a summary at every mark (the window included), and the recent
// window every summarising stage keeps.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { staticNotesSource } from '../../../src/core/compaction/notesSource';
import { runCompaction, trimTargetTokens, type PipelineContext } from '../../../src/core/compaction/pipeline';
import { resolveCompactionSettings } from '../../../src/core/compaction/settings';
import { entriesOf, sumTokens, type CompactionEntry } from '../../../src/core/compaction/types';
import type { ApiMessage } from '../../../src/core/conversation/types';
import { charTokens, requestProblem, ScriptedClient, SUMMARY_ANSWER } from './compactionSupport';

const WINDOW = 100_000;
const settings = resolveCompactionSettings({ contextWindow: WINDOW });
const NOTES = '# Session Title\n_A title_\nPipeline test\n\n# Current State\n_Now?_\nReading files one by one.\n';

/** `turns` turns of: prompt, a call, its result of `resultTokens` (charTokens), an answer; then a new prompt. */
function session(turns: number, resultTokens: number): CompactionEntry[] {
  const messages: ApiMessage[] = [];
  for (let t = 0; t < turns; t++) {
    messages.push({ role: 'user', content: `Turn ${t}: read file ${t}` });
    messages.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `Reading ${t}.` },
        { type: 'tool_use', id: `toolu_${t}`, name: 'Read', input: { t } },
      ],
    });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `toolu_${t}`, content: `${t} `.padEnd(resultTokens * 4, 'x') }],
    });
    messages.push({ role: 'assistant', content: [{ type: 'text', text: `File ${t} read.` }] });
  }
  messages.push({ role: 'user', content: `Turn ${turns}: next` });
  return entriesOf(messages);
}

const used = (entries: readonly CompactionEntry[]) => sumTokens(entries, charTokens);
/** A summarizer that fails the test if it is asked (the chain must not spend a model call). */
const noCall = {
  client: new ScriptedClient([() => new Error('no summary was expected')]),
  model: 'm',
  maxTokens: 100,
  system: [],
  tools: [],
};

function ctx(extra: Partial<PipelineContext> = {}): PipelineContext {
  return { settings, tokensOf: charTokens, fixedTokens: 0, automatic: true, summarizer: noCall, ...extra };
}

describe('the automatic chain', () => {
  it('a trim must land at half the microcompact mark (30% of the window by default)', () => {
    assert.equal(trimTargetTokens(settings), 30_000);
    assert.equal(
      trimTargetTokens(resolveCompactionSettings({ contextWindow: 200_000, microcompactPercent: 50 })),
      50_000,
    );
  });

  it('at the microcompact mark, with notes to take over, holds back a trim that would not land well below it', async () => {
    const entries = session(10, 6_000); // ~61K: the trim of 5 results lands at ~33K, above 30K
    const notes = staticNotesSource({ text: NOTES });
    const held = await runCompaction('micro', entries, used(entries), ctx({ notes }));
    assert.deepEqual(held.applied, []);
    assert.equal(held.failure, undefined, 'not a failure: the notes take over at their mark');
    const alone = await runCompaction('micro', entries, used(entries), ctx());
    assert.deepEqual(
      alone.applied.map((r) => r.stage),
      ['micro'],
      'without notes, the trim is the only step before a summary',
    );
  });

  it('a trim that lands well below the mark is applied in one batch, notes or not', async () => {
    const entries = session(16, 3_800); // ~62K: trimming 11 results lands at ~26K
    const out = await runCompaction(
      'micro',
      entries,
      used(entries),
      ctx({ notes: staticNotesSource({ text: NOTES }) }),
    );
    assert.deepEqual(
      out.applied.map((r) => r.stage),
      ['micro'],
    );
    assert.ok(out.applied[0].tokensAfter <= trimTargetTokens(settings));
    assert.equal(out.applied[0].trimmedToolUseIds?.length, 11, 'all but the 5 newest results');
  });

  it('from the session-memory mark, the notes replace the old part and the recent window stays verbatim', async () => {
    const entries = session(14, 6_000); // ~85K
    const out = await runCompaction('auto', entries, used(entries), ctx({ notes: staticNotesSource({ text: NOTES }) }));
    assert.deepEqual(
      out.applied.map((r) => r.stage),
      ['session-memory'],
      'the held-back trim is not applied',
    );
    const kept = out.entries.slice(1);
    assert.ok(sumTokens(kept, charTokens) >= settings.keepMinTokens, 'at least 10,000 tokens of conversation');
    assert.ok(
      kept.every((e) => !JSON.stringify(e.message).includes('Output trimmed')),
      'kept results are whole',
    );
    assert.equal(requestProblem(out.entries.map((e) => e.message)), null);
  });

  it('at or over the window, the notes are still tried before a summary', async () => {
    const entries = session(18, 6_000); // ~109K
    const out = await runCompaction('auto', entries, used(entries), ctx({ notes: staticNotesSource({ text: NOTES }) }));
    assert.deepEqual(
      out.applied.map((r) => r.stage),
      ['session-memory'],
    );
    assert.equal(out.applied[0].modelCalls, 0);
  });

  it('notes that cannot be used: the held-back trim comes first, and a summary only if still over the mark', async () => {
    const empty = staticNotesSource({ text: '# Session Title\n_A title_\n' });
    const entries = session(14, 6_000);
    const trimmed = await runCompaction('auto', entries, used(entries), ctx({ notes: empty }));
    assert.deepEqual(
      trimmed.applied.map((r) => r.stage),
      ['micro'],
    );
    const big = session(9, 16_000); // the trim alone leaves the 5 newest whole: ~82K, over the mark
    const client = new ScriptedClient([SUMMARY_ANSWER]);
    const full = await runCompaction('auto', big, used(big), ctx({ notes: empty, summarizer: { ...noCall, client } }));
    assert.deepEqual(
      full.applied.map((r) => r.stage),
      ['micro', 'full'],
    );
    assert.equal(client.requests.length, 1);
    const kept = full.entries.slice(1);
    assert.ok(sumTokens(kept, charTokens) >= settings.keepMinTokens, 'the summary keeps the recent window too');
    assert.match(JSON.stringify(full.entries[0].message), /The most recent messages follow unchanged/);
    assert.equal(requestProblem(full.entries.map((e) => e.message)), null);
  });
});
