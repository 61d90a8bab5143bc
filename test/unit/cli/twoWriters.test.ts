// Issue #20, part 1, end to end: two `engram -p --resume SID` processes at once, ten rounds. A session
// has one writer at a time: the second process waits for the first one's run, reads the transcript
// again and appends its turn after it, so no turn and no prompt is lost and the file never branches.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { loadReplayedConversation } from '../../../src/core/compaction/recordedCompactions';
import type { ApiMessage, ContentBlock } from '../../../src/core/conversation/types';
import type { MessagesRequestBody } from '../../../src/testServer/anthropicTestServer';
import { acquireWriterLock } from '../../../src/core/fs/writerLock';
import { runEngram, runEngramInProcess, type CliRun } from '../support/cliProcess';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';

/** A prompt is answered with a Read of notes.txt, the result with a line naming the prompt. */
function respond(body: MessagesRequestBody): {
  content: Array<{ type: 'text'; text: string } | { type: 'tool_use'; name: string; input: Record<string, unknown> }>;
} {
  const last = body.messages.at(-1) as ApiMessage;
  const blocks = typeof last.content === 'string' ? [] : (last.content as ContentBlock[]);
  if (blocks.some((b) => b.type === 'tool_result'))
    return { content: [{ type: 'text', text: `done: ${promptOf(body.messages)}` }] };
  return { content: [{ type: 'tool_use', name: 'Read', input: { file_path: path.join(workspace, 'notes.txt') } }] };
}

/** The newest typed prompt of a request. */
function promptOf(messages: readonly ApiMessage[]): string {
  for (const m of [...messages].reverse()) {
    if (m.role !== 'user') continue;
    const text =
      typeof m.content === 'string'
        ? m.content
        : m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
    if (text.startsWith('round ') || text === 'start') return text;
  }
  return '?';
}

const server = useTestServer({ responder: respond });
const tempDir = useTempDirs('all');
let root: string;
let workspace: string;
let dataDir: string;

before(() => {
  root = tempDir('engram-writers-');
  workspace = path.join(root, 'ws');
  dataDir = path.join(root, 'data');
  fs.mkdirSync(workspace);
  fs.writeFileSync(path.join(workspace, 'notes.txt'), 'nothing to see\n');
});

function engram(args: string[]): Promise<CliRun> {
  return runEngram([...args, '--cwd', workspace, '--no-memory'], {
    home: root,
    env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'test-key', ENGRAM_DATA_DIR: dataDir },
  });
}

describe('two engram -p --resume of one session at once', () => {
  it('lose no turn and no prompt over ten rounds, and leave a transcript that does not branch', async () => {
    const first = await engram(['-p', 'start', '--output-format', 'json']);
    assert.equal(first.code, 0, first.stderr);
    const { sessionId, transcript } = JSON.parse(first.stdout) as { sessionId: string; transcript: string };

    const rounds = 10;
    for (let round = 1; round <= rounds; round++) {
      const runs = await Promise.all(
        ['a', 'b'].map((who) => engram(['-p', `round ${round}${who}`, '--resume', sessionId])),
      );
      for (const run of runs) assert.equal(run.code, 0, run.stderr);
    }

    const read = await loadReplayedConversation(transcript);
    const messages = read.entries.map((e) => e.message);
    const prompts = messages
      .filter((m) => m.role === 'user')
      .map((m) => promptOf([m]))
      .filter((p) => p !== '?');
    const expected = [
      'start',
      ...Array.from({ length: rounds }, (_, i) => [`round ${i + 1}a`, `round ${i + 1}b`]).flat(),
    ];
    assert.deepEqual([...prompts].sort(), [...expected].sort(), 'every prompt is in the conversation read back');
    const toolRuns = messages.flatMap((m) =>
      typeof m.content === 'string' ? [] : m.content.filter((b) => b.type === 'tool_result'),
    );
    assert.equal(toolRuns.length, 1 + 2 * rounds, 'every tool run is in the conversation read back');
    assert.equal(read.report.danglingToolUses.length, 0);

    // The next resume sends all of it, and nothing says the session branched.
    const next = await engram(['-p', 'round last', '--resume', sessionId]);
    assert.equal(next.code, 0, next.stderr);
    assert.doesNotMatch(next.stderr, /the conversation branches/);
    const sent = server.requests.filter((r) => r.path === '/v1/messages').at(-2)?.body.messages ?? [];
    assert.equal(sent.filter((m) => m.role === 'user' && promptOf([m]) !== '?').length, expected.length + 1);
  });

  it('says which process the second run waits for, and runs once it lets go', async () => {
    const first = await engram(['-p', 'start', '--output-format', 'json']);
    const { sessionId, transcript } = JSON.parse(first.stdout) as { sessionId: string; transcript: string };
    const lock = await acquireWriterLock(transcript, { waitMs: 1000 });
    const env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'test-key', ENGRAM_DATA_DIR: dataDir };
    const waiting = runEngramInProcess(['-p', 'round 1a', '--resume', sessionId, '--cwd', workspace, '--no-memory'], {
      cwd: workspace,
      env,
    });
    setTimeout(() => void lock.release(), 500);
    const run = await waiting;
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stderr,
      new RegExp(
        `engram: Another Engram process \\(pid ${process.pid}, since [^)]+\\) is writing session ${sessionId}; waiting for it to finish \\(at most 10 min\\)\\.\n`,
      ),
    );
    assert.match(run.stdout, /done: round 1a/);
  });
});
