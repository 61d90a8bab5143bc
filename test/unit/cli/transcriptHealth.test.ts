// Issue #13, classes 1 and 2, through the commands people run: a torn last line, a transcript that
// cannot be written, malformed content blocks and absurdly deep JSON. Every command loads what it can,
// says which file and line it skipped or repaired and why (text on stderr, JSON in the object), and
// `--resume` sends a request the API accepts.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { runCli } from '../../../src/cli/dispatcher';
import type { CliIo } from '../../../src/cli/command';
import { sessionTranscriptPath } from '../../../src/core/conversation/projectKey';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';

const server = useTestServer();
const tempDir = useTempDirs('each');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

interface Problem {
  file: string;
  line: number;
  reason: string;
  action: string;
}

let workspace: string;
let dataDir: string;

before(() => server.ready());

function fresh(): void {
  const root = tempDir('engram-health-');
  workspace = path.join(root, 'ws');
  dataDir = path.join(root, 'data');
  fs.mkdirSync(workspace);
}

async function engram(args: string[]): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'test-key', ENGRAM_DATA_DIR: dataDir },
    cwd: workspace,
    signal: new AbortController().signal,
  };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}

/** A session of `turns` prompts, each answered "answer N"; returns its id and transcript. */
async function session(turns: number): Promise<{ id: string; file: string }> {
  let id = '';
  for (let i = 1; i <= turns; i++) {
    server.enqueue({ content: [{ type: 'text', text: `answer ${i}` }] });
    const run = await engram(['-p', `prompt ${i}`, '--output-format', 'json', ...(id ? ['--resume', id] : [])]);
    assert.equal(run.code, 0, run.stderr);
    id = String((JSON.parse(run.stdout) as { sessionId: string }).sessionId);
  }
  return { id, file: sessionTranscriptPath(dataDir, workspace, id) };
}

function lastRequestTexts(): string {
  return JSON.stringify(server.requests[server.requests.length - 1].body);
}

describe('a torn last line (issue #13, 1)', () => {
  it('is reported by gauge and compact, fenced off by the next prompt, and the resume after it sends the whole history', async () => {
    fresh();
    const { id, file } = await session(3);
    const text = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, text.slice(0, text.length - 40));
    const lines = text.trimEnd().split('\n').length;

    const gauge = await engram(['gauge', file, '--json']);
    assert.equal(gauge.code, 0, gauge.stderr);
    const torn = (JSON.parse(gauge.stdout) as { problems: Problem[] }).problems;
    assert.deepEqual(
      torn.map((p) => [p.file, p.line, p.action]),
      [[file, lines, 'skipped']],
    );
    assert.match(torn[0].reason, /torn|cut off|interrupted/i);
    const compact = await engram(['compact', file, '--stage', 'micro']);
    assert.match(compact.stderr, new RegExp(`${escapeRegExp(file)}:${lines}: skipped: `));

    server.enqueue(
      { content: [{ type: 'text', text: 'answer 4' }] },
      { content: [{ type: 'text', text: 'answer 5' }] },
    );
    assert.equal((await engram(['-p', 'prompt 4', '--resume', id])).code, 0);
    const fifth = await engram(['-p', 'prompt 5', '--resume', id]);
    assert.equal(fifth.code, 0, fifth.stderr);
    const sent = lastRequestTexts();
    for (const t of ['prompt 1', 'answer 1', 'prompt 2', 'answer 2', 'prompt 3', 'prompt 4', 'answer 4', 'prompt 5'])
      assert.ok(sent.includes(t), `${t} was sent`);
    assert.match(
      fifth.stderr,
      new RegExp(`${escapeRegExp(file)}:${lines}: skipped: `),
      'the fenced fragment is still reported',
    );
  });
});

describe('a transcript that cannot be written (issue #13, 1)', () => {
  it('engram -p exits 1 with a message naming the transcript, and calls no model', async () => {
    fresh();
    fs.mkdirSync(dataDir);
    fs.writeFileSync(path.join(dataDir, 'projects'), 'a file where the projects folder should be');
    const sent = server.requests.length;
    const run = await engram(['-p', 'hello']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /could not write the transcript/i);
    assert.match(run.stderr, new RegExp(escapeRegExp(path.join(dataDir, 'projects'))));
    assert.equal(server.requests.length, sent);
  });
});

/** [what, the block, the reason must match, the message it goes in]. */
const MALFORMED: Array<[string, string, RegExp, 'user' | 'assistant']> = [
  ['null', 'null', /null|object/i, 'assistant'],
  ['a text block whose text is a number', '{"type":"text","text":42}', /text/, 'assistant'],
  ['a tool_use without fields', '{"type":"tool_use"}', /tool_use/, 'assistant'],
  ['an image without a source', '{"type":"image"}', /source/, 'user'],
  [
    '200,000 levels of nesting',
    `{"type":"tool_use","id":"toolu_deep","name":"Read","input":${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}}`,
    /nest|deep/i,
    'assistant',
  ],
];

describe('malformed content blocks (issue #13, 2)', () => {
  for (const [name, block, reason, role] of MALFORMED) {
    it(`${name}: gauge, compact, inspect and --resume load it and say file:line:reason`, async () => {
      fresh();
      const { id, file } = await session(2);
      const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
      const at = lines.findIndex((l) => l.includes(role === 'user' ? '"prompt 1"' : '"answer 1"'));
      lines[at] =
        role === 'user'
          ? lines[at].replace('"content":"prompt 1"', `"content":[${block},{"type":"text","text":"prompt 1"}]`)
          : lines[at].replace('"content":[', `"content":[${block},`);
      fs.writeFileSync(file, `${lines.join('\n')}\n`);
      const where = new RegExp(`${escapeRegExp(file)}:${at + 1}: (repaired|skipped): `);

      for (const command of [
        ['gauge', file],
        ['compact', file, '--stage', 'auto'],
      ]) {
        const text = await engram(command);
        assert.equal(text.code, 0, `${command[0]}: ${text.stderr}`);
        assert.match(text.stderr, where, command[0]);
        const json = await engram([...command, '--json']);
        assert.equal(json.code, 0, json.stderr);
        const problems = (JSON.parse(json.stdout) as { problems: Problem[] }).problems;
        assert.equal(problems.length, 1, JSON.stringify(problems));
        assert.deepEqual([problems[0].file, problems[0].line], [file, at + 1]);
        assert.match(problems[0].reason, reason);
      }

      const inspectJson = await engram(['inspect', '--json']);
      const sessions = (
        JSON.parse(inspectJson.stdout) as { projects: Array<{ sessions: Array<{ id: string; problems: Problem[] }> }> }
      ).projects[0].sessions;
      const inspected = sessions.find((s) => s.id === id);
      assert.deepEqual(
        inspected?.problems.map((p) => [p.file, p.line]),
        [[file, at + 1]],
      );
      assert.match((await engram(['inspect'])).stdout, where);

      server.enqueue({ content: [{ type: 'text', text: 'answer 3' }] });
      const sent = server.requests.length;
      const resumed = await engram(['-p', 'prompt 3', '--resume', id, '--output-format', 'json']);
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.equal(server.requests.length, sent + 1, 'one request, no retries');
      assert.equal(server.requests[sent].status, 200, 'the API would accept it');
      assert.ok(lastRequestTexts().includes(role === 'user' ? 'prompt 1' : 'answer 1'), 'the rest of the line is kept');
      const out = JSON.parse(resumed.stdout) as { problems?: Problem[] };
      assert.deepEqual(
        out.problems?.map((p) => [p.file, p.line]),
        [[file, at + 1]],
      );
      assert.match((await engram(['gauge', file])).stderr, reason);
    });
  }
});

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
