// Issue #20, part 1: a transcript that two writers already branched says so in `engram inspect`,
// `engram gauge` and on `-p --resume` (by line, with the side each branch is on), and
// `engram merge-branches` appends the left-out turns after the current ones so the next resume sends
// all of them.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { sessionTranscriptPath } from '../../../src/core/conversation/projectKey';
import { writeBranchedTranscript } from '../support/branchedTranscript';
import { runEngram, runEngramInProcess, type CliRun } from '../support/cliProcess';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';

const server = useTestServer();
const tempDir = useTempDirs('all');
let workspace: string;
let dataDir: string;
let file: string;
let id: string;

before(async () => {
  await server.ready();
  const root = tempDir('engram-branches-');
  workspace = path.join(root, 'ws');
  dataDir = path.join(root, 'data');
  fs.mkdirSync(workspace);
  file = sessionTranscriptPath(dataDir, workspace, 'branched');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  id = await writeBranchedTranscript(file);
});

function engram(args: string[]): Promise<CliRun> {
  return runEngramInProcess(args, {
    cwd: workspace,
    env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'test-key', ENGRAM_DATA_DIR: dataDir },
  });
}

/** The typed prompts the last model request carried. */
function promptsSent(): string[] {
  const messages = server.requests.at(-1)?.body.messages ?? [];
  return messages.flatMap((m) => {
    if (m.role !== 'user') return [];
    const text =
      typeof m.content === 'string'
        ? m.content
        : m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
    return text ? [text] : [];
  });
}

const branchLine = (f: string): RegExp =>
  new RegExp(
    `${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:4: the conversation branches after this line into 2 \\(line 5 "from window A", 4 lines, left out; line 9 "from window B", 4 lines, read back\\)`,
  );

describe('a transcript two writers branched', () => {
  it('is reported by inspect, in text and JSON', async () => {
    const text = await engram(['inspect', '--root', dataDir]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, branchLine(file));
    const json = JSON.parse((await engram(['inspect', '--root', dataDir, '--json'])).stdout) as {
      projects: Array<{ sessions: Array<{ branches: unknown[] }> }>;
    };
    assert.equal(json.projects[0].sessions[0].branches.length, 1);
  });

  it('is reported by gauge, on stderr and as "branches" in JSON', async () => {
    const text = await engram(['gauge', file]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stderr, branchLine(file));
    const json = JSON.parse((await engram(['gauge', file, '--json'])).stdout) as { branches: Array<{ line: number }> };
    assert.deepEqual(
      json.branches.map((b) => b.line),
      [4],
    );
  });

  it('is reported on resume, which sends the branch it reads', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'ok' }] });
    const run = await engram(['-p', 'and now?', '--resume', id, '--no-memory']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, branchLine(file));
    assert.match(run.stderr, /engram merge-branches /);
    assert.deepEqual(promptsSent(), ['first', 'from window B', 'and now?']);
  });

  it('is joined by merge-branches: the next resume sends every turn and no branch is reported', async () => {
    const merged = await engram(['merge-branches', file]);
    assert.equal(merged.code, 0, merged.stderr);
    assert.match(
      merged.stdout,
      /Merged 1 branch into .*: 4 messages appended after the current turn \(prompts: "from window A"\)/,
    );
    assert.doesNotMatch((await engram(['inspect', '--root', dataDir])).stdout, /the conversation branches/);
    assert.match((await engram(['merge-branches', file])).stdout, /does not branch: nothing to merge/);

    server.enqueue({ content: [{ type: 'text', text: 'all of it' }] });
    const run = await engram(['-p', 'everything?', '--resume', id, '--no-memory']);
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /the conversation branches/);
    assert.deepEqual(promptsSent(), ['first', 'from window B', 'and now?', 'from window A', 'everything?']);
    assert.equal(server.requests.at(-1)?.status, 200, 'the merged conversation is one the API accepts');
  });

  it('merge-branches run as a process says in one line on stdout what it appended (issue 31)', async () => {
    const root = tempDir('engram-merge-process-');
    const copy = path.join(root, 'session.jsonl');
    await writeBranchedTranscript(copy);
    const merged = await runEngram(['merge-branches', copy], { home: root });
    assert.equal(merged.code, 0, merged.stderr);
    assert.equal(merged.stderr, '');
    assert.deepEqual(merged.stdout.split('\n'), [
      `Merged 1 branch into ${copy}: 4 messages appended after the current turn (prompts: "from window A"). ` +
        'The next resume sends them.',
      '',
    ]);
    const again = await runEngram(['merge-branches', copy], { home: root });
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, `${copy} does not branch: nothing to merge.\n`);
  });
});
