// The model's contradiction check over real HTTP (the project's test server): one call with the memories
// and the marker, the strict JSON answer read into pairs; a reply that names a memory not sent, pairs one
// with itself, or is not JSON is an error with the reason (never "no contradictions").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AnthropicModelClient } from '../../../../src/core/llm/anthropicClient';
import {
  CONTRADICTION_CHECK_MARKER,
  modelContradictions,
} from '../../../../src/core/memory/health/modelContradictions';
import { useTestServer } from '../../support/testServerFixture';

const server = useTestServer({ demo: true });

const DOCS = [
  { file: 'project_deploy.md', text: 'Releases go to Fly.io through GitHub Actions.' },
  { file: 'project_hosting.md', text: 'The app is hosted on Render; deploy with the Render dashboard.' },
  { file: 'feedback_css.md', text: 'Styling uses Tailwind utility classes only.' },
];

describe('model contradiction check', () => {
  it('asks once and returns the pairs the model names, with its note', async () => {
    const client = new AnthropicModelClient({ apiKey: 'k', baseUrl: server.url });
    const before = server.requests.length;
    const usage: number[] = [];
    server.enqueue({
      content: [
        {
          type: 'text',
          text: '{"contradictions": [{"a": "project_deploy.md", "b": "project_hosting.md", "note": "deploy target: Fly.io vs Render"}]}',
        },
      ],
    });
    const found = await modelContradictions(DOCS, {
      client,
      model: 'claude-test',
      onUsage: (u) => usage.push(u.output_tokens),
    });
    assert.deepEqual(found, [
      { a: 'project_deploy.md', b: 'project_hosting.md', note: 'deploy target: Fly.io vs Render' },
    ]);
    assert.equal(server.requests.length - before, 1, 'one call');
    assert.equal(usage.length, 1);
    const sent = JSON.stringify(server.requests[before].body.messages);
    assert.ok(sent.includes(CONTRADICTION_CHECK_MARKER));
    for (const d of DOCS) assert.ok(sent.includes(d.file), `${d.file} is sent`);
  });

  it('an answer naming a memory not sent, or not JSON, is an error with the reason', async () => {
    const client = new AnthropicModelClient({ apiKey: 'k', baseUrl: server.url });
    server.enqueue({
      content: [
        { type: 'text', text: '{"contradictions": [{"a": "../../etc/passwd", "b": "feedback_css.md", "note": "x"}]}' },
      ],
    });
    await assert.rejects(
      modelContradictions(DOCS, { client, model: 'claude-test' }),
      /not sent: \.\.\/\.\.\/etc\/passwd/,
    );
    server.enqueue({ content: [{ type: 'text', text: 'They look fine to me.' }] });
    await assert.rejects(modelContradictions(DOCS, { client, model: 'claude-test' }), /not JSON/);
    server.enqueue({ content: [{ type: 'text', text: '{"contradictions": []}' }] });
    assert.deepEqual(await modelContradictions(DOCS, { client, model: 'claude-test' }), []);
  });
});
