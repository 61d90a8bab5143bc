import assert from 'node:assert/strict';
import fs, { promises as fsp } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { normaliseWithIds } from '../../../src/core/conversation/normalise';
import { sessionTranscriptPath, subagentTranscriptPath } from '../../../src/core/conversation/projectKey';
import { appendHistory } from '../../../src/core/conversation/promptHistory';
import { readTranscript } from '../../../src/core/conversation/transcriptReader';
import { openSessionTranscript, TranscriptWriter } from '../../../src/core/conversation/transcriptWriter';
import type { AssistantLine, UserLine } from '../../../src/core/conversation/types';
import { withTempDir } from '../support/tempDirs';
import { CC_FIXTURES, validate } from './testSupport';

const usage = { input_tokens: 100, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 12 };
const info = { id: 'msg_1', model: 'claude-test', stopReason: 'tool_use' as const, usage, requestId: 'req_1' };

function writer(dataDir: string, agentId?: string): TranscriptWriter {
  return openSessionTranscript({
    dataDir,
    projectPath: '/home/dev/demo',
    sessionId: 'sess-1',
    version: '0.1.0',
    gitBranch: 'main',
    agentId,
  });
}

async function fixtureLines(name: string): Promise<Record<string, unknown>[]> {
  const text = await fsp.readFile(path.join(CC_FIXTURES, name), 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Key order of a line, leaving out what Claude Code adds and Engram has no use for. */
const keys = (o: Record<string, unknown>): string[] => Object.keys(o).filter((k) => k !== 'slug');

test('writes one line per event in Claude Code shapes (same keys in the same order as the fixtures)', async () => {
  await withTempDir(async (dir) => {
    const w = writer(dir);
    const prompt = await w.appendUserPrompt('please USE_TOOL', { permissionMode: 'default' });
    const text = await w.appendAssistantBlock({ ...info, stopReason: null }, { type: 'text', text: 'I will run ls.' });
    const call = await w.appendAssistantBlock(info, {
      type: 'tool_use',
      id: 'toolu_1',
      name: 'Bash',
      input: { command: 'ls' },
    });
    const result = await w.appendToolResult(
      { type: 'tool_result', tool_use_id: 'toolu_1', content: 'README.txt', is_error: false },
      { toolUseResult: { stdout: 'README.txt', stderr: '' } },
    );
    const boundary = await w.appendCompactBoundary({ trigger: 'manual', preTokens: 24000 });
    const summary = await w.appendCompactSummary('Summary: ...');
    const meta = await w.appendUserPrompt('<local-command-caveat>...</local-command-caveat>', { isMeta: true });
    const apiError = await w.appendApiError('API Error: 500 boom');
    await w.flush();

    const hello = await fixtureLines('hello-single-turn.jsonl');
    const before = await fixtureLines('tool-multiturn-before-compact.jsonl');
    const after = await fixtureLines('tool-multiturn-after-manual-compact.jsonl');
    const interactive = await fixtureLines('interactive-manual-compact.transcript.jsonl');
    const find = (lines: Record<string, unknown>[], pred: (l: Record<string, unknown>) => boolean) => {
      const found = lines.find(pred);
      assert.ok(found, 'fixture line missing');
      return found;
    };
    assert.deepEqual(keys(prompt), keys(hello[2]));
    assert.deepEqual(keys(text), keys(hello[3]));
    assert.deepEqual(Object.keys(text.message), Object.keys(hello[3].message as object));
    assert.deepEqual(keys(result), keys(find(before, (l) => 'toolUseResult' in l)));
    assert.deepEqual(keys(boundary), keys(find(after, (l) => l.subtype === 'compact_boundary')));
    assert.deepEqual(keys(summary), keys(find(interactive, (l) => l.isCompactSummary === true)));
    assert.deepEqual(keys(meta), keys(find(interactive, (l) => l.isMeta === true)));
    assert.deepEqual(
      keys(apiError),
      keys(find(after, (l) => (l.message as { model?: string } | undefined)?.model === '<synthetic>')),
    );

    // Field values and links the way Claude Code writes them.
    assert.equal(prompt.parentUuid, null);
    assert.equal(prompt.entrypoint, 'engram');
    assert.equal(prompt.userType, 'external');
    assert.equal(prompt.cwd, '/home/dev/demo');
    assert.equal(text.parentUuid, prompt.uuid);
    assert.equal(call.parentUuid, text.uuid);
    assert.equal(call.message.id, text.message.id);
    assert.equal(result.parentUuid, call.uuid, 'a result hangs off the line holding its tool_use');
    assert.equal(result.sourceToolAssistantUUID, call.uuid);
    assert.equal(result.promptId, prompt.promptId);
    assert.equal(boundary.parentUuid, null);
    assert.equal(boundary.logicalParentUuid, result.uuid);
    assert.deepEqual(boundary.compactMetadata, { trigger: 'manual', preTokens: 24000 });
    assert.equal(summary.parentUuid, boundary.uuid);
    assert.equal(meta.promptId, prompt.promptId, 'a meta line belongs to the current prompt');
    assert.equal(apiError.isApiErrorMessage, true);
    assert.equal(apiError.message.model, '<synthetic>');

    // Round trip: the reader gets back exactly what was written.
    const file = sessionTranscriptPath(dir, '/home/dev/demo', 'sess-1');
    const read = await readTranscript(file);
    assert.deepEqual(read.corrupt, []);
    assert.equal(read.tornTail, false);
    assert.deepEqual(
      read.lines,
      [prompt, text, call, result, boundary, summary, meta, apiError].map((l) => JSON.parse(JSON.stringify(l))),
    );
  });
});

test('appends issued without waiting land in call order with an unbroken parent chain', async () => {
  await withTempDir(async (dir) => {
    const w = writer(dir);
    const pending: Promise<UserLine | AssistantLine>[] = [];
    for (let i = 0; i < 200; i++) {
      pending.push(
        i % 2 === 0
          ? w.appendUserPrompt(`prompt ${i}`)
          : w.appendAssistantBlock(
              { ...info, id: `msg_${i}`, stopReason: 'end_turn' },
              { type: 'text', text: `answer ${i}` },
            ),
      );
    }
    // A second writer of the same file shares the queue: its line comes after all 200.
    const other = writer(dir);
    pending.push(other.appendUserPrompt('from another writer'));
    await Promise.all(pending);
    const read = await readTranscript(w.file);
    assert.equal(read.lines.length, 201);
    for (let i = 1; i < 200; i++) assert.equal(read.lines[i].parentUuid, read.lines[i - 1].uuid);
    assert.equal((read.lines[200] as UserLine).message.content, 'from another writer');
  });
});

test('sub-agent transcripts go under <session>/subagents with isSidechain and agentId', async () => {
  await withTempDir(async (dir) => {
    const w = writer(dir, 'a1b2');
    assert.equal(w.file, subagentTranscriptPath(dir, '/home/dev/demo', 'sess-1', 'a1b2'));
    const line = await w.appendUserPrompt('notes update');
    assert.equal(line.isSidechain, true);
    assert.equal(line.agentId, 'a1b2');
    const read = await readTranscript(w.file);
    assert.equal(read.lines.length, 1);
  });
});

test('a resumed writer continues the chain; setParent re-roots it', async () => {
  await withTempDir(async (dir) => {
    const w = openSessionTranscript({
      dataDir: dir,
      projectPath: '/p',
      sessionId: 's',
      version: '0.1.0',
      parentUuid: 'old-leaf',
    });
    const a = await w.appendUserPrompt('again');
    assert.equal(a.parentUuid, 'old-leaf');
    w.setParent('elsewhere');
    const b = await w.appendUserPrompt('fork');
    assert.equal(b.parentUuid, 'elsewhere');
    assert.equal('gitBranch' in b, false, 'no branch outside a repository');
  });
});

test("appendHistory writes history.jsonl lines shaped like Claude Code's", async () => {
  await withTempDir(async (dir) => {
    await Promise.all([
      appendHistory(dir, { display: 'hello', timestamp: 1, project: '/home/dev/demo', sessionId: 's' }),
      appendHistory(dir, { display: 'second', timestamp: 2, project: '/home/dev/demo', sessionId: 's' }),
    ]);
    const lines = (await fsp.readFile(path.join(dir, 'history.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const fixture = JSON.parse(
      (await fsp.readFile(path.join(CC_FIXTURES, 'interactive-history.jsonl'), 'utf8')).split('\n')[0],
    );
    assert.deepEqual(
      lines.map((l) => l.display),
      ['hello', 'second'],
    );
    assert.deepEqual(Object.keys(lines[0]), Object.keys(fixture));
  });
});

test('a streamed turn reads back as the API messages it made, each with the uuids of its lines', async () => {
  await withTempDir(async (dir) => {
    const w = writer(dir);
    const prompt = await w.appendUserPrompt('list files');
    const text = await w.appendAssistantBlock(
      { ...info, id: 'm1', stopReason: null },
      { type: 'text', text: 'Listing.' },
    );
    const call = await w.appendAssistantBlock(
      { ...info, id: 'm1' },
      { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } },
    );
    const result = await w.appendToolResult(
      { type: 'tool_result', tool_use_id: 't1', content: 'a.txt' },
      { toolUseResult: { stdout: 'a.txt' } },
    );
    const answer = await w.appendAssistantBlock(
      { ...info, id: 'm2', stopReason: 'end_turn' },
      { type: 'text', text: 'One file.' },
    );

    const { entries } = normaliseWithIds((await readTranscript(w.file)).lines);
    const messages = entries.map((e) => e.message);
    assert.equal(validate(messages), null);
    assert.deepEqual(messages, [
      { role: 'user', content: 'list files' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Listing.' },
          { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a.txt' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'One file.' }] },
    ]);
    assert.deepEqual(
      entries.map((e) => e.uuids),
      [[prompt.uuid], [text.uuid, call.uuid], [result.uuid], [answer.uuid]],
    );
  });
});

// Issue #13, class 1: a crash or a full disk must not cost the history.
test('a last line cut off by a crash is fenced off before the next line: no line before it is lost', async () => {
  await withTempDir(async (dir) => {
    const first = writer(dir);
    const prompt = await first.appendUserPrompt('one');
    const answer = await first.appendAssistantBlock(
      { ...info, stopReason: 'end_turn' },
      { type: 'text', text: 'first answer' },
    );
    await first.flush();
    const whole = await fsp.readFile(first.file, 'utf8');
    await fsp.writeFile(first.file, whole.slice(0, whole.length - 30)); // the answer's line, torn

    // The next process resumes from the last good line, as openSession does.
    const next = openSessionTranscript({
      dataDir: dir,
      projectPath: '/home/dev/demo',
      sessionId: 'sess-1',
      version: '0.1.0',
      parentUuid: prompt.uuid,
    });
    const again = await next.appendUserPrompt('two');
    const read = await readTranscript(next.file);
    assert.deepEqual(
      read.lines.map((l) => l.uuid),
      [prompt.uuid, again.uuid],
      'the new prompt is a line of its own',
    );
    assert.deepEqual(
      read.corrupt.map((c) => c.line),
      [2],
      'the torn line is reported where it is',
    );
    assert.equal(read.tornTail, false);
    assert.ok(!read.lines.some((l) => l.uuid === answer.uuid));
  });
});

test("a write the disk refuses (ENOSPC on /dev/full) rejects and stays the writer's failure", {
  skip: !fs.existsSync('/dev/full') && 'needs /dev/full',
}, async () => {
  const w = new TranscriptWriter({ file: '/dev/full', sessionId: 's', cwd: '/p', version: '0.1.0' });
  await assert.rejects(w.appendUserPrompt('hello'), /ENOSPC/);
  assert.match(String(w.failure?.message), /ENOSPC/);
  await w.flush();
  assert.match(String(w.failure?.message), /ENOSPC/, 'still failing: nothing was written since');
});

test('after a failed write the writer writes the lost lines first once it can: the chain has no gap', async () => {
  await withTempDir(async (dir) => {
    const blocker = path.join(dir, 'projects');
    await fsp.writeFile(blocker, 'not a folder'); // the project folder cannot be made
    const w = writer(dir);
    await assert.rejects(w.appendUserPrompt('lost?'));
    assert.ok(w.failure);
    await fsp.rm(blocker);
    const answer = await w.appendAssistantBlock({ ...info, stopReason: 'end_turn' }, { type: 'text', text: 'answer' });
    assert.equal(w.failure, undefined);
    const read = await readTranscript(w.file);
    assert.deepEqual(
      read.lines.map((l) => (l.type === 'user' ? (l as UserLine).message.content : l.uuid)),
      ['lost?', answer.uuid],
    );
    assert.equal(read.lines[1].parentUuid, read.lines[0].uuid);
  });
});
