// The orchestrator on a live agent against the test server: which stage each mark fires, what reaches
// the API, what the transcript holds afterwards (read back, it is the conversation in memory), the
// reactive recovery, the stop after three failures, and undo.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, it } from 'node:test';
import { undoCompaction } from '../../../src/core/compaction/events';
import { staticNotesSource, type NotesSource } from '../../../src/core/compaction/notesSource';
import type { SessionNotes } from '../../../src/core/memory/sessionNotes/updater';
import { CompactionOrchestrator, type OrchestratorEvent } from '../../../src/core/compaction/orchestrator';
import { SUMMARY_REQUEST_MARKER } from '../../../src/core/compaction/summaryPrompt';
import type { CompactionSettings } from '../../../src/core/compaction/settings';
import { readTranscript } from '../../../src/core/conversation/transcriptReader';
import type { ApiMessage, SystemLine } from '../../../src/core/conversation/types';
import type { Tool } from '../../../src/core/tools/tool';
import type { ScriptedReply } from '../../../src/testServer/anthropicTestServer';
import { assertApiValid, assertTranscriptMatches, startSession, type Harness } from '../support/agentHarness';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';
import { outputTool as makeOutputTool } from '../support/outputTool';

const server = useTestServer();
const tempDir = useTempDirs();
let workspace: string;
let dataDir: string;

beforeEach(() => {
  workspace = tempDir('engram-cws-');
  dataDir = tempDir('engram-cdata-');
});

// The session notes feature plugs in as it is (checked by the type checker).
export const notesAsSource = (notes: SessionNotes): NotesSource => notes;

const NOTES =
  '# Session Title\n_A title_\nOrchestrator test\n\n# Current State\n_Now?_\nGenerating output of several sizes.';
const WINDOW = 100_000;

/** A tool whose output is `size` characters, so tests choose how much each result weighs. */
const outputTool: Tool = makeOutputTool();

const usage = (total: number) => ({
  input_tokens: total - 10,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  output_tokens: 10,
});
const call = (size: number, reported = 1_000): ScriptedReply => ({
  content: [
    { type: 'text', text: `output ${size}` },
    { type: 'tool_use', name: 'Output', input: { size } },
  ],
  usage: usage(reported),
});
const answer = (text: string, reported = 1_000): ScriptedReply => ({
  content: [{ type: 'text', text }],
  usage: usage(reported),
});
const summary: ScriptedReply = {
  content: [{ type: 'text', text: '<analysis>a</analysis><summary>1. Request and intent: produce output.</summary>' }],
};

interface Setup extends Harness {
  orch: CompactionOrchestrator;
  seen: OrchestratorEvent[];
}

async function setup(
  settings: Partial<CompactionSettings>,
  opts: { notes?: boolean; mainThread?: boolean } = {},
): Promise<Setup> {
  const h = await startSession(server, { workspace, dataDir, tools: [outputTool] });
  const orch = new CompactionOrchestrator({
    settings: { contextWindow: WINDOW, keepMinTokens: 200, keepMaxTokens: 3_000, keepMinTextMessages: 2, ...settings },
    ...(opts.notes ? { notes: staticNotesSource({ text: NOTES }) } : {}),
    ...(opts.mainThread === false ? { mainThread: false } : {}),
  });
  orch.attach(h.session.agent);
  const seen: OrchestratorEvent[] = [];
  orch.on((e) => seen.push(e));
  return { ...h, orch, seen };
}

/** A first turn with `sizes.length` tool results, its final answer reporting `reported` tokens in context. */
async function firstTurn(s: Setup, sizes: number[], reported: number): Promise<void> {
  server.enqueue(...sizes.map((n) => call(n)), answer('first turn done', reported));
  const r = await s.session.agent.runTurn('produce output');
  assert.equal(r.reason, 'end_turn');
}

const stages = (s: Setup) => s.orch.events.map((e) => e.stage);
const lastRequest = () => server.requests[server.requests.length - 1].body.messages as ApiMessage[];
const text = (m: ApiMessage) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content));

describe('automatic compaction before a model call', () => {
  it('below 60% does nothing', async () => {
    const s = await setup({});
    await firstTurn(s, [9_000, 9_000, 9_000, 9_000, 9_000, 9_000, 9_000], 55_000);
    server.enqueue(answer('second'));
    await s.session.agent.runTurn('again');
    assert.deepEqual(stages(s), []);
  });

  it('from 60% microcompacts the old tool results (the transcript keeps them whole)', async () => {
    const s = await setup({});
    await firstTurn(s, [9_000, 9_000, 9_000, 9_000, 9_000, 9_000, 9_000], 65_000);
    server.enqueue(answer('second'));
    await s.session.agent.runTurn('again');
    assert.deepEqual(stages(s), ['micro']);
    const sent = lastRequest();
    assert.match(text(sent[2]), /Output trimmed to save context: showing the first 2,000 of 9,000 characters/);
    assert.doesNotMatch(text(sent[sent.length - 2]), /trimmed/);
    assert.equal(s.orch.events[0].trimmedToolUseIds?.length, 2);
    assert.ok(s.orch.events[0].replacedIds.length === 2, 'the line uuids of the two changed messages');
    assertApiValid(s.session.agent.messages);
    const lines = (await readTranscript(s.session.transcriptPath)).lines;
    assert.ok(lines.some((l) => l.type === 'system' && (l as SystemLine).subtype === 'microcompact_boundary'));
  });

  it('from 80% replaces the old part by the session notes, with no model call; the transcript reads back the same', async () => {
    const s = await setup({}, { notes: true });
    await firstTurn(s, [100, 100, 100, 100], 85_000);
    server.enqueue(answer('second'));
    const requestsBefore = server.requests.length;
    await s.session.agent.runTurn('again');
    assert.deepEqual(stages(s), ['session-memory']);
    assert.equal(server.requests.length, requestsBefore + 1, 'no extra model call');
    assert.match(text(lastRequest()[0]), /<session-notes>/);
    await assertTranscriptMatches(s.session.transcriptPath, s.session.agent.messages);
    const boundary = (await readTranscript(s.session.transcriptPath)).lines.find(
      (l) => l.type === 'system' && (l as SystemLine).subtype === 'compact_boundary',
    ) as SystemLine;
    assert.equal(boundary.compactMetadata?.trigger, 'auto');
    assert.equal(boundary.compactMetadata?.stage, 'session-memory');
    assert.ok(boundary.compactMetadata?.preservedSegment, 'kept lines are referenced, not copied');

    // A second compaction whose kept part reaches into the first one's preserved segment.
    server.enqueue(answer('third', 90_000));
    await s.session.agent.runTurn('third prompt');
    server.enqueue(answer('fourth'));
    await s.session.agent.runTurn('fourth prompt');
    assert.deepEqual(stages(s), ['session-memory', 'session-memory']);
    const all = (await readTranscript(s.session.transcriptPath)).lines;
    const boundaries = all
      .map((l, i) => [l, i] as const)
      .filter(([l]) => l.type === 'system' && (l as SystemLine).subtype === 'compact_boundary');
    const head = (boundaries[1][0] as SystemLine).compactMetadata?.preservedSegment as { headUuid: string } | undefined;
    assert.ok(head, 'the second compaction also references its kept lines');
    assert.ok(
      all.findIndex((l) => l.uuid === head.headUuid) < boundaries[0][1],
      'and they start before the first boundary',
    );
    await assertTranscriptMatches(s.session.transcriptPath, s.session.agent.messages);
    assertApiValid(s.session.agent.messages);
  });

  it('at 100%, when the notes cannot replace anything, writes a full summary (one model call) and keeps the latest prompt', async () => {
    const s = await setup({}, { notes: true });
    await firstTurn(s, [100, 100], 101_000);
    server.enqueue(summary, answer('after summary'));
    await s.session.agent.runTurn('the latest prompt');
    assert.deepEqual(stages(s), ['full']);
    const summaryCall = server.requests[server.requests.length - 2].body.messages as ApiMessage[];
    assert.ok(text(summaryCall[summaryCall.length - 1]).includes(SUMMARY_REQUEST_MARKER));
    const sent = lastRequest();
    assert.equal(sent.length, 1);
    assert.match(text(sent[0]), /Request and intent: produce output[\s\S]*the latest prompt/);
    assert.equal(s.orch.events[0].modelCalls, 1);
    assert.ok(s.seen.some((e) => e.type === 'progress' && e.progress.phase === 'done'));
    await assertTranscriptMatches(s.session.transcriptPath, s.session.agent.messages);
  });

  it('falls back to a full summary when the notes are unavailable', async () => {
    const s = await setup({});
    await firstTurn(s, [100, 100], 85_000);
    server.enqueue(summary, answer('after summary'));
    await s.session.agent.runTurn('next');
    assert.deepEqual(stages(s), ['full']);
    assert.ok(s.seen.some((e) => e.type === 'unavailable' && e.stage === 'session-memory' && e.code === 'no-notes'));
  });

  it('stops after three failures in a row and says so; a manual compaction turns it back on', async () => {
    const s = await setup({});
    await firstTurn(s, [100], 101_000);
    const refused: ScriptedReply = {
      error: { status: 400, type: 'invalid_request_error', message: 'summaries are refused in this test' },
    };
    for (let i = 0; i < 3; i++) {
      server.enqueue(refused, answer(`answer ${i}`, 101_000));
      await s.session.agent.runTurn(`turn ${i}`);
    }
    const stopped = s.seen.filter((e) => e.type === 'autoCompactionStopped');
    assert.equal(stopped.length, 1);
    assert.equal(s.orch.autoActive, false);
    assert.equal(s.seen.filter((e) => e.type === 'failed').length, 3);
    const before = server.requests.length;
    server.enqueue(answer('no compaction tried'));
    await s.session.agent.runTurn('turn 4');
    assert.equal(server.requests.length, before + 1, 'no summary request any more');
    server.enqueue(summary);
    const manual = await s.orch.compactNow('full', 'keep the outputs');
    assert.ok(manual.ok);
    assert.equal(s.orch.autoActive, true);
    assert.ok(
      text((server.requests[server.requests.length - 1].body.messages as ApiMessage[]).at(-1) as ApiMessage).includes(
        'keep the outputs',
      ),
    );
  });
});

describe('a summary that is not one', () => {
  it('is asked again with no tools, then the stage fails and the conversation stays as it was', async () => {
    const s = await setup({});
    await firstTurn(s, [100, 100], 1_000);
    const before = s.session.agent.messages.slice();
    const toolInstead: ScriptedReply = {
      content: [
        { type: 'text', text: 'Let me check first.' },
        { type: 'tool_use', name: 'Output', input: { size: 1 } },
      ],
    };
    server.enqueue(toolInstead, toolInstead);
    const out = await s.orch.compactNow('full');
    assert.equal(out.ok, false);
    assert.equal(out.code, 'invalid-summary');
    assert.match(out.reason ?? '', /left as it was/);
    assert.deepEqual(s.session.agent.messages, before);
    assert.deepEqual(stages(s), []);
    const [first, second] = server.requests.slice(-2).map((r) => (r.body.tools ?? []).length);
    assert.ok(first > 0 && second === 0, 'the retry offers no tools');
    assert.ok(s.seen.some((e) => e.type === 'failed' && e.code === 'invalid-summary'));
  });
});

describe('reactive compaction', () => {
  const tooLong: ScriptedReply = {
    error: {
      status: 400,
      type: 'invalid_request_error',
      message: 'prompt is too long: 250000 tokens > 200000 maximum',
    },
  };

  it('recovers from "prompt is too long" with the notes and retries, within three tries', async () => {
    const s = await setup({ auto: false }, { notes: true });
    await firstTurn(s, [3_000, 3_000, 3_000, 3_000, 3_000, 3_000], 1_000);
    server.enqueue(tooLong, tooLong, answer('made it'));
    const r = await s.session.agent.runTurn('big request');
    assert.equal(r.reason, 'end_turn', JSON.stringify(s.seen.filter((e) => e.type !== 'compacted')));
    assert.equal(r.text, 'made it');
    assert.deepEqual(stages(s), ['reactive', 'reactive']);
    assert.ok(s.orch.events.every((e) => e.modelCalls === 0));
    assertApiValid(s.session.agent.messages);
    await assertTranscriptMatches(s.session.transcriptPath, s.session.agent.messages);
  });

  it('gives up after three recoveries for one model call (DESIGN 5: at most 3 times)', async () => {
    const s = await setup({ auto: false }, { notes: true });
    await firstTurn(s, [3_000, 3_000, 3_000, 3_000, 3_000, 3_000, 3_000, 3_000], 1_000);
    const before = server.requests.length;
    server.enqueue(tooLong, tooLong, tooLong, tooLong);
    const r = await s.session.agent.runTurn('big request');
    assert.equal(r.reason, 'error');
    assert.equal(stages(s).filter((st) => st === 'reactive').length, 3);
    assert.equal(server.requests.length - before, 4, 'the first try and three retries');
  });

  it('without notes, writes one summary on the first try', async () => {
    const s = await setup({ auto: false });
    await firstTurn(s, [100, 100, 100], 1_000);
    server.enqueue(tooLong, summary, answer('made it'));
    const r = await s.session.agent.runTurn('big request');
    assert.equal(r.text, 'made it');
    assert.equal(s.orch.events[0].modelCalls, 1);
  });
});

describe('manual compaction and undo', () => {
  it('compacts on demand, undoes it exactly, and the undo is recorded for a resumed session', async () => {
    const s = await setup({}, { notes: true });
    await firstTurn(s, [100, 3_000, 100, 3_000, 100, 3_000, 100], 1_000);
    const before = s.session.agent.messages.slice();
    const r = await s.orch.compactNow('session-memory');
    assert.ok(r.ok, r.reason);
    assert.ok(s.session.agent.messages.length < before.length);
    const event = s.orch.events[0];
    assert.equal(event.trigger, 'manual');
    assert.ok(event.replacedIds.length > 0);

    const lines = (await readTranscript(s.session.transcriptPath)).lines;
    assert.deepEqual(
      undoCompaction(event, lines, s.session.agent.messages),
      before,
      'undone from the transcript alone',
    );

    assert.ok(await s.orch.undoLast());
    assert.deepEqual(s.session.agent.messages, before);
    assert.deepEqual(s.orch.events, []);
    await assertTranscriptMatches(s.session.transcriptPath, s.session.agent.messages);
  });

  it('says why when a stage cannot run, and refuses during a turn', async () => {
    const s = await setup({});
    await firstTurn(s, [100], 1_000);
    const r = await s.orch.compactNow('session-memory');
    assert.deepEqual([r.ok, r.code], [false, 'no-notes']);
    const micro = await s.orch.compactNow('micro');
    assert.deepEqual([micro.ok, micro.code], [false, 'nothing-to-compact']);
  });

  it('re-attaches recent files on the main thread and forgets the other read records; a sub-agent leaves them', async () => {
    for (const mainThread of [true, false]) {
      const s = await setup({}, { notes: true, mainThread });
      await firstTurn(s, [100, 100, 100, 100], 1_000);
      const file = path.join(workspace, 'recent.ts');
      fs.writeFileSync(file, 'export const answer = 42;\n');
      const agent = s.session.agent;
      agent.readFiles.set(file, { mtimeMs: 1, partial: false, touchedAt: 2 });
      agent.readFiles.set(path.join(workspace, 'gone.ts'), { mtimeMs: 1, partial: false, touchedAt: 1 });
      const r = await s.orch.compactNow('auto');
      assert.ok(r.ok, r.reason);
      assert.match(text(agent.messages[0]), /<file path="[^"]*recent\.ts">\nexport const answer = 42;/);
      assert.ok(agent.readFiles.get(file), 'a file re-attached whole may still be edited');
      assert.equal(agent.readFiles.get(path.join(workspace, 'gone.ts')) === undefined, mainThread);
    }
  });
});
