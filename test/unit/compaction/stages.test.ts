// The summarising stages on small conversations: when session-memory compaction declines and why,
// what the full summary request looks like (snapshot), how it survives "prompt is too long", and the
// reactive stage's fitting.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fullCompact, type CompactProgress } from '../../../src/core/compaction/fullCompact';
import { looksTemplateOnly, staticNotesSource } from '../../../src/core/compaction/notesSource';
import { reactiveCompact } from '../../../src/core/compaction/reactive';
import { compactWithNotes, sessionMemoryCompact } from '../../../src/core/compaction/sessionMemoryCompact';
import { planForUsage } from '../../../src/core/compaction/pipeline';
import { resolveCompactionSettings } from '../../../src/core/compaction/settings';
import { extractSummary, SUMMARY_REQUEST_MARKER, summaryRequest, SUMMARY_SECTIONS } from '../../../src/core/compaction/summaryPrompt';
import { sumTokens } from '../../../src/core/compaction/types';
import { PromptTooLongError } from '../../../src/core/llm/errors';
import { build, charTokens, requestProblem, ScriptedClient, SUMMARY_ANSWER } from './compactionSupport';
import { assertSnapshot } from '../support/snapshot';

const TEMPLATE = '# Session Title\n_A short title_\n\n# Current State\n_What is being worked on?_\n';
const NOTES = `${TEMPLATE}Refactoring the parser; tests pass.\n`;
const conversation = build(Array.from({ length: 8 }, (_, i) => ({
  promptLength: 200 + i, promptAsBlocks: i % 2 === 0, thinking: i % 3 === 0, split: i % 2 === 1, answer: true,
  steps: [{ calls: 2, sizes: [3_000, 400, 50], textBetween: true, image: false, shuffle: i % 2 === 0, extraText: false }],
})), 'prompt').entries;
const bounds = { minTokens: 400, minTextMessages: 2, maxTokens: 2_000 };
const sm = (notes: Parameters<typeof compactWithNotes>[0], extra: Partial<Parameters<typeof compactWithNotes>[2]> = {}) =>
  compactWithNotes(notes, looksTemplateOnly, { entries: conversation, bounds, thresholdTokens: 1e9, tokensOf: charTokens, ...extra });

describe('session-memory compaction', () => {
  it('replaces the old part by one message holding the notes and keeps the rest', () => {
    const out = sm({ text: NOTES });
    assert.ok(out.ok);
    const first = out.result.entries[0].message;
    const text = typeof first.content === 'string' ? first.content : (first.content[0] as { text: string }).text;
    assert.match(text, /<session-notes>\n# Session Title[\s\S]*Refactoring the parser; tests pass\.\n<\/session-notes>/);
    assert.equal(out.result.modelCalls, 0);
    assert.ok(out.result.tokensAfter < out.result.tokensBefore);
    assert.equal(requestProblem(out.result.entries.map((e) => e.message)), null);
    assert.deepEqual(out.result.replaced, conversation.slice(0, out.result.keptFrom));
  });

  it('declines without notes, with template-only notes, with a lost cursor, and when still over the mark', () => {
    const code = (o: ReturnType<typeof sm>) => (o.ok ? 'ok' : o.code);
    assert.equal(code(sm(undefined)), 'no-notes');
    assert.equal(code(sm({ text: TEMPLATE })), 'empty-notes');
    assert.equal(code(sm({ text: '   ' })), 'empty-notes');
    assert.equal(code(sm({ text: NOTES, lastSummarizedMessageId: 'msg_gone' })), 'cursor-lost');
    assert.equal(code(sm({ text: NOTES }, { thresholdTokens: 100 })), 'still-over');
    assert.equal(code(sm({ text: NOTES }, { bounds: { minTokens: 1e9, minTextMessages: 100, maxTokens: 1e10 } })), 'nothing-to-compact');
  });

  it('keeps everything after the cursor (an assistant message.id, as the notes record it)', () => {
    const at = conversation.findIndex((e) => e.messageIds.length > 0 && conversation.indexOf(e) > 20);
    const id = conversation[at].messageIds[0];
    const last = Math.max(...conversation.map((e, i) => (e.messageIds.includes(id) ? i : -1)));
    const out = sm({ text: NOTES, lastSummarizedMessageId: id }, { bounds: { minTokens: 0, minTextMessages: 0, maxTokens: 0 } });
    assert.ok(out.ok);
    assert.ok(out.result.keptFrom <= last + 1);
  });

  it('waits for a running notes update before reading them', async () => {
    const order: string[] = [];
    const source = {
      ...staticNotesSource({ text: NOTES }),
      waitForUpdate: async (ms: number) => void order.push(`wait ${ms}`),
      read: async () => (order.push('read'), { text: NOTES }),
    };
    const out = await sessionMemoryCompact(source, 15_000, { entries: conversation, bounds, thresholdTokens: 1e9, tokensOf: charTokens });
    assert.ok(out.ok);
    assert.deepEqual(order, ['wait 15000', 'read']);
  });
});

describe('full compaction', () => {
  const SNAPSHOT = path.join(__dirname, 'snapshots', 'summaryRequest.md');

  it('asks with a request that matches the snapshot (UPDATE_SNAPSHOTS=1 to accept a change)', () => {
    const text = `## Without focus\n\n${summaryRequest()}\n\n## With focus\n\n${summaryRequest('the database migration')}\n`;
    assertSnapshot(SNAPSHOT, text);
    for (const s of SUMMARY_SECTIONS) assert.ok(summaryRequest().includes(s));
    assert.ok(summaryRequest().startsWith(SUMMARY_REQUEST_MARKER));
  });

  it('sends the conversation with the same system prompt and tools, then the request; keeps the latest prompt', async () => {
    const client = new ScriptedClient([SUMMARY_ANSWER]);
    const progress: CompactProgress[] = [];
    const system = [{ type: 'text' as const, text: 'main system prompt' }];
    const tools = [{ name: 'Read', description: 'read', input_schema: { type: 'object' } }];
    const out = await fullCompact({
      entries: conversation, tokensOf: charTokens, micro: { keepRecent: 5, maxChars: 2_000 }, focus: 'the parser',
      summarizer: { client, model: 'm', maxTokens: 500, system, tools }, onProgress: (p) => progress.push(p),
    });
    assert.ok(out.ok);
    const req = client.requests[0];
    assert.equal(req.system, system);
    assert.equal(req.tools, tools);
    const last = req.messages[req.messages.length - 1];
    const lastText = JSON.stringify(last.content);
    assert.ok(lastText.includes(SUMMARY_REQUEST_MARKER) && lastText.includes('the parser'));
    assert.equal(req.messages.length, conversation.length, 'the request text joins the final user message');
    assert.deepEqual(progress.map((p) => p.phase), ['started', 'streaming', 'done']);
    const messages = out.result.entries.map((e) => e.message);
    assert.equal(messages.length, 1);
    const blocks = messages[0].content as Array<{ type: string; text: string }>;
    assert.match(blocks[0].text, /<summary>\n1\. Request and intent: test\.\n9\. Next step: none\.\n<\/summary>/);
    assert.doesNotMatch(blocks[0].text, /analysis/);
    const latest = conversation[conversation.length - 1].message.content;
    assert.deepEqual(blocks.slice(1), typeof latest === 'string' ? [{ type: 'text', text: latest }] : latest);
  });

  it('leaves the oldest rounds out of the request when it is too long, and gives up after three tries', async () => {
    const tooLong = () => new PromptTooLongError('too long', 300_000, 200_000);
    const client = new ScriptedClient([tooLong(), SUMMARY_ANSWER]);
    const base = { entries: conversation, tokensOf: charTokens, micro: { keepRecent: 5, maxChars: 2_000 } };
    const out = await fullCompact({ ...base, summarizer: { client, model: 'm', maxTokens: 500, system: [], tools: [] } });
    assert.ok(out.ok);
    assert.ok(client.requests[1].messages.length < client.requests[0].messages.length);
    assert.equal(requestProblem(client.requests[1].messages), null);
    const failing = new ScriptedClient([tooLong()]);
    const failed = await fullCompact({ ...base, summarizer: { client: failing, model: 'm', maxTokens: 500, system: [], tools: [] } });
    assert.equal(failed.ok, false);
    assert.equal(failing.requests.length, 3);
  });

  it('fails on an empty answer, and reads a summary without tags', async () => {
    const out = await fullCompact({ entries: conversation, tokensOf: charTokens, micro: { keepRecent: 5, maxChars: 2_000 }, summarizer: { client: new ScriptedClient(['<analysis>only thinking</analysis>']), model: 'm', maxTokens: 10, system: [], tools: [] } });
    assert.equal(out.ok ? 'ok' : out.code, 'empty-summary');
    assert.equal(extractSummary('<analysis>x</analysis>\nPlain summary.'), 'Plain summary.');
    assert.equal(extractSummary('<summary>cut off'), 'cut off');
  });
});

describe('reactive compaction', () => {
  it('fits under the limit by dropping whole rounds after microcompact, without a model call', async () => {
    const before = sumTokens(conversation, charTokens);
    const limit = Math.floor(before / 3);
    const out = await reactiveCompact({
      entries: conversation, error: new PromptTooLongError('x', before, limit), attempt: 1, contextWindow: limit,
      tokensOf: charTokens, micro: { keepRecent: 5, maxChars: 2_000 },
    });
    assert.ok(out.ok);
    assert.ok(out.result.tokensAfter <= limit, `${out.result.tokensAfter} <= ${limit}`);
    assert.equal(out.result.modelCalls, 0);
    assert.match(out.result.summaryText ?? '', /earlier messages were removed/);
    assert.equal(requestProblem(out.result.entries.map((e) => e.message)), null);
  });
});

describe('settings', () => {
  it('falls back to defaults for bad values and keeps the marks in order', () => {
    const s = resolveCompactionSettings({ microcompactPercent: 90, sessionMemoryPercent: 70, fullPercent: 'x' as unknown as number, keepMinTokens: -1, auto: 'yes' as unknown as boolean });
    assert.equal(s.microcompactPercent, 90);
    assert.equal(s.sessionMemoryPercent, 90);
    assert.equal(s.fullPercent, 100);
    assert.equal(s.keepMinTokens, 10_000);
    assert.equal(s.auto, true);
    assert.equal(resolveCompactionSettings().keepMaxTokens, 40_000);
  });
});

describe('planForUsage', () => {
  it('picks the stage by the mark reached (60 / 80 / 100 percent of the window by default)', () => {
    const s = resolveCompactionSettings({ contextWindow: 100_000 });
    const plan = (used: number) => planForUsage(used, s);
    assert.deepEqual([59_999, 60_000, 79_999, 80_000, 99_999, 100_000, 250_000].map(plan), ['none', 'micro', 'micro', 'auto', 'auto', 'full', 'full']);
    const custom = resolveCompactionSettings({ contextWindow: 1_000, microcompactPercent: 50, sessionMemoryPercent: 70, fullPercent: 90 });
    assert.deepEqual([499, 500, 700, 900].map((u) => planForUsage(u, custom)), ['none', 'micro', 'auto', 'full']);
  });
});
