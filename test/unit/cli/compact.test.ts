// `engram compact` and `engram gauge` on Claude Code's own transcripts: every stage's output is a
// request the API accepts; `full` calls the test server once. A few runs go through a child process
// (the real entry point), the many combinations in-process.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { runCli } from '../../../src/cli/dispatcher';
import type { CliIo } from '../../../src/cli/command';
import { readTranscript } from '../../../src/core/conversation/transcriptReader';
import { TranscriptWriter } from '../../../src/core/conversation/transcriptWriter';
import type { ApiMessage, AssistantLine } from '../../../src/core/conversation/types';
import { usageTotal } from '../../../src/core/tokens/accounting';
import { loadConversation } from '../../../src/core/conversation/conversationLoader';
import { readRecords, recordedEvents } from '../../../src/core/compaction/recordedCompactions';
import { SUMMARY_REQUEST_MARKER } from '../../../src/core/compaction/summaryPrompt';
import { requestProblem } from '../compaction/compactionSupport';
import { CC_FIXTURES, fixtureTranscripts } from '../conversation/testSupport';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';
import { runEngram } from '../support/cliProcess';

const NOTES = path.join(CC_FIXTURES, 'sm-session-memory-summary.md');
const SMALL_KEEP = ['--keep-min-tokens', '50', '--keep-max-tokens', '400', '--keep-min-text', '1'];

const server = useTestServer();
const tempDir = useTempDirs('all');
let root: string;

before(() => {
  root = tempDir('engram-compact-cli-');
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function inProcess(args: string[], env: Record<string, string> = {}): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    env,
    cwd: process.cwd(),
    signal: new AbortController().signal,
  };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}

function child(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return runEngram(args, { home: root, env });
}

interface Output {
  stage: string;
  tokensBefore: number;
  tokensAfter: number;
  modelCalls: number;
  keptFrom: number;
  messages: ApiMessage[];
}

function parsed(run: Run): Output {
  assert.equal(run.code, 0, run.stdout + run.stderr);
  const out = JSON.parse(run.stdout) as Output;
  for (const key of ['stage', 'tokensBefore', 'tokensAfter', 'modelCalls', 'keptFrom', 'messages'])
    assert.ok(key in out, key);
  assert.equal(requestProblem(out.messages), null);
  return out;
}

describe('engram compact on Claude Code fixtures', () => {
  it('every stage gives API-valid messages or says why it cannot run (exit 3)', async () => {
    const names = (await fixtureTranscripts()).filter((n) => !n.startsWith('interactive-history'));
    let ran = 0;
    for (const name of names) {
      for (const stage of ['micro', 'session-memory', 'auto', 'full']) {
        const run = await inProcess([
          'compact',
          path.join(CC_FIXTURES, name),
          '--stage',
          stage,
          '--notes',
          NOTES,
          ...SMALL_KEEP,
          '--json',
        ]);
        if (run.code === 3) {
          assert.ok((JSON.parse(run.stdout) as { error: string }).error.length > 0);
          continue;
        }
        const out = parsed(run);
        ran++;
        assert.ok(out.tokensAfter <= out.tokensBefore || stage === 'session-memory');
        assert.equal(out.modelCalls, 0);
      }
    }
    assert.ok(ran >= names.length, `at least one stage ran per fixture (${ran})`);
  });

  it('session-memory compaction of the sm-compact fixture keeps its newest messages verbatim', async () => {
    const file = path.join(CC_FIXTURES, 'sm-compact.transcript.jsonl');
    const out = parsed(
      await inProcess([
        'compact',
        file,
        '--stage',
        'session-memory',
        '--notes',
        NOTES,
        '--window',
        '200000',
        ...SMALL_KEEP,
        '--json',
      ]),
    );
    assert.equal(out.stage, 'session-memory');
    assert.equal(out.modelCalls, 0);
    const first = out.messages[0];
    assert.match(
      typeof first.content === 'string' ? first.content : JSON.stringify(first.content),
      /<session-notes>[\s\S]*Fake notes written/,
    );
  });

  it('--json reports what the compaction dropped, text mode a "not carried" line, and --write records it', async () => {
    const file = path.join(root, 'dropped.jsonl');
    fs.copyFileSync(path.join(CC_FIXTURES, 'tool-multiturn-before-compact.jsonl'), file);
    const args = ['compact', file, '--stage', 'session-memory', '--notes', NOTES, ...SMALL_KEEP];
    const out = JSON.parse((await inProcess([...args, '--json'])).stdout) as { dropped: Record<string, string[]> };
    // The fake notes name none of the replaced prompts; the kept turn runs `ls` again, so that is carried.
    assert.deepEqual(out.dropped, {
      paths: [],
      commands: [],
      errors: [],
      userMessages: ['please USE_TOOL now', 'second turn hello', 'third turn USE_TOOL please'],
    });
    const text = await inProcess([...args, '--write']);
    assert.match(text.stdout, /\nnot carried: 3 of your messages\n {2}please USE_TOOL now\n/);
    const records = readRecords((await loadConversation(file)).compactionRecords);
    assert.deepEqual(recordedEvents(records).all[0].dropped, out.dropped, 'the record keeps it for a resume');
  });

  it('runs as a child process: micro and session-memory, and exit 3 when the notes are missing', async () => {
    const big = await writeToolSession(path.join(root, 'tools.jsonl'), 8, 6_000);
    const file = path.join(CC_FIXTURES, 'tool-multiturn-before-compact.jsonl');
    const [microRun, smRun, missing] = await Promise.all([
      child(['compact', big, '--stage', 'micro', '--json']),
      child(['compact', file, '--stage', 'session-memory', '--notes', NOTES, ...SMALL_KEEP, '--json']),
      child(['compact', file, '--stage', 'session-memory', '--json']),
    ]);
    const micro = parsed(microRun);
    assert.equal(micro.stage, 'micro');
    assert.ok(micro.tokensAfter < micro.tokensBefore);
    assert.match(JSON.stringify(micro.messages[2]), /showing the first 2,000 of 6,000 characters/);
    assert.equal(parsed(smRun).stage, 'session-memory');
    assert.equal(missing.code, 3);
    assert.match(JSON.parse(missing.stdout).error, /no session notes/i);
  });

  it('full calls the model once (the test server, ANTHROPIC_BASE_URL) and keeps the latest prompt', async () => {
    const file = path.join(root, 'pending.jsonl');
    // The fixture's conversation plus a new prompt waiting for its answer.
    const lines = fs
      .readFileSync(path.join(CC_FIXTURES, 'tool-multiturn-before-compact.jsonl'), 'utf8')
      .trimEnd()
      .split('\n');
    const last = JSON.parse(lines.filter((l) => JSON.parse(l).uuid).at(-1) as string) as {
      uuid: string;
      sessionId: string;
    };
    lines.push(
      JSON.stringify({
        type: 'user',
        uuid: 'pending-prompt',
        parentUuid: last.uuid,
        sessionId: last.sessionId,
        timestamp: new Date().toISOString(),
        isSidechain: false,
        message: { role: 'user', content: 'And now the tests, please.' },
      }),
    );
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    server.enqueue({
      content: [{ type: 'text', text: '<analysis>ok</analysis><summary>1. Request and intent: run tools.</summary>' }],
    });
    const requests = server.requests.length;
    const out = parsed(
      await child(['compact', file, '--stage', 'full', '--focus', 'the tools', '--json'], {
        ANTHROPIC_BASE_URL: server.url,
        ANTHROPIC_API_KEY: 'test-key',
      }),
    );
    assert.equal(out.stage, 'full');
    assert.equal(out.modelCalls, 1);
    assert.equal(server.requests.length, requests + 1);
    const sent = server.requests[server.requests.length - 1];
    assert.equal(sent.status, 200, 'the server accepted the summary request');
    assert.ok(JSON.stringify(sent.body.messages.at(-1)).includes(SUMMARY_REQUEST_MARKER));
    assert.equal(out.messages.length, 1);
    assert.match(
      JSON.stringify(out.messages[0].content),
      /Request and intent: run tools[\s\S]*And now the tests, please/,
    );
  });

  it('full without an API key exits 3; a bad stage is a usage error', async () => {
    const file = path.join(CC_FIXTURES, 'hello-single-turn.jsonl');
    const noKey = await inProcess(['compact', file, '--stage', 'full', '--json']);
    assert.equal(noKey.code, 3);
    assert.equal(JSON.parse(noKey.stdout).code, 'no-model');
    assert.equal((await inProcess(['compact', file, '--stage', 'everything'])).code, 2);
    assert.equal((await inProcess(['compact'])).code, 2);
  });
});

/** A session written by Engram's own writer: `rounds` tool calls with `size`-character results. */
async function writeToolSession(file: string, rounds: number, size: number): Promise<string> {
  const w = new TranscriptWriter({ file, sessionId: 'tools', cwd: root, version: 'test' });
  await w.appendUserPrompt('produce output');
  const usage = { input_tokens: 100, output_tokens: 10 };
  for (let i = 0; i < rounds; i++) {
    await w.appendAssistantBlock(
      { id: `msg_${i}`, model: 'claude-test', stopReason: 'tool_use', usage },
      { type: 'tool_use', id: `toolu_${i}`, name: 'Bash', input: { command: `seq ${i}` } },
    );
    await w.appendToolResult({ type: 'tool_result', tool_use_id: `toolu_${i}`, content: `${i}`.repeat(size) });
  }
  await w.appendAssistantBlock(
    { id: 'msg_end', model: 'claude-test', stopReason: 'end_turn', usage },
    { type: 'text', text: 'done' },
  );
  await w.flush();
  return file;
}

describe('engram gauge', () => {
  it("reports the last response's usage plus an estimate of what follows, and each call's report next to the estimate", async () => {
    for (const name of [
      'tool-multiturn-before-compact.jsonl',
      'sm-compact.transcript.jsonl',
      'auto-compact-window60000.transcript.jsonl',
    ]) {
      const file = path.join(CC_FIXTURES, name);
      const run = await inProcess(['gauge', file, '--window', '60000', '--json']);
      assert.equal(run.code, 0, run.stderr);
      const g = JSON.parse(run.stdout) as {
        usedTokens: number;
        window: number;
        reservedForOutput: number;
        marks: number[];
        percent: number;
        estimatedTokens: number;
        breakdown: Array<{ category: string; tokens: number }>;
        turns: Array<{ uuid: string; reportedTokens: number; estimatedTokens: number }>;
      };
      assert.equal(g.window, 60_000);
      // The inspector's model: the default reserve and marks, and the categories in the gauge's order.
      assert.equal(g.reservedForOutput, 16_000);
      assert.deepEqual(g.marks, [60, 80, 100]);
      assert.deepEqual(
        g.breakdown.map((c) => c.category),
        [
          'system',
          'tools',
          'instructions',
          'memory index',
          'recalled memories',
          'session notes',
          'messages',
          'tool results',
        ],
      );
      assert.ok(g.estimatedTokens >= 0 && g.estimatedTokens <= g.usedTokens);
      assert.ok(g.turns.length > 0);
      const lines = (await readTranscript(file)).lines;
      for (const t of g.turns) {
        const line = lines.find((l) => l.uuid === t.uuid) as AssistantLine;
        assert.equal(t.reportedTokens, usageTotal(line.message.usage));
        assert.ok(t.estimatedTokens > 0);
      }
      const lastReport = g.turns[g.turns.length - 1].reportedTokens;
      assert.ok(g.usedTokens >= lastReport);
      assert.equal(
        g.breakdown.reduce((n, c) => n + c.tokens, 0),
        g.usedTokens,
      );
      assert.equal(g.percent, Math.round((g.usedTokens / 60_000) * 10_000) / 100);
      // Later calls are estimated from the previous report: close to what the API then said.
      for (const t of g.turns.slice(1))
        assert.ok(
          Math.abs(t.estimatedTokens - t.reportedTokens) / t.reportedTokens < 0.2,
          `${t.estimatedTokens} vs ${t.reportedTokens}`,
        );
    }
  });

  it('takes --window by the rules of engram.contextWindow, and prints the categories as text', async () => {
    const file = path.join(CC_FIXTURES, 'sm-compact.transcript.jsonl');
    const small = await inProcess(['gauge', file, '--window', '1000']);
    assert.equal(small.code, 2);
    assert.match(small.stderr, /--window: 1000 is below the minimum 8000/);
    assert.equal((await inProcess(['gauge', file, '--window', 'lots'])).code, 2);
    const text = await inProcess(['gauge', file]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^[\d,]+ of 200,000 tokens \([\d.]+%\)/);
    assert.match(text.stdout, /marks at 60 \/ 80 \/ 100 %, 16,000 reserved for output/);
    assert.match(text.stdout, /\n {2}messages +[\d,]+\n/);
  });
});
