// DESIGN 5: "prompt is too long" is recovered from at most 3 times per model call, however willing the
// recovery is. Here the recovery always offers a list; the loop must still stop after three.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ScriptedReply } from '../../../src/testServer/anthropicTestServer';
import { startSession } from '../support/agentHarness';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';

const server = useTestServer();
const tempDir = useTempDirs();
const tooLong: ScriptedReply = {
  error: { status: 400, type: 'invalid_request_error', message: 'prompt is too long: 250000 tokens > 200000 maximum' },
};

describe('prompt is too long', () => {
  it("is recovered from three times per model call, then the turn fails with the API's error", async () => {
    let recoveries = 0;
    const h = await startSession(server, {
      workspace: tempDir('engram-rc-ws-'),
      dataDir: tempDir('engram-rc-data-'),
      recoverPromptTooLong: async ({ messages }) => {
        recoveries++;
        return messages.slice();
      },
    });
    server.enqueue(tooLong, tooLong, tooLong, tooLong);
    const r = await h.session.agent.runTurn('a big request');
    assert.equal(recoveries, 3);
    assert.equal(server.requests.length, 4, 'the first try and three retries');
    assert.equal(r.reason, 'error');
    assert.match(r.error?.message ?? '', /too long for the model \(250000 tokens/);
  });
});
