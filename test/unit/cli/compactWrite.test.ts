// `engram compact FILE --write` (issue #13, class 7): the compaction is appended to the transcript as
// the chat records it, so a later `engram -p --resume` sends the compacted conversation, not the old one.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { readTranscript } from '../../../src/core/conversation/transcriptReader';
import type { ApiMessage } from '../../../src/core/conversation/types';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';
import { runEngram, type CliRun } from '../support/cliProcess';

const server = useTestServer();
const tempDir = useTempDirs('all');
let root: string;
let workspace: string;
let dataDir: string;

before(() => {
  root = tempDir('engram-cwrite-');
  workspace = path.join(root, 'ws');
  dataDir = path.join(root, 'data');
  fs.mkdirSync(workspace);
});

function engram(args: string[]): Promise<CliRun> {
  return runEngram(args, {
    home: root,
    env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'test-key', ENGRAM_DATA_DIR: dataDir },
  });
}

const textOf = (m: ApiMessage) =>
  typeof m.content === 'string' ? m.content : m.content.map((b) => ('text' in b ? b.text : '')).join('');
const SUMMARY =
  '<analysis>a</analysis><summary>1. Request and intent: the user asked about AARDVARK-SUMMARY topics.</summary>';

describe('engram compact --write', () => {
  it('appends the compaction, and a resume sends the compacted conversation', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'First answer. '.repeat(200) }] });
    const first = await engram([
      '-p',
      `First question ${'x'.repeat(2_000)}`,
      '--cwd',
      workspace,
      '--output-format',
      'json',
    ]);
    assert.equal(first.code, 0, first.stderr);
    const { sessionId, transcript } = JSON.parse(first.stdout) as { sessionId: string; transcript: string };
    server.enqueue({ content: [{ type: 'text', text: 'Second answer.' }] });
    assert.equal((await engram(['-p', 'Second question', '--cwd', workspace, '--resume', sessionId])).code, 0);
    const linesBefore = (await readTranscript(transcript)).lines.length;

    server.enqueue({ content: [{ type: 'text', text: SUMMARY }] });
    const compact = await engram([
      'compact',
      transcript,
      '--stage',
      'full',
      '--write',
      '--json',
      '--keep-min-tokens',
      '1',
      '--keep-max-tokens',
      '20',
      '--keep-min-text',
      '1',
    ]);
    assert.equal(compact.code, 0, compact.stderr);
    const out = JSON.parse(compact.stdout) as {
      written?: string[];
      messages: ApiMessage[];
      tokensAfter: number;
      tokensBefore: number;
    };
    assert.equal(out.written?.length, 1);
    assert.ok(
      out.tokensAfter > 0 && out.tokensAfter < out.tokensBefore,
      `tokens ${out.tokensBefore} -> ${out.tokensAfter}`,
    );
    const lines = (await readTranscript(transcript)).lines;
    assert.ok(lines.length > linesBefore);
    assert.ok(
      lines.slice(linesBefore).some((l) => l.type === 'system' && l.subtype === 'compact_boundary'),
      'a compact boundary was appended',
    );

    server.enqueue({ content: [{ type: 'text', text: 'Resumed.' }] });
    const at = server.requests.length;
    const resumed = await engram(['-p', 'Third question', '--cwd', workspace, '--resume', sessionId]);
    assert.equal(resumed.code, 0, resumed.stderr);
    const sent = server.requests[at].body.messages as ApiMessage[];
    assert.ok(textOf(sent[0]).includes('AARDVARK-SUMMARY'), 'the request opens with the summary');
    assert.ok(!sent.some((m) => textOf(m).includes('First question')), 'the compacted-away prompt is not sent');
    assert.equal(textOf(sent[sent.length - 1]), 'Third question');
    assert.deepEqual(
      sent.slice(0, out.messages.length - 0).map((m) => m.role),
      out.messages.map((m) => m.role),
    );
  });
});
