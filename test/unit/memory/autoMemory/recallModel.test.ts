// Recall's model mode over real HTTP: the test server's scripted model picks from the index by word
// overlap; a reply that is not the strict JSON, names a file not in the list, or an error falls back to
// the local ranking.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { AnthropicModelClient } from '../../../../src/core/llm/anthropicClient';
import { modelPick } from '../../../../src/core/memory/autoMemory/modelRecall';
import { recallForPrompt } from '../../../../src/core/memory/autoMemory/recall';
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
  for (const [file, description] of files) fs.writeFileSync(path.join(dir, file), `---\nname: ${file}\ndescription: ${description}\ntype: project\n---\n\n${description}.\n`);
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
    assert.deepEqual(result.files.map((f) => f.file), ['reference_sentry.md']);
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
    assert.deepEqual((await recallForPrompt(dir, q, [], { pick })).files.map((f) => f.file), local);
    server.enqueue({ content: [{ type: 'text', text: '{"files": ["../../etc/passwd"]}' }] });
    assert.deepEqual((await recallForPrompt(dir, q, [], { pick })).files.map((f) => f.file), local);
    server.enqueue({ error: { status: 400, type: 'invalid_request_error', message: 'bad request' } });
    assert.deepEqual((await recallForPrompt(dir, q, [], { pick })).files.map((f) => f.file), local);
    assert.equal(reasons.length, 3, reasons.join('\n'));
    assert.match(reasons[0], /not JSON/);
    assert.match(reasons[1], /not in the list/);
  });
});
