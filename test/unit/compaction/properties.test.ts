// Property tests: thousands of random conversations (parallel tool calls, responses split over lines of
// one message.id with thinking first, text between calls, out-of-order results, images, non-ASCII text
// at the cut points), compacted at random points by every stage. Each result must be a request the
// API accepts, keep the newest messages verbatim, and stay within the keep bounds unless the API
// invariants forced a wider cut.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { fullCompact } from '../../../src/core/compaction/fullCompact';
import { checkCut, checkInvariants, widenToKeepInvariants } from '../../../src/core/compaction/invariants';
import { keepIndexOf } from '../../../src/core/compaction/keepIndex';
import { microcompact } from '../../../src/core/compaction/microcompact';
import { reactiveCompact } from '../../../src/core/compaction/reactive';
import { compactWithNotes } from '../../../src/core/compaction/sessionMemoryCompact';
import { looksTemplateOnly } from '../../../src/core/compaction/notesSource';
import { sumTokens, type CompactionEntry } from '../../../src/core/compaction/types';
import { PromptTooLongError } from '../../../src/core/llm/errors';
import {
  charTokens,
  conversationArb,
  hasLoneSurrogate,
  requestProblem,
  ScriptedClient,
  SUMMARY_ANSWER,
  toolResults,
} from './compactionSupport';

const NOTES =
  '# Session Title\n_A title_\nCompaction tests\n\n# Current State\n_What now?_\nWorking on the property tests.';

describe('every generated conversation is valid to begin with', () => {
  it("passes the validator and the engine's own check", () => {
    fc.assert(
      fc.property(conversationArb, ({ entries }) => {
        assert.equal(requestProblem(entries.map((e) => e.message)), null);
        assert.deepEqual(checkInvariants(entries), []);
      }),
      { numRuns: 300 },
    );
  });
});

describe('microcompact on random conversations', () => {
  it('stays valid, keeps the newest results and every other message as they were, never splits a character', () => {
    fc.assert(
      fc.property(
        conversationArb,
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: 100, max: 3_000 }),
        ({ entries }, keepRecent, maxChars) => {
          const input = entries.map((e) => e.message);
          const out = microcompact(input, { keepRecent, maxChars });
          assert.equal(requestProblem(out.messages), null);
          assert.equal(out.messages.length, input.length);
          const before = toolResults(input);
          const after = toolResults(out.messages);
          assert.equal(after.length, before.length);
          for (let k = Math.max(0, before.length - keepRecent); k < before.length; k++)
            assert.equal(after[k], before[k], 'a recent result is untouched');
          input.forEach((m, i) => {
            if (!out.changed.includes(i)) assert.equal(out.messages[i], m);
          });
          for (let k = 0; k < after.length; k++) {
            const text =
              typeof after[k].content === 'string'
                ? (after[k].content as string)
                : (after[k].content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('');
            assert.ok(!hasLoneSurrogate(text));
            if (after[k] !== before[k]) assert.ok(text.length <= maxChars + 400, 'cut to the limit plus the notes');
          }
          assert.deepEqual(
            microcompact(out.messages, { keepRecent, maxChars }).changed,
            [],
            'a second run changes nothing',
          );
        },
      ),
      { numRuns: 1_500 },
    );
  });
});

describe('session-memory compaction on random conversations', () => {
  const boundsArb = fc
    .record({
      minTokens: fc.integer({ min: 0, max: 3_000 }),
      minTextMessages: fc.integer({ min: 0, max: 6 }),
      span: fc.integer({ min: 0, max: 6_000 }),
    })
    .map(({ minTokens, minTextMessages, span }) => ({ minTokens, minTextMessages, maxTokens: minTokens + span }));

  it('is valid, keeps the newest messages verbatim and keeps within the bounds unless the invariants widened the cut', () => {
    fc.assert(
      fc.property(
        conversationArb,
        boundsArb,
        fc.option(fc.nat(), { nil: undefined }),
        fc.constantFrom<'uuid' | 'id'>('uuid', 'id'),
        ({ entries }, bounds, cursorPick, cursorKind) => {
          let cursor: string | undefined;
          let cursorIndex = entries.length - 1;
          if (cursorPick !== undefined) {
            const candidates = entries
              .map((e, i) => [e, i] as const)
              .filter(([e]) => (cursorKind === 'id' ? e.messageIds.length > 0 : e.uuids.length > 0));
            if (candidates.length > 0) {
              const [e, i] = candidates[cursorPick % candidates.length];
              // The cursor names the newest entry holding that id (a split response spans two entries).
              cursor = cursorKind === 'id' ? e.messageIds[0] : e.uuids[0];
              cursorIndex =
                cursorKind === 'id'
                  ? Math.max(...entries.map((x, j) => (x.messageIds.includes(cursor as string) ? j : -1)))
                  : i;
            }
          }
          const out = compactWithNotes(
            { text: NOTES, ...(cursor ? { lastSummarizedMessageId: cursor } : {}) },
            looksTemplateOnly,
            {
              entries,
              bounds,
              thresholdTokens: Number.POSITIVE_INFINITY,
              tokensOf: charTokens,
            },
          );
          const raw = keepIndexOf(entries, cursorIndex + 1, bounds, charTokens);
          const widened = widenToKeepInvariants(entries, raw.index);
          if (!out.ok) {
            assert.equal(out.code, 'nothing-to-compact');
            assert.equal(widened, 0);
            return;
          }
          const r = out.result;
          assert.equal(r.keptFrom, widened);
          assert.ok(r.keptFrom <= cursorIndex + 1, 'nothing the notes do not cover is replaced');
          assert.deepEqual(checkCut(entries, r.keptFrom), []);
          const messages = r.entries.map((e) => e.message);
          assert.equal(requestProblem(messages), null);
          assertKeptVerbatim(entries, r.entries, r.keptFrom);
          const kept = sumTokens(entries, charTokens, r.keptFrom);
          if (r.keptFrom === raw.index && raw.stoppedBy !== 'uncovered-over-max')
            assert.ok(kept <= bounds.maxTokens, 'within the maximum');
          if (raw.stoppedBy === 'min-met') assert.ok(kept >= bounds.minTokens, 'at least the minimum');
          assert.equal(r.modelCalls, 0);
        },
      ),
      { numRuns: 2_000 },
    );
  });
});

describe('full compaction on random conversations', () => {
  it('is valid and keeps the latest prompt verbatim', async () => {
    await fc.assert(
      fc.asyncProperty(conversationArb, async ({ entries, ending }) => {
        const client = new ScriptedClient([SUMMARY_ANSWER]);
        const out = await fullCompact({
          entries,
          tokensOf: charTokens,
          micro: { keepRecent: 5, maxChars: 2_000 },
          summarizer: {
            client,
            model: 'claude-test',
            maxTokens: 1_000,
            system: [{ type: 'text', text: 'sys' }],
            tools: [],
          },
        });
        assert.ok(out.ok);
        const messages = out.result.entries.map((e) => e.message);
        assert.equal(requestProblem(messages), null);
        assert.equal(requestProblem(client.requests[0].messages), null, 'the summary request itself is valid');
        assert.equal(out.result.modelCalls, 1);
        if (ending === 'prompt' && entries.length > 1) {
          assert.equal(out.result.keptFrom, entries.length - 1);
          assertKeptVerbatim(entries, out.result.entries, out.result.keptFrom);
        } else {
          assert.equal(messages.length, 1);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('with a recent window: valid, and the window after the summary is kept verbatim', async () => {
    const keep = { minTokens: 300, minTextMessages: 2, maxTokens: 3_000 };
    await fc.assert(
      fc.asyncProperty(conversationArb, async ({ entries }) => {
        const out = await fullCompact({
          entries,
          tokensOf: charTokens,
          micro: { keepRecent: 5, maxChars: 2_000 },
          keep,
          summarizer: {
            client: new ScriptedClient([SUMMARY_ANSWER]),
            model: 'claude-test',
            maxTokens: 1_000,
            system: [{ type: 'text', text: 'sys' }],
            tools: [],
          },
        });
        assert.ok(out.ok);
        assert.equal(requestProblem(out.result.entries.map((e) => e.message)), null);
        assertKeptVerbatim(entries, out.result.entries, out.result.keptFrom);
        assert.deepEqual(out.result.replaced, entries.slice(0, out.result.keptFrom));
      }),
      { numRuns: 300 },
    );
  });
});

describe('reactive compaction on random conversations', () => {
  it('is valid, drops only whole rounds from the front, and fits when anything can', async () => {
    await fc.assert(
      fc.asyncProperty(
        conversationArb,
        fc.integer({ min: 1, max: 3 }),
        fc.double({ min: 0.05, max: 0.95, noNaN: true }),
        fc.boolean(),
        async ({ entries }, attempt, share, withNotes) => {
          const before = sumTokens(entries, charTokens);
          const limit = Math.max(1, Math.floor(before * share));
          const error = new PromptTooLongError('too long', Math.ceil(before * 1.1), limit);
          const out = await reactiveCompact({
            entries,
            error,
            attempt,
            contextWindow: limit,
            tokensOf: charTokens,
            micro: { keepRecent: 5, maxChars: 2_000 },
            ...(withNotes
              ? {
                  compact: async (trimmed: readonly CompactionEntry[]) =>
                    compactWithNotes({ text: NOTES }, looksTemplateOnly, {
                      entries: trimmed,
                      bounds: { minTokens: 200, minTextMessages: 1, maxTokens: 2_000 },
                      thresholdTokens: Number.POSITIVE_INFINITY,
                      tokensOf: charTokens,
                    }),
                }
              : {}),
          });
          if (!out.ok) return;
          const messages = out.result.entries.map((e) => e.message);
          assert.equal(requestProblem(messages), null);
          assert.deepEqual(checkCut(entries, out.result.keptFrom), []);
          const lastIn = entries[entries.length - 1].message;
          const lastOut = messages[messages.length - 1];
          assert.equal(lastOut.role, lastIn.role, 'the newest message stays');
          assert.equal(out.result.modelCalls, 0);
        },
      ),
      { numRuns: 500 },
    );
  });
});

/**
 * The entries from keptFrom on are in the result unchanged (the first kept user message may carry the summary
 * in front).
 */
function assertKeptVerbatim(
  input: readonly CompactionEntry[],
  output: readonly CompactionEntry[],
  keptFrom: number,
): void {
  const kept = input.slice(keptFrom);
  const tail = output.slice(output.length - kept.length);
  kept.forEach((e, k) => {
    const o = tail[k];
    if (k === 0 && e.message.role === 'user') {
      const blocks = o.message.content as Array<{ type: string; text?: string }>;
      const original =
        typeof e.message.content === 'string' ? [{ type: 'text', text: e.message.content }] : e.message.content;
      assert.deepEqual(blocks.slice(1), original);
      return;
    }
    assert.equal(o.message, e.message);
  });
  if (kept.length > 0 && kept[0].message.role === 'user') assert.equal(output.length, kept.length);
  else assert.equal(output.length, kept.length + 1);
}
