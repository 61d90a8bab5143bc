import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { INTERRUPTED_TOOL_RESULT, normalise, normaliseWithIds } from '../../../src/core/conversation/normalise';
import { readTranscript, type TranscriptLine } from '../../../src/core/conversation/transcriptReader';
import { openSessionTranscript, type TranscriptWriter } from '../../../src/core/conversation/transcriptWriter';
import type { ApiMessage, ContentBlock, ToolResultBlock } from '../../../src/core/conversation/types';
import { withTempDir } from '../support/tempDirs';
import { CC_FIXTURES, fixtureTranscripts, validate } from './testSupport';

const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
const msg = (id: string, stopReason: 'tool_use' | 'end_turn' | null = 'end_turn') => ({
  id,
  model: 'claude-test',
  stopReason,
  usage,
});
const result = (id: string, content = `out ${id}`): ToolResultBlock => ({
  type: 'tool_result',
  tool_use_id: id,
  content,
  is_error: false,
});

/** Writes with the real writer and reads the file back, so the tests cover the round trip too. */
async function written(build: (w: TranscriptWriter) => Promise<void>): Promise<TranscriptLine[]> {
  return withTempDir(async (dir) => {
    const w = openSessionTranscript({ dataDir: dir, projectPath: '/p', sessionId: 's', version: '0.1.0' });
    await build(w);
    await w.flush();
    const r = await readTranscript(w.file);
    assert.deepEqual(r.corrupt, []);
    return r.lines;
  });
}

const shape = (messages: ApiMessage[]) =>
  messages.map(
    (m) =>
      `${m.role}:${
        typeof m.content === 'string'
          ? 'str'
          : m.content
              .map((b: ContentBlock) =>
                b.type === 'tool_use' ? `use(${b.id})` : b.type === 'tool_result' ? `res(${b.tool_use_id})` : b.type,
              )
              .join(',')
      }`,
  );

test('every fixture transcript normalises to a request the API accepts, with the expected messages', async () => {
  const expected: Record<string, { messages: number; lastText: string }> = {
    'auto-compact-window60000.transcript.jsonl': { messages: 4, lastText: 'The tool ran. Hello from the fake server.' },
    'hello-single-turn.jsonl': { messages: 2, lastText: 'Hello from the fake server.' },
    'interactive-manual-compact.transcript.jsonl': { messages: 1, lastText: '<local-command-stdout>' },
    'sm-compact.transcript.jsonl': { messages: 21, lastText: 'eleven after compact' },
    'tool-multiturn-after-manual-compact.jsonl': { messages: 4, lastText: 'Hello from the fake server.' },
    'tool-multiturn-before-compact.jsonl': { messages: 10, lastText: 'The tool ran. Hello from the fake server.' },
  };
  const names = await fixtureTranscripts();
  assert.deepEqual(names, Object.keys(expected).sort());
  for (const name of names) {
    const { lines } = await readTranscript(path.join(CC_FIXTURES, name));
    const messages = normalise(lines);
    assert.equal(validate(messages), null, name);
    assert.equal(messages.length, expected[name].messages, name);
    const last = messages[messages.length - 1];
    const lastText = typeof last.content === 'string' ? last.content : JSON.stringify(last.content);
    assert.ok(lastText.includes(expected[name].lastText), `${name}: ${lastText.slice(0, 80)}`);
  }
});

test('every prefix of every fixture (a crash at any line) still normalises to a valid request', async () => {
  let checked = 0;
  for (const name of await fixtureTranscripts()) {
    const { lines } = await readTranscript(path.join(CC_FIXTURES, name));
    for (let n = 1; n <= lines.length; n++) {
      const messages = normalise(lines.slice(0, n));
      if (messages.length === 0) continue; // nothing but bookkeeping yet, or a boundary without its summary
      assert.equal(validate(messages), null, `${name} cut after line ${n}`);
      checked++;
    }
  }
  assert.ok(checked > 200, `checked ${checked}`);
});

test('only the conversation after the last compact boundary is read, starting with its summary', async () => {
  const { lines } = await readTranscript(path.join(CC_FIXTURES, 'auto-compact-window60000.transcript.jsonl'));
  const { entries, report } = normaliseWithIds(lines);
  assert.equal(report.boundaryUuid, '71fa2253-e270-4c7b-bfc3-e86120129361');
  assert.deepEqual(shape(entries.map((e) => e.message)), [
    'user:str',
    'assistant:text,use(toolu_fake_17)',
    'user:res(toolu_fake_17)',
    'assistant:text',
  ]);
  assert.match(String(entries[0].message.content), /^This session is being continued/);
  assert.deepEqual(entries[1].messageIds, ['msg_fake_17']);
  assert.equal(entries[1].uuids.length, 2, 'both lines of msg_fake_17');

  // A boundary written as the last line (the summary never made it): nothing to resume from.
  const cut = lines.slice(0, lines.findIndex((l) => l.uuid === '71fa2253-e270-4c7b-bfc3-e86120129361') + 1);
  assert.deepEqual(normalise(cut), []);
});

test('session-memory compaction: the preserved segment is spliced in after the summary', async () => {
  const { lines } = await readTranscript(path.join(CC_FIXTURES, 'sm-compact.transcript.jsonl'));
  const { entries } = normaliseWithIds(lines);
  const first = entries[0];
  // The new summary, the summaries kept in the segment, then the first real prompt, merged into one user turn.
  assert.deepEqual(
    first.uuids.map((u) => u.slice(0, 6)),
    ['f70a8d', 'f45857', '73132e', '807d5d', 'c68e99'],
  );
  const texts = entries.flatMap((e) =>
    typeof e.message.content === 'string'
      ? [e.message.content]
      : e.message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])),
  );
  const prompts = texts
    .filter((t) => !t.startsWith('This session') && / context: filler0/.test(t))
    .map((t) => t.split(' context')[0]);
  assert.deepEqual(prompts, [
    'hello one',
    'two please USE_TOOL',
    'three plain',
    'four USE_TOOL again',
    'five plain',
    'six USE_TOOL',
    'seven plain',
    'eleven after compact',
  ]);
  // Lines written twice (re-linked by a later compaction) appear once.
  const all = entries.flatMap((e) => e.uuids);
  assert.equal(new Set(all).size, all.length);
});

test('parallel tool calls: every block of the message and every result is gathered, results in call order', async () => {
  const lines = await written(async (w) => {
    await w.appendUserPrompt('read both files');
    await w.appendAssistantBlock(msg('m1', null), { type: 'thinking', thinking: 'two reads', signature: 'sig' });
    await w.appendAssistantBlock(msg('m1', null), { type: 'text', text: 'Reading.' });
    await w.appendAssistantBlock(msg('m1', null), {
      type: 'tool_use',
      id: 't1',
      name: 'Read',
      input: { file_path: 'a' },
    });
    await w.appendAssistantBlock(msg('m1', 'tool_use'), {
      type: 'tool_use',
      id: 't2',
      name: 'Read',
      input: { file_path: 'b' },
    });
    // Results finish out of order; each hangs off its own tool_use line.
    await w.appendToolResult(result('t2'));
    await w.appendToolResult(result('t1'));
    await w.appendAssistantBlock(msg('m2'), { type: 'text', text: 'Both read.' });
  });
  // The plain parent chain misses the second tool_use line and the first result written:
  const { entries } = normaliseWithIds(lines);
  const messages = entries.map((e) => e.message);
  assert.equal(validate(messages), null);
  assert.deepEqual(shape(messages), [
    'user:str',
    'assistant:thinking,text,use(t1),use(t2)',
    'user:res(t1),res(t2)',
    'assistant:text',
  ]);
  assert.deepEqual((messages[1].content as ContentBlock[])[0], {
    type: 'thinking',
    thinking: 'two reads',
    signature: 'sig',
  });
  assert.equal(entries[1].uuids.length, 4);
  assert.equal(entries[2].uuids.length, 2);
});

test('a tool call left unanswered by a crash gets an error result; so does one before a new prompt', async () => {
  const lines = await written(async (w) => {
    await w.appendUserPrompt('run it');
    await w.appendAssistantBlock(msg('m1', 'tool_use'), {
      type: 'tool_use',
      id: 't1',
      name: 'Bash',
      input: { command: 'make' },
    });
  });
  const { entries, report } = normaliseWithIds(lines);
  const messages = entries.map((e) => e.message);
  assert.equal(validate(messages), null);
  assert.deepEqual(shape(messages), ['user:str', 'assistant:use(t1)', 'user:res(t1)']);
  assert.deepEqual((messages[2].content as ContentBlock[])[0], {
    type: 'tool_result',
    tool_use_id: 't1',
    content: INTERRUPTED_TOOL_RESULT,
    is_error: true,
  });
  assert.deepEqual(report.danglingToolUses, ['t1']);
  assert.deepEqual(entries[2].uuids, [], 'a made-up result has no line');

  const resumed = await written(async (w) => {
    await w.appendUserPrompt('run two');
    await w.appendAssistantBlock(msg('m1', 'tool_use'), { type: 'tool_use', id: 't1', name: 'Bash', input: {} });
    await w.appendAssistantBlock(msg('m1', 'tool_use'), { type: 'tool_use', id: 't2', name: 'Bash', input: {} });
    await w.appendToolResult(result('t1'));
    await w.appendUserPrompt('never mind, do this instead'); // the session restarted before t2 answered
    await w.appendAssistantBlock(msg('m2'), { type: 'text', text: 'OK.' });
  });
  const m2 = normalise(resumed);
  assert.equal(validate(m2), null);
  assert.deepEqual(shape(m2), ['user:str', 'assistant:use(t1),use(t2)', 'user:res(t1),res(t2),text', 'assistant:text']);
});

test('API error lines, empty text and orphan results are left out; same-role neighbours merge', async () => {
  const lines = await written(async (w) => {
    await w.appendUserPrompt('first');
    await w.appendApiError('API Error: 529 Overloaded');
    await w.appendUserPrompt('   ');
    await w.appendUserPrompt('second');
    await w.appendAssistantBlock(msg('m1', null), { type: 'text', text: '' });
    await w.appendAssistantBlock(msg('m1', null), { type: 'text', text: ' \n' });
    await w.appendAssistantBlock(msg('m1'), { type: 'text', text: 'Done.\n' });
    await w.appendSystem({ subtype: 'informational', content: 'note to the user' });
    await w.appendToolResult(result('gone')); // its tool_use was compacted away
    await w.appendUserPrompt([{ type: 'text', text: 'third' }]);
  });
  const { entries, report } = normaliseWithIds(lines);
  const messages = entries.map((e) => e.message);
  assert.equal(validate(messages), null);
  assert.deepEqual(messages, [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'first' },
        { type: 'text', text: 'second' },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: 'Done.\n' }] },
    { role: 'user', content: [{ type: 'text', text: 'third' }] },
  ]);
  assert.equal(report.apiErrorLinesDropped, 1);
  assert.equal(report.emptyTextDropped, 3);
  assert.deepEqual(report.orphanResults, ['gone']);
  assert.equal(entries[0].uuids.length, 2, 'lines that were dropped entirely belong to no message');
});

test("a conversation ending on the model's text loses only trailing whitespace (the API rejects it on a prefill)", async () => {
  const lines = await written(async (w) => {
    await w.appendUserPrompt('hi');
    await w.appendAssistantBlock(msg('m1'), { type: 'text', text: 'Hello!\n\n' });
  });
  const messages = normalise(lines);
  assert.equal(validate(messages), null);
  assert.deepEqual(messages[1], { role: 'assistant', content: [{ type: 'text', text: 'Hello!' }] });
});

test('tool_result blocks go first in their user message; cache_control is dropped; repeated tool ids are not', () => {
  const base = { isSidechain: false, sessionId: 's', timestamp: 't' };
  const lines: TranscriptLine[] = [
    {
      ...base,
      type: 'user',
      uuid: 'u1',
      parentUuid: null,
      message: { role: 'user', content: [{ type: 'text', text: 'go', cache_control: { type: 'ephemeral' } }] },
    },
    {
      ...base,
      type: 'assistant',
      uuid: 'a1',
      parentUuid: 'u1',
      message: {
        id: 'm1',
        type: 'message',
        role: 'assistant',
        model: 'x',
        stop_reason: 'tool_use',
        stop_sequence: null,
        usage,
        content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: {} }],
      },
    },
    // An older writer put a note before the result in one line.
    {
      ...base,
      type: 'user',
      uuid: 'r1',
      parentUuid: 'a1',
      message: { role: 'user', content: [{ type: 'text', text: 'note' }, result('t1')] },
    },
    {
      ...base,
      type: 'assistant',
      uuid: 'a2',
      parentUuid: 'r1',
      message: {
        id: 'm2',
        type: 'message',
        role: 'assistant',
        model: 'x',
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage,
        content: [
          { type: 'tool_use', id: 't1', name: 'Bash', input: {} },
          { type: 'text', text: 'done' },
        ],
      },
    },
  ];
  const messages = normalise(lines);
  assert.equal(validate(messages), null);
  assert.deepEqual(shape(messages), ['user:text', 'assistant:use(t1)', 'user:res(t1),text', 'assistant:text']);
  assert.equal('cache_control' in (messages[0].content as ContentBlock[])[0], false);
  assert.ok(
    'cache_control' in (lines[0] as { message: { content: object[] } }).message.content[0],
    'input lines are not mutated',
  );
});

test('sub-agent transcripts read their sidechain lines; a main transcript ignores stray sidechain lines', async () => {
  const side = await withTempDir(async (dir) => {
    const w = openSessionTranscript({
      dataDir: dir,
      projectPath: '/p',
      sessionId: 's',
      version: '0.1.0',
      agentId: 'ag1',
    });
    await w.appendUserPrompt('update the notes');
    await w.appendAssistantBlock(msg('m1'), { type: 'text', text: 'Updated.' });
    return (await readTranscript(w.file)).lines;
  });
  assert.deepEqual(shape(normalise(side)), ['user:str', 'assistant:text']);

  const main = await written(async (w) => {
    await w.appendUserPrompt('main prompt');
    await w.appendAssistantBlock(msg('m1'), { type: 'text', text: 'main answer' });
  });
  const stray = side.map((l) => ({
    ...l,
    uuid: `x-${String(l.uuid)}`,
    parentUuid: l.parentUuid ? `x-${String(l.parentUuid)}` : null,
  }));
  const messages = normalise([...main, ...stray]);
  assert.deepEqual(
    messages.map((m) => (typeof m.content === 'string' ? m.content : (m.content[0] as { text: string }).text)),
    ['main prompt', 'main answer'],
  );
});

test('a cycle or a missing parent ends the walk instead of hanging or throwing', () => {
  const base = { isSidechain: false, sessionId: 's', timestamp: 't', type: 'user' as const };
  const cyclic: TranscriptLine[] = [
    { ...base, uuid: 'a', parentUuid: 'b', message: { role: 'user', content: 'a' } },
    { ...base, uuid: 'b', parentUuid: 'a', message: { role: 'user', content: 'b' } },
  ];
  assert.equal(validate(normalise(cyclic)), null);
  const orphan: TranscriptLine[] = [
    { ...base, uuid: 'z', parentUuid: 'missing', message: { role: 'user', content: 'z' } },
  ];
  assert.deepEqual(normalise(orphan), [{ role: 'user', content: 'z' }]);
  assert.deepEqual(normalise([]), []);
});
