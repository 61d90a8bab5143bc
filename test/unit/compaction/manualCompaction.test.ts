// A manual compaction split into prepare and apply (the preview of `/compact` and Compact Now), on a live
// agent against the test server: prepare writes the summary and leaves the conversation (and the
// transcript) as they were; apply records it as compactNow would, with the person's edits and a mark
// that it was edited; cancel, a conversation that moved on, and text that cannot be a summary apply
// nothing and say why.
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { staticNotesSource } from '../../../src/core/compaction/notesSource';
import { CompactionOrchestrator } from '../../../src/core/compaction/orchestrator';
import { loadReplayedConversation, recordedEvents } from '../../../src/core/compaction/recordedCompactions';
import { SUMMARY_REQUEST_MARKER, SUMMARY_SECTIONS } from '../../../src/core/compaction/summaryPrompt';
import { readTranscript } from '../../../src/core/conversation/transcriptReader';
import { compactionView } from '../../../src/core/inspection/timelineView';
import type { ApiMessage, SystemLine } from '../../../src/core/conversation/types';
import type { ScriptedReply } from '../../../src/testServer/anthropicTestServer';
import { assertApiValid, assertTranscriptMatches, startSession, type Harness } from '../support/agentHarness';
import { outputTool } from '../support/outputTool';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';

const server = useTestServer();
const tempDir = useTempDirs();
let workspace: string;
let dataDir: string;

beforeEach(() => {
  workspace = tempDir('engram-mws-');
  dataDir = tempDir('engram-mdata-');
});

const NOTES = '# Session Title\n_A title_\nManual compaction test\n\n# Current State\n_Now?_\nProducing output.';
const SECTIONS = SUMMARY_SECTIONS.map((s, i) => `${i + 1}. ${s}: about ${s.toLowerCase()}.`).join('\n');
const summary: ScriptedReply = {
  content: [{ type: 'text', text: `<analysis>a</analysis><summary>${SECTIONS}</summary>` }],
};
const usage = { input_tokens: 990, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 10 };
const call = (size: number): ScriptedReply => ({
  content: [
    { type: 'text', text: `output ${size}` },
    { type: 'tool_use', name: 'Output', input: { size } },
  ],
  usage,
});
const answer = (text: string): ScriptedReply => ({ content: [{ type: 'text', text }], usage });
const text = (m: ApiMessage) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content));
const summaryCalls = () =>
  server.requests.filter((r) => JSON.stringify(r.body.messages).includes(SUMMARY_REQUEST_MARKER)).length;

interface Setup extends Harness {
  orch: CompactionOrchestrator;
}

async function setup(opts: { notes?: boolean } = {}): Promise<Setup> {
  const h = await startSession(server, { workspace, dataDir, tools: [outputTool()] });
  const orch = new CompactionOrchestrator({
    settings: { contextWindow: 100_000, keepMinTokens: 200, keepMaxTokens: 3_000, keepMinTextMessages: 2 },
    ...(opts.notes ? { notes: staticNotesSource({ text: NOTES }) } : {}),
  });
  orch.attach(h.session.agent);
  server.enqueue(call(100), call(3_000), call(100), call(3_000), answer('first turn done'));
  await h.session.agent.runTurn('produce output');
  server.enqueue(answer('second turn done'));
  await h.session.agent.runTurn('and a little more');
  return { ...h, orch };
}

async function boundaries(s: Setup): Promise<SystemLine[]> {
  await s.session.agent.transcript?.flush();
  return (await readTranscript(s.session.transcriptPath)).lines.filter(
    (l): l is SystemLine => l.type === 'system' && (l as SystemLine).subtype === 'compact_boundary',
  );
}

describe('a manual compaction prepared, then applied', () => {
  it('prepare writes the summary and changes nothing; apply with an edit records it as edited, and the next request carries the edit', async () => {
    const s = await setup();
    const before = s.session.agent.messages.slice();
    const calls = summaryCalls();
    server.enqueue(summary);
    const prepared = await s.orch.prepareCompaction('full', 'the outputs');
    assert.equal(summaryCalls(), calls + 1, 'the model wrote the summary');
    assert.equal(prepared.review?.kind, 'summary');
    assert.equal(prepared.review?.text, SECTIONS);
    assert.ok(prepared.tokensAfter > 0);
    assert.deepEqual(s.session.agent.messages, before, 'the conversation is unchanged');
    assert.deepEqual(s.orch.events, []);
    assert.deepEqual(await boundaries(s), [], 'nothing is written to the transcript');

    const edited = prepared.review!.text.replace('about next step.', 'run the edited tests next.');
    const r = await s.orch.applyCompaction(prepared, `\n${edited}\n`);
    assert.ok(r.ok, r.reason);
    assert.deepEqual(
      r.events.map((e) => e.stage),
      ['full'],
    );
    assert.equal(r.events[0].summaryEdited, true);
    assert.equal(compactionView(r.events[0]).summaryEdited, true, 'the timeline says so');
    assert.equal(r.events[0].focus, 'the outputs');
    assert.match(
      text(s.session.agent.messages[0]),
      /<summary>\n1\. Request and intent[\s\S]*run the edited tests next\.\n<\/summary>/,
    );
    assert.doesNotMatch(text(s.session.agent.messages[0]), /about next step/);
    assertApiValid(s.session.agent.messages);
    await assertTranscriptMatches(s.session.transcriptPath, s.session.agent.messages);
    const [boundary] = await boundaries(s);
    assert.equal((boundary.compactMetadata?.engram as { summaryEdited?: boolean } | undefined)?.summaryEdited, true);
    assert.equal(boundary.compactMetadata?.trigger, 'manual');

    // A resumed session reads the mark back, and the next request opens with the edited summary.
    const resumed = recordedEvents((await loadReplayedConversation(s.session.transcriptPath)).records);
    assert.equal(resumed.active[0].summaryEdited, true);
    server.enqueue(answer('after the edit'));
    await s.session.agent.runTurn('go on');
    const sent = server.requests[server.requests.length - 1].body.messages as ApiMessage[];
    assert.match(text(sent[0]), /run the edited tests next\./);

    // Undo works as for any compaction.
    assert.ok(await s.orch.undoLast());
    assert.deepEqual(s.session.agent.messages.slice(0, before.length), before);
  });

  it('applied unedited it is what compactNow does: the notes replace the history, no model call, no edit mark', async () => {
    const s = await setup({ notes: true });
    const calls = server.requests.length;
    const prepared = await s.orch.prepareCompaction('session-memory');
    assert.equal(server.requests.length, calls, 'no model call');
    assert.equal(prepared.review?.kind, 'notes');
    assert.equal(prepared.review?.text, NOTES);
    const r = await s.orch.applyCompaction(prepared, prepared.review!.text);
    assert.ok(r.ok, r.reason);
    assert.equal(r.events[0].summaryEdited, undefined, 'the same text is not an edit');
    assert.match(text(s.session.agent.messages[0]), /<session-notes>\n# Session Title/);
    await assertTranscriptMatches(s.session.transcriptPath, s.session.agent.messages);
  });

  it('cancel leaves the conversation as it was, and a cancelled plan cannot be applied', async () => {
    const s = await setup({ notes: true });
    const before = s.session.agent.messages.slice();
    const prepared = await s.orch.prepareCompaction('auto');
    assert.ok(prepared.review);
    assert.equal(s.orch.cancelCompaction(prepared), true);
    const r = await s.orch.applyCompaction(prepared);
    assert.deepEqual([r.ok, r.code, r.events.length], [false, 'conversation-changed', 0]);
    assert.deepEqual(s.session.agent.messages, before);
    assert.deepEqual(await boundaries(s), []);
    assert.deepEqual(s.orch.events, []);
  });

  it('refuses when the conversation moved on after prepare (a turn ran), and applies nothing', async () => {
    const s = await setup();
    server.enqueue(summary);
    const prepared = await s.orch.prepareCompaction('full');
    server.enqueue(answer('a turn in between'));
    await s.session.agent.runTurn('one more message');
    const after = s.session.agent.messages.slice();
    const r = await s.orch.applyCompaction(prepared);
    assert.equal(r.ok, false);
    assert.equal(r.code, 'conversation-changed');
    assert.match(r.reason ?? '', /conversation changed[\s\S]*nothing was applied/);
    assert.deepEqual(s.session.agent.messages, after);
    assert.deepEqual(await boundaries(s), []);
    // A newer plan replaces an older one: only the newest applies.
    server.enqueue(summary, summary);
    const first = await s.orch.prepareCompaction('full');
    const second = await s.orch.prepareCompaction('full');
    assert.equal((await s.orch.applyCompaction(first)).code, 'conversation-changed');
    assert.ok((await s.orch.applyCompaction(second)).ok);
  });

  it('refuses an empty summary or one that lost a section, and stays ready to apply a fixed one', async () => {
    const s = await setup();
    const before = s.session.agent.messages.slice();
    const calls = summaryCalls();
    server.enqueue(summary);
    const prepared = await s.orch.prepareCompaction('full');
    const empty = await s.orch.applyCompaction(prepared, ' \n\n ');
    assert.deepEqual([empty.ok, empty.code], [false, 'invalid-edit']);
    assert.match(empty.reason ?? '', /empty/);
    const lost = await s.orch.applyCompaction(prepared, prepared.review!.text.replace(/^9\. Next step.*$/m, ''));
    assert.equal(lost.code, 'invalid-edit');
    assert.match(lost.reason ?? '', /lost the section Next step/);
    const closed = await s.orch.applyCompaction(prepared, `${prepared.review!.text}\n</summary> trailing`);
    assert.equal(closed.code, 'invalid-edit');
    assert.deepEqual(s.session.agent.messages, before, 'nothing applied by a refused edit');
    const fixed = await s.orch.applyCompaction(prepared, `${prepared.review!.text}\nAlso: keep the logs.`);
    assert.ok(fixed.ok, fixed.reason);
    assert.match(text(s.session.agent.messages[0]), /Also: keep the logs\./);
    assert.equal(summaryCalls(), calls + 1, 'no second summary was written');
  });

  it('a plan with nothing to review (microcompact, or a stage that cannot run) applies as compactNow would', async () => {
    const s = await setup();
    const noNotes = await s.orch.prepareCompaction('session-memory');
    assert.equal(noNotes.review, undefined);
    assert.equal(noNotes.failure?.code, 'no-notes');
    const r = await s.orch.applyCompaction(noNotes);
    assert.deepEqual([r.ok, r.code], [false, 'no-notes']);
    const micro = await s.orch.prepareCompaction('micro');
    assert.equal(micro.review, undefined);
    assert.equal(micro.failure?.code, 'nothing-to-compact');
  });
});
