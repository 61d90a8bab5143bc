// Each memory type as the seeds describe it, written by the background extraction of a real session
// against the test server's offline demo model (which follows the extraction prompt's per-type guide):
// front matter name / description / type, and the body in its type's shape (feedback and project lead
// with the rule or fact, then **Why:** and **How to apply:**; user speaks about the user; reference
// starts with where the thing is). One conversation per type.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { AnthropicModelClient } from '../../../../src/core/llm/anthropicClient';
import { extractionPrompt } from '../../../../src/core/memory/autoMemory/memoryPrompts';
import { parseIndexLine } from '../../../../src/core/memory/autoMemory/memoryIndex';
import { parseTopicFile, type MemoryType } from '../../../../src/core/memory/autoMemory/topicFile';
import { openEngramSession } from '../../../../src/core/session/openEngramSession';
import { SettingsStore } from '../../../../src/core/settings/settingsStore';
import { useTempDirs } from '../../support/tempDirs';
import { useTestServer } from '../../support/testServerFixture';

const server = useTestServer({ demo: true });
const tempDir = useTempDirs('each');

interface Case {
  type: MemoryType;
  said: string;
  /** What the body must look like, line by line (blank lines dropped). */
  body: RegExp[];
}

const CASES: Case[] = [
  {
    type: 'user',
    said: "I'm a data scientist who is new to TypeScript",
    body: [
      /^The user is a data scientist who is new to TypeScript\.$/,
      /^Take it into account in how you explain things/,
    ],
  },
  {
    type: 'feedback',
    said: 'I prefer tabs over spaces',
    body: [/^The user prefers tabs over spaces\.$/, /^\*\*Why:\*\* \S/, /^\*\*How to apply:\*\* \S/],
  },
  {
    type: 'project',
    said: 'Actually, we freeze merges on 2026-12-18 for the release',
    body: [/freeze merges on 2026-12-18 for the release\.$/, /^\*\*Why:\*\* \S/, /^\*\*How to apply:\*\* \S/],
  },
  {
    type: 'reference',
    said: 'I use https://grafana.example.com/d/api-latency to watch API latency',
    body: [/^https:\/\/grafana\.example\.com\/d\/api-latency: /, /^Look it up there when/],
  },
];

describe('extraction writes each memory type in its shape', () => {
  it('the extraction prompt says what belongs in each type and how its body reads', () => {
    const prompt = extractionPrompt({ memoryDir: '/m', newMessages: 2, topics: [] });
    for (const type of ['user', 'feedback', 'project', 'reference'])
      assert.match(prompt, new RegExp(`^- ${type}: .*Body: `, 'm'), type);
    assert.match(prompt, /^- feedback: .*\*\*Why:\*\* line .*\*\*How to apply:\*\* line/m);
    assert.match(prompt, /^- project: .*\*\*Why:\*\* line .*\*\*How to apply:\*\* line/m);
    assert.match(prompt, /^- reference: .*Body: the location first/m);
  });

  for (const c of CASES) {
    it(`${c.type}: "${c.said}"`, async () => {
      const root = tempDir('engram-types-');
      const cwd = path.join(root, 'ws');
      fs.mkdirSync(cwd);
      const session = await openEngramSession(
        {
          dataDir: path.join(root, 'data'),
          cwd,
          trusted: true,
          version: '0.0.0-test',
          entrypoint: 'vscode',
          client: new AnthropicModelClient({ apiKey: 'k', baseUrl: server.url }),
          permissionPrompt: { ask: async () => 'deny' },
        },
        new SettingsStore({ 'sessionNotes.enabled': false }),
      );
      try {
        await session.runTurn(c.said);
        await session.memory?.idle();
        const dir = session.memoryDir!;
        const files = fs.readdirSync(dir).filter((f) => f.endsWith('.md') && f !== 'MEMORY.md');
        assert.equal(files.length, 1, `one topic file, got ${files.join(', ')}`);
        assert.ok(files[0].startsWith(`${c.type}_`), files[0]);
        const parsed = parseTopicFile(fs.readFileSync(path.join(dir, files[0])));
        assert.ok(!parsed.binary);
        if (parsed.binary) return;
        assert.equal(parsed.type, c.type);
        assert.ok(parsed.name && parsed.name.length > 0, 'front matter name');
        assert.ok(parsed.description && !parsed.description.includes('\n'), 'a one-line description');
        const lines = parsed.body
          .split('\n')
          .map((l) => l.trim())
          .filter((l) => l !== '');
        assert.equal(lines.length, c.body.length, parsed.body);
        c.body.forEach((re, i) => {
          assert.match(lines[i], re);
        });
        if (c.type === 'user' || c.type === 'reference') assert.doesNotMatch(parsed.body, /\*\*Why:\*\*/);
        const index = fs.readFileSync(path.join(dir, 'MEMORY.md'), 'utf8').trim().split('\n').map(parseIndexLine);
        assert.deepEqual(
          index.map((e) => e?.file),
          [files[0]],
          'its index line',
        );
      } finally {
        await session.finish();
      }
    });
  }
});
