// Recall's model mode over real HTTP: the test server's scripted model picks from the index by word
// overlap; a reply that is not the strict JSON, names a file not in the list, or an error falls back to
// the local ranking.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { AgentEvent } from '../../../../src/core/agent/events';
import { AnthropicModelClient } from '../../../../src/core/llm/anthropicClient';
import { attachAutoMemory } from '../../../../src/core/memory/autoMemory/attach';
import { RECALL_PICK_MARKER } from '../../../../src/core/memory/autoMemory/modelRecall';
import { modelPick } from '../../../../src/core/memory/autoMemory/modelRecall';
import { recallForPrompt } from '../../../../src/core/memory/autoMemory/recall';
import { startSession } from '../../support/agentHarness';
import { useTempDirs } from '../../support/tempDirs';
import { useTestServer } from '../../support/testServerFixture';

const server = useTestServer({ demo: true });
const tempDir = useTempDirs();

function folder(): string {
  const dir = path.join(tempDir('engram-rm-'), 'memory');
  fs.mkdirSync(dir, { recursive: true });
  const files: Array<[string, string]> = [
    ['project_deploy.md', 'releases go to Fly.io through GitHub Actions, staging first'],
    ['feedback_css.md', 'styling uses Tailwind utility classes only'],
    ['reference_sentry.md', 'browser errors are reported to the Sentry project shopfront-web'],
  ];
  for (const [file, description] of files)
    fs.writeFileSync(
      path.join(dir, file),
      `---\nname: ${file}\ndescription: ${description}\ntype: project\n---\n\n${description}.\n`,
    );
  fs.writeFileSync(path.join(dir, 'MEMORY.md'), files.map(([f, d]) => `- [${f}](${f}) — ${d}`).join('\n'));
  return dir;
}

describe('recall, model mode', () => {
  it('asks the model once and attaches what it picked', async () => {
    const dir = folder();
    const client = new AnthropicModelClient({ apiKey: 'k', baseUrl: server.url });
    const usage: number[] = [];
    const before = server.requests.length;
    const pick = modelPick({ client, model: 'claude-test', onUsage: (u) => usage.push(u.input_tokens) });
    const result = await recallForPrompt(dir, 'Which Sentry project gets the browser errors?', [], { pick });
    assert.deepEqual(
      result.files.map((f) => f.file),
      ['reference_sentry.md'],
    );
    assert.equal(server.requests.length - before, 1, 'one call');
    assert.equal(usage.length, 1);
    const sent = JSON.stringify(server.requests[before].body.messages);
    assert.match(sent, /project_deploy\.md/, 'the index lines are sent');
    const none = await recallForPrompt(dir, 'Format this JSON with two-space indentation', [], { pick });
    assert.deepEqual(none.files, []);
  });

  it('falls back to the local ranking on a bad reply or an error', async () => {
    const dir = folder();
    const client = new AnthropicModelClient({ apiKey: 'k', baseUrl: server.url });
    const reasons: string[] = [];
    const pick = modelPick({ client, model: 'claude-test', onFallback: (why) => reasons.push(why) });
    const q = 'Which Sentry project gets the browser errors?';
    const local = (await recallForPrompt(dir, q, [])).files.map((f) => f.file);
    assert.deepEqual(local, ['reference_sentry.md']);
    server.enqueue({ content: [{ type: 'text', text: 'I think the Sentry one.' }] });
    assert.deepEqual(
      (await recallForPrompt(dir, q, [], { pick })).files.map((f) => f.file),
      local,
    );
    server.enqueue({ content: [{ type: 'text', text: '{"files": ["../../etc/passwd"]}' }] });
    assert.deepEqual(
      (await recallForPrompt(dir, q, [], { pick })).files.map((f) => f.file),
      local,
    );
    server.enqueue({ error: { status: 400, type: 'invalid_request_error', message: 'bad request' } });
    assert.deepEqual(
      (await recallForPrompt(dir, q, [], { pick })).files.map((f) => f.file),
      local,
    );
    assert.equal(reasons.length, 3, reasons.join('\n'));
    assert.match(reasons[0], /not JSON/);
    assert.match(reasons[1], /not in the list/);
  });

  it('attaches nothing when the model answers none, even where the local ranking would', async () => {
    const dir = folder();
    const client = new AnthropicModelClient({ apiKey: 'k', baseUrl: server.url });
    const reasons: string[] = [];
    const pick = modelPick({ client, model: 'claude-test', onFallback: (why) => reasons.push(why) });
    const q = 'Which Sentry project gets the browser errors?';
    assert.deepEqual(
      (await recallForPrompt(dir, q, [])).files.map((f) => f.file),
      ['reference_sentry.md'],
      'the local ranking would attach it',
    );
    const before = server.requests.length;
    server.enqueue(
      { content: [{ type: 'text', text: '{"files": []}' }] },
      { content: [{ type: 'text', text: 'None.' }] },
    );
    assert.deepEqual((await recallForPrompt(dir, q, [], { pick })).files, []);
    assert.deepEqual((await recallForPrompt(dir, q, [], { pick })).files, []);
    assert.match(
      JSON.stringify(server.requests[before].body.messages),
      /\{\\"files\\": \[\]\} when none would/,
      'the prompt offers none',
    );
    assert.deepEqual(reasons, [], 'none is an answer, not a failure');
  });
});

describe('recall, model mode, in a turn', () => {
  it("counts a pick of none in the turn's figures and attaches nothing", async () => {
    const dir = folder();
    const harness = await startSession(server, {
      workspace: tempDir('engram-rm-ws-'),
      dataDir: tempDir('engram-rm-data-'),
    });
    const handle = attachAutoMemory(harness.session.agent, { memoryDir: dir, recallMode: 'model', extraction: false });
    try {
      const before = server.requests.length;
      server.enqueue(
        { content: [{ type: 'text', text: '{"files": []}' }] },
        { content: [{ type: 'text', text: 'ok' }] },
      );
      await harness.session.agent.runTurn('Which Sentry project gets the browser errors?');
      const sent = server.requests.slice(before);
      assert.equal(sent.length, 2, 'the pick, then the turn');
      assert.doesNotMatch(JSON.stringify(sent[1].body.messages), /engram-memory/, 'nothing attached');
      const end = harness.events.find((e): e is Extract<AgentEvent, { type: 'turnEnd' }> => e.type === 'turnEnd');
      assert.equal(end?.modelCalls, 2, 'the pick counts');
    } finally {
      handle.dispose();
    }
  });

  it("counts the pick's call and tokens in the turn's figures", async () => {
    const dir = folder();
    const harness = await startSession(server, {
      workspace: tempDir('engram-rm-ws-'),
      dataDir: tempDir('engram-rm-data-'),
    });
    const handle = attachAutoMemory(harness.session.agent, { memoryDir: dir, recallMode: 'model', extraction: false });
    try {
      const before = server.requests.length;
      await harness.session.agent.runTurn('Which Sentry project gets the browser errors?');
      const sent = server.requests.slice(before);
      assert.equal(sent.length, 2, 'the pick, then the turn');
      assert.match(JSON.stringify(sent[0].body.messages), new RegExp(RECALL_PICK_MARKER));
      assert.match(JSON.stringify(sent[1].body.messages), /reference_sentry\.md/, 'the picked file is attached');
      const end = harness.events.find((e): e is Extract<AgentEvent, { type: 'turnEnd' }> => e.type === 'turnEnd');
      assert.equal(end?.modelCalls, 2);
      const all = (
        u:
          | {
              input_tokens: number;
              cache_read_input_tokens?: number | null;
              cache_creation_input_tokens?: number | null;
            }
          | undefined,
      ): number => (u?.input_tokens ?? 0) + (u?.cache_read_input_tokens ?? 0) + (u?.cache_creation_input_tokens ?? 0);
      const input = sent.map((r) => all(r.usage));
      assert.ok(input[0] > 0 && input[1] > 0, JSON.stringify(input));
      assert.equal(all(end?.usage), input[0] + input[1]);
      assert.equal(
        end?.usage.output_tokens,
        sent.reduce((n, r) => n + (r.usage?.output_tokens ?? 0), 0),
      );
    } finally {
      handle.dispose();
    }
  });
});
