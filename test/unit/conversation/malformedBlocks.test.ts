// Issue #13, class 2, as a property: malformed content blocks of every kind the API would reject,
// put at random positions of random lines of real Claude Code transcripts. Loading never throws, every
// damaged line is reported by its number with a reason, and the conversation read back (and what
// `engram gauge` and `engram compact` make of it) is a request the API accepts.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { runCli } from '../../../src/cli/dispatcher';
import type { CliIo } from '../../../src/cli/command';
import { loadConversation } from '../../../src/core/conversation/conversationLoader';
import { sessionTranscriptPath } from '../../../src/core/conversation/projectKey';
import { requestProblem } from '../compaction/compactionSupport';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';
import { CC_FIXTURES } from './testSupport';

const server = useTestServer();
const tempDir = useTempDirs('all');
const FIXTURES = [
  'tool-multiturn-before-compact.jsonl',
  'sm-compact.transcript.jsonl',
  'auto-compact-window60000.transcript.jsonl',
];
const KNOWN = ['text', 'image', 'document', 'tool_use', 'tool_result', 'thinking', 'redacted_thinking'];

const json = (v: unknown): string => JSON.stringify(v);
const notString = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }),
);
const notObject = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 5 }),
  fc.array(fc.integer(), { maxLength: 2 }),
);
const badId = fc.oneof(notString, fc.constantFrom('', 'has space', 'toolu_ü', 'a/b'));
const deep = (n: number): string => `{"x":${'['.repeat(n)}${']'.repeat(n)}}`;

/** One block the API would reject, as JSON text (deep nesting cannot go through JSON.stringify). */
const badBlock: fc.Arbitrary<string> = fc.oneof(
  notObject.map(json),
  notString.map((type) => json({ type, text: 'x' })),
  fc
    .string({ maxLength: 8 })
    .filter((t) => !KNOWN.includes(t))
    .map((type) => json({ type, text: 'x' })),
  fc.constant(json({ type: 'text' })),
  notString.map((text) => json({ type: 'text', text })),
  fc
    .record({
      id: fc.option(badId, { nil: undefined }),
      name: fc.option(notString, { nil: undefined }),
      input: fc.option(notObject, { nil: undefined }),
    })
    .map((f) => json({ type: 'tool_use', ...f })),
  badId.map((id) => json({ type: 'tool_use', id, name: 'Read', input: {} })),
  fc
    .oneof(fc.constant(undefined), notObject, fc.constant({ type: 'base64', media_type: 'image/png' }))
    .map((source) => json({ type: 'image', source })),
  fc
    .oneof(
      badId.map((tool_use_id) => ({ tool_use_id, content: 'x' })),
      notString.filter((c) => !Array.isArray(c)).map((content) => ({ tool_use_id: 'toolu_ok', content })),
      notObject.map((item) => ({ tool_use_id: 'toolu_ok', content: [{ type: 'text', text: 'kept' }, item] })),
    )
    .map((f) => json({ type: 'tool_result', ...f })),
  fc.constant(json({ type: 'thinking', thinking: 'hm' })),
  notString.map((data) => json({ type: 'redacted_thinking', data })),
  fc
    .integer({ min: 1_100, max: 4_000 })
    .map((n) => `{"type":"tool_use","id":"toolu_deep","name":"Read","input":${deep(n)}}`),
);

interface Damage {
  fixture: string;
  /** [which conversation line (index into the candidates, wrapped), where in its content, the block]. */
  hits: Array<[number, number, string]>;
}

const damageArb: fc.Arbitrary<Damage> = fc.record({
  fixture: fc.constantFrom(...FIXTURES),
  hits: fc.array(fc.tuple(fc.nat(), fc.nat(), badBlock), { minLength: 1, maxLength: 4 }),
});

/** Writes the damaged fixture; returns the file and the 1-based numbers of the lines that were hit. */
function damage(d: Damage): { file: string; hit: number[] } {
  const lines = fs.readFileSync(path.join(CC_FIXTURES, d.fixture), 'utf8').split('\n').filter(Boolean);
  const candidates = lines.flatMap((l, i) => {
    const o = JSON.parse(l) as { type?: string; message?: { content?: unknown } };
    return (o.type === 'user' || o.type === 'assistant') && o.message?.content !== undefined ? [i] : [];
  });
  const blocks = new Map<number, Array<[number, string]>>();
  for (const [which, where, block] of d.hits) {
    const i = candidates[which % candidates.length];
    blocks.set(i, [...(blocks.get(i) ?? []), [where, block]]);
  }
  for (const [i, extra] of blocks) {
    const o = JSON.parse(lines[i]) as { message: { content: unknown } };
    const c = o.message.content;
    const content: string[] = (typeof c === 'string' ? [{ type: 'text', text: c }] : (c as unknown[])).map(json);
    for (const [where, block] of extra) content.splice(where % (content.length + 1), 0, block);
    o.message.content = '\u0000CONTENT\u0000';
    lines[i] = json(o).replace(json('\u0000CONTENT\u0000'), `[${content.join(',')}]`);
  }
  const file = path.join(tempDir('engram-malformed-'), 'session.jsonl');
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return { file, hit: [...blocks.keys()].map((i) => i + 1).sort((a, b) => a - b) };
}

async function cli(
  args: string[],
  env: Record<string, string> = {},
  cwd = process.cwd(),
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    env,
    cwd,
    signal: new AbortController().signal,
  };
  return { code: await runCli(args, io), stdout, stderr };
}

describe('random malformed blocks in random lines of real transcripts', () => {
  it('load, report each damaged line with a reason, and read back as a valid request', async () => {
    await fc.assert(
      fc.asyncProperty(damageArb, async (d) => {
        const { file, hit } = damage(d);
        const loaded = await loadConversation(file);
        assert.deepEqual(
          [...new Set(loaded.corrupt.map((c) => c.line))].sort((a, b) => a - b),
          hit,
        );
        for (const c of loaded.corrupt) assert.ok(c.error.length > 0);
        assert.equal(requestProblem(loaded.entries.map((e) => e.message)), null);
      }),
      { numRuns: 150 },
    );
  });

  it('engram gauge and engram compact load them too, with file:line:reason in text and JSON', async () => {
    await fc.assert(
      fc.asyncProperty(damageArb, async (d) => {
        const { file, hit } = damage(d);
        const gauge = await cli(['gauge', file, '--json']);
        assert.equal(gauge.code, 0, gauge.stderr);
        const problems = (
          JSON.parse(gauge.stdout) as { problems: Array<{ file: string; line: number; reason: string }> }
        ).problems;
        assert.deepEqual(
          [...new Set(problems.map((p) => p.line))].sort((a, b) => a - b),
          hit,
        );
        assert.ok(problems.every((p) => p.file === file && p.reason.length > 0));
        // micro may find nothing to trim in a short transcript (exit 3): the problems are reported either way.
        const compact = await cli(['compact', file, '--stage', 'micro']);
        assert.ok([0, 3].includes(compact.code), compact.stderr);
        for (const line of hit)
          assert.ok(compact.stderr.includes(`${file}:${line}: `), `line ${line} reported: ${compact.stderr}`);
        const out = await cli(['compact', file, '--stage', 'auto', '--json']);
        assert.equal(out.code, 0, out.stdout);
        const result = JSON.parse(out.stdout) as { messages: never[]; problems: Array<{ line: number }> };
        assert.equal(requestProblem(result.messages), null);
        assert.deepEqual(
          [...new Set(result.problems.map((p) => p.line))].sort((a, b) => a - b),
          hit,
        );
      }),
      { numRuns: 25 },
    );
  });

  it('engram -p --resume sends requests the API accepts and reports every damaged line', async () => {
    await server.ready();
    await fc.assert(
      fc.asyncProperty(damageArb, async (d) => {
        const { file, hit } = damage(d);
        const workspace = path.dirname(file);
        const dataDir = path.join(workspace, 'data');
        const transcript = sessionTranscriptPath(dataDir, workspace, 'damaged-session');
        fs.mkdirSync(path.dirname(transcript), { recursive: true });
        fs.copyFileSync(file, transcript);
        // Every call of the session (the turn, and a notes update a long history may start) gets an answer.
        server.setResponder(() => ({ content: [{ type: 'text', text: 'resumed' }] }));
        const sent = server.requests.length;
        const run = await cli(
          ['-p', 'go on', '--resume', 'damaged-session', '--output-format', 'json', '--no-memory'],
          { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'test-key', ENGRAM_DATA_DIR: dataDir },
          workspace,
        );
        assert.equal(run.code, 0, run.stderr);
        assert.ok(server.requests.length > sent);
        assert.deepEqual(
          server.requests
            .slice(sent)
            .map((r) => r.status)
            .filter((st) => st !== 200),
          [],
          'the API would accept every request',
        );
        const problems = (JSON.parse(run.stdout) as { problems: Array<{ file: string; line: number }> }).problems;
        assert.deepEqual(
          [...new Set(problems.map((p) => p.line))].sort((a, b) => a - b),
          hit,
        );
        assert.ok(problems.every((p) => p.file === transcript));
      }),
      { numRuns: 12 },
    );
  });
});
