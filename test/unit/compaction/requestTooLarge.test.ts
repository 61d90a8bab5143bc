// Issue #13 class 7: HTTP 413 `request_too_large` mid-session. The API refuses the bytes before it
// counts tokens, so the recovery must shrink the largest blocks (even the newest tool results) and
// send again, instead of ending the turn on an error the person can do nothing about.
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { CompactionOrchestrator } from '../../../src/core/compaction/orchestrator';
import type { ApiMessage } from '../../../src/core/conversation/types';
import type { Tool } from '../../../src/core/tools/tool';
import type { ScriptedReply } from '../../../src/testServer/anthropicTestServer';
import { assertApiValid, assertTranscriptMatches, startSession } from '../support/agentHarness';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';
import { outputTool as makeOutputTool } from '../support/outputTool';

const server = useTestServer();
const tempDir = useTempDirs();
let workspace: string;
let dataDir: string;

beforeEach(() => {
  workspace = tempDir('engram-413ws-');
  dataDir = tempDir('engram-413data-');
});

const outputTool: Tool = makeOutputTool();

const usage = { input_tokens: 990, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 10 };
const call = (size: number): ScriptedReply => ({
  content: [
    { type: 'text', text: `output ${size}` },
    { type: 'tool_use', name: 'Output', input: { size } },
  ],
  usage,
});
const answer = (text: string): ScriptedReply => ({ content: [{ type: 'text', text }], usage });
const summary: ScriptedReply = {
  content: [{ type: 'text', text: '<analysis>a</analysis><summary>1. Request and intent: produce output.</summary>' }],
};
const tooLarge: ScriptedReply = {
  error: { status: 413, type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' },
};

/** The longest tool_result text in a request. */
function largestResult(messages: readonly ApiMessage[]): number {
  let max = 0;
  for (const m of messages) {
    if (typeof m.content === 'string') continue;
    for (const b of m.content) {
      if (b.type !== 'tool_result') continue;
      const text =
        typeof b.content === 'string' ? b.content : (b.content ?? []).map((c) => ('text' in c ? c.text : '')).join('');
      max = Math.max(max, text.length);
    }
  }
  return max;
}

describe('a 413 (request too large) mid-session', () => {
  it('shortens the largest blocks (even the newest), then compacts, and the turn succeeds', async () => {
    const h = await startSession(server, { workspace, dataDir, tools: [outputTool] });
    const orch = new CompactionOrchestrator({
      settings: { contextWindow: 1_000_000, keepMinTokens: 200, keepMaxTokens: 3_000, keepMinTextMessages: 2 },
    });
    orch.attach(h.session.agent);
    server.enqueue(call(400_000), call(100), answer('first turn done'));
    assert.equal((await h.session.agent.runTurn('produce output')).reason, 'end_turn');

    const before = server.requests.length;
    server.enqueue(tooLarge, summary, answer('made it'));
    const r = await h.session.agent.runTurn('next request');
    assert.equal(r.reason, 'end_turn', r.error?.message);
    assert.equal(r.text, 'made it');
    assert.deepEqual(
      orch.events.map((e) => e.stage),
      ['reactive'],
    );
    const sent = server.requests.slice(before).map((q) => q.body.messages as ApiMessage[]);
    assert.equal(sent.length, 3, 'the refused request, the summary, the retry');
    assert.ok(largestResult(sent[0]) >= 400_000);
    for (const [i, messages] of sent.slice(1).entries()) {
      assert.ok(
        largestResult(messages) < 10_000,
        `request ${i + 1} carries the big result shortened (${largestResult(messages)} characters left)`,
      );
    }
    assertApiValid(h.session.agent.messages);
    await assertTranscriptMatches(h.session.transcriptPath, h.session.agent.messages);
  });
});
