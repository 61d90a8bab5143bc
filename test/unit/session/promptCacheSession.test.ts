// The prompt cache as a session sees it (issue 24), against the test server's simulated cache on one
// simulated clock: the TTL in use goes out on every breakpoint, the automatic TTL follows the user's
// pace, the cost line's estimate matches the next request's actual usage, the cache expires exactly at
// its TTL, a compaction makes the next request rewrite the conversation, and a resume keeps the state.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AnthropicModelClient } from '../../../src/core/llm/anthropicClient';
import { openEngramSession } from '../../../src/core/session/openEngramSession';
import { SettingsStore } from '../../../src/core/settings/engramSettings';
import type { LoggedRequest } from '../../../src/testServer/anthropicTestServer';
import {
  allowAll,
  assertNear,
  billed,
  costNow,
  MIN,
  QUIET,
  readTurn,
  wholePrompt,
  withRig as withCacheRig,
  type Rig,
} from '../support/cacheRig';
import { useTempDirs } from '../support/tempDirs';

const tempDir = useTempDirs();
const withRig = (fn: (rig: Rig) => Promise<void>): Promise<void> => withCacheRig(tempDir, fn);

function cacheControls(r: LoggedRequest): unknown[] {
  return JSON.stringify(r.body).match(/"cache_control":\{[^}]*\}/g) ?? [];
}

describe('the prompt cache of a session', () => {
  it('sends the TTL in use on every breakpoint of every request: 1h when set', async () => {
    await withRig(async (rig) => {
      const session = await rig.open({ 'promptCache.ttl': '1h' });
      await readTurn(rig, session, 'Read big.txt');
      assert.equal(rig.server.requests.length, 2);
      for (const r of rig.server.requests) {
        const all = cacheControls(r);
        assert.ok(all.length >= 2);
        for (const c of all) assert.equal(c, '"cache_control":{"type":"ephemeral","ttl":"1h"}');
      }
      assert.ok((rig.server.requests[1].usage?.cache_creation?.ephemeral_1h_input_tokens ?? 0) > 1_000);
      session.dispose();
    });
  });

  it('auto: 5 minutes while the user is quick, 1 hour once over a sixth of the gaps pass 5 minutes', async () => {
    await withRig(async (rig) => {
      const session = await rig.open({});
      rig.server.enqueue({ content: [{ type: 'text', text: 'one' }] });
      await session.runTurn('first');
      rig.clock.t += 2 * MIN;
      rig.server.enqueue({ content: [{ type: 'text', text: 'two' }] });
      await session.runTurn('second, two minutes later');
      rig.clock.t += 12 * MIN;
      rig.server.enqueue({ content: [{ type: 'text', text: 'three' }] });
      await session.runTurn('third, twelve minutes later: one gap in two is slow');
      const ttls = rig.server.requests.map((r) => (cacheControls(r)[0] as string).includes('1h'));
      assert.deepEqual(ttls, [false, false, true]);
      session.dispose();
    });
  });

  it('estimates the next request within 5% of what the server reports, warm and then cold', async () => {
    await withRig(async (rig) => {
      const session = await rig.open({ 'promptCache.ttl': '5m' });
      await readTurn(rig, session, 'Read big.txt');
      const prompt = 'And what does it compute, exactly? Answer in one line.';
      rig.clock.t += 4 * MIN;
      const warm = costNow(session, prompt);
      assert.equal(warm.warm, true);
      assert.equal(warm.leftMs, MIN, 'counted from the last request, which read the first one');
      rig.server.enqueue({ content: [{ type: 'text', text: 'compute(1, 2)' }] });
      await session.runTurn(prompt);
      const sent = billed(rig.server.requests[2]);
      const total = wholePrompt(sent);
      assertNear(warm.ifWarm, sent, 0.05);
      assert.ok(Math.abs(warm.ifWarm.read - sent.read) <= 0.05 * total);
      assert.ok(sent.read > 0.8 * total, 'warm: the conversation was read');

      // Five minutes after the last request, to the millisecond: cold, and everything is written again.
      rig.clock.t += 5 * MIN - 1;
      assert.equal(costNow(session).warm, true);
      rig.clock.t += 1;
      const cold = costNow(session, prompt);
      assert.equal(cold.warm, false);
      rig.server.enqueue({ content: [{ type: 'text', text: 'again' }] });
      await session.runTurn(prompt);
      const after = billed(rig.server.requests[3]);
      assert.equal(after.read, 0, 'the server expired it too');
      const sentCold = after.input + after.write;
      assert.ok(Math.abs(cold.ifCold.write - sentCold) <= 0.05 * sentCold, `${cold.ifCold.write} vs ${sentCold}`);
      session.dispose();
    });
  });

  it("starts the first message's estimate from the API's count of the prompt and tools (count_tokens)", async () => {
    await withRig(async (rig) => {
      const session = await rig.open({ 'promptCache.ttl': '5m' });
      assert.equal(await session.promptCounted, true, 'the gauge took the count');
      assert.equal(rig.server.counts.length, 1, 'one count, in the background, at open');
      assert.equal(rig.server.requests.length, 0, 'nothing was sent to the model');
      const asked = rig.server.counts[0];
      assert.equal(asked.body.messages.length, 1, 'the prompt and tools, with one probe message');
      assert.ok(asked.body.tools && asked.body.tools.length > 0);

      const prompt = 'What does big.txt compute? One line, please.';
      const first = costNow(session, prompt);
      assert.equal(first.warm, false, 'nothing was cached yet');
      rig.server.enqueue({ content: [{ type: 'text', text: 'compute(1, 2)' }] });
      await session.runTurn(prompt);
      assertNear(first.ifCold, billed(rig.server.requests[0]), 0.01);
      session.dispose();
    });
  });

  it('keeps the local estimate when the endpoint cannot count, and says so in the log', async () => {
    await withRig(async (rig) => {
      const lines: string[] = [];
      const real = new AnthropicModelClient({ apiKey: 'k', baseUrl: rig.server.url });
      const session = await openEngramSession(
        {
          cwd: rig.cwd,
          dataDir: rig.dataDir,
          // A proxy without count_tokens: 404 on the endpoint.
          client: {
            stream: (req, handlers, signal) => real.stream(req, handlers, signal),
            countTokens: (req) =>
              // The Anthropic API's client always counts.
              new AnthropicModelClient({ apiKey: 'k', baseUrl: `${rig.server.url}/nope` }).countTokens!(req),
          },
          trusted: true,
          permissionPrompt: allowAll,
          version: '0.0.0-test',
          entrypoint: 'vscode',
          logger: { info: (m) => lines.push(m), warn: (m) => lines.push(m), error: (m) => lines.push(m) },
        },
        new SettingsStore(QUIET),
      );
      const estimated = session.compaction.gauge.fixedTokens;
      assert.equal(await session.promptCounted, false);
      assert.equal(session.compaction.gauge.fixedTokens, estimated, 'the estimate stays');
      assert.ok(
        lines.some((l) => /count_tokens failed/.test(l)),
        lines.join('\n'),
      );
      session.dispose();
    });
  });

  it('after a compaction the next request rewrites the conversation: only the system prompt is read', async () => {
    await withRig(async (rig) => {
      const session = await rig.open({ 'promptCache.ttl': '5m' });
      await readTurn(rig, session, 'Read big.txt');
      const before = costNow(session);
      rig.server.enqueue({
        content: [
          { type: 'text', text: '<analysis>a</analysis>\n<summary>\n1. Primary Request: read big.txt\n</summary>' },
        ],
      });
      const result = await session.compactNow('full');
      assert.equal(result.ok, true, result.reason);
      assert.equal(await session.promptCounted, true, 'the rebuilt prompt was counted again');
      assert.equal(rig.server.counts.length, 2);
      const after = costNow(session);
      assert.ok(after.warm, 'the system prompt and tools are still cached');
      const fixed = session.compaction.gauge.fixedTokens;
      assert.ok(Math.abs(after.ifWarm.read - fixed) <= 0.01 * fixed, `${after.ifWarm.read} vs ${fixed}`);
      assert.ok(after.ifWarm.read < before.ifWarm.read / 2);
      rig.server.enqueue({ content: [{ type: 'text', text: 'on it' }] });
      await session.runTurn('Go on from the summary.');
      const sent = billed(rig.server.requests.at(-1) as LoggedRequest);
      assert.ok(
        Math.abs(after.ifWarm.read - sent.read) <= 0.01 * sent.read,
        `read ${sent.read}, estimated ${after.ifWarm.read}`,
      );
      session.dispose();
    });
  });

  it('a resumed session starts from its transcript: warm until the TTL after the last response', async () => {
    await withRig(async (rig) => {
      const first = await rig.open({ 'promptCache.ttl': '1h' });
      await readTurn(rig, first, 'Read big.txt');
      const sessionId = first.sessionId;
      first.dispose();
      const resumed = await rig.open({ 'promptCache.ttl': '1h' }, sessionId);
      // The transcript's clock is the system's; its last response is "now" in real time.
      const state = resumed.promptCache.cost(resumed.settings.model, 5_000, 1_000);
      assert.ok(state.ifWarm.read > 4_000, 'what the last request cached is read');
      resumed.dispose();
    });
  });
});
