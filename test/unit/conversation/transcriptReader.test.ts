import assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import {
  forEachTranscriptLine,
  listSessions,
  parseTranscriptText,
  readTranscript,
} from '../../../src/core/conversation/transcriptReader';
import type { UserLine } from '../../../src/core/conversation/types';
import { withTempDir } from '../support/tempDirs';
import { CC_FIXTURES, fixtureTranscripts } from './testSupport';

const user = (uuid: string, content: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    parentUuid: null,
    isSidechain: false,
    type: 'user',
    message: { role: 'user', content },
    uuid,
    timestamp: 't',
    sessionId: 's',
    ...extra,
  });

async function readText(dir: string, text: string | Buffer) {
  const file = path.join(dir, 't.jsonl');
  await fsp.writeFile(file, text);
  return readTranscript(file);
}

test('reads every fixture without corrupt lines, keeping unknown line types', async () => {
  for (const name of await fixtureTranscripts()) {
    const r = await readTranscript(path.join(CC_FIXTURES, name));
    assert.deepEqual(r.corrupt, [], name);
    assert.equal(r.tornTail, false, name);
    const raw = (await fsp.readFile(path.join(CC_FIXTURES, name), 'utf8')).split('\n').filter(Boolean);
    assert.equal(r.lines.length, raw.length, name);
  }
  const hello = await readTranscript(path.join(CC_FIXTURES, 'hello-single-turn.jsonl'));
  assert.deepEqual(
    hello.lines.map((l) => l.type),
    ['queue-operation', 'queue-operation', 'user', 'assistant', 'last-prompt'],
  );
});

test('skips and reports corrupt lines with 1-based numbers; blank lines are silent', async () => {
  await withTempDir(async (dir) => {
    const text =
      [
        user('u1', 'first'),
        '{"type":"user", broken',
        '',
        '   ',
        '[1,2]',
        '{"no":"type"}',
        JSON.stringify({ type: 'user', uuid: 'u2' }), // no message
        JSON.stringify({ type: 'assistant', uuid: 'a1', message: { content: [] } }), // no message.id
        JSON.stringify({ type: 'file-history-snapshot', messageId: 'x' }),
        user('u3', 'last'),
      ].join('\n') + '\n';
    const r = await readText(dir, text);
    assert.deepEqual(
      r.lines.map((l) => l.uuid ?? l.type),
      ['u1', 'file-history-snapshot', 'u3'],
    );
    assert.deepEqual(
      r.corrupt.map((c) => c.line),
      [2, 5, 6, 7, 8],
    );
    assert.match(r.corrupt[0].error, /JSON/);
    assert.equal(r.tornTail, false);
  });
});

test('a last line cut off mid-write is a torn tail; a complete last line without newline is kept', async () => {
  await withTempDir(async (dir) => {
    const torn = await readText(dir, `${user('u1', 'ok')}\n${user('u2', 'cut').slice(0, 40)}`);
    assert.equal(torn.tornTail, true);
    assert.deepEqual(torn.corrupt, []);
    assert.equal(torn.lines.length, 1);

    const whole = await readText(dir, `${user('u1', 'ok')}\n${user('u2', 'no newline')}`);
    assert.equal(whole.tornTail, false);
    assert.equal(whole.lines.length, 2);

    const badMiddle = await readText(dir, `${user('u1', 'ok')}\n{oops\n`);
    assert.equal(badMiddle.tornTail, false, 'a bad line that ends in a newline was written whole');
    assert.deepEqual(
      badMiddle.corrupt.map((c) => c.line),
      [2],
    );

    const empty = await readText(dir, '');
    assert.deepEqual(empty, { lines: [], corrupt: [], tornTail: false });
  });
});

test('handles CRLF, a byte order mark, and lines and characters that span read chunks', async () => {
  await withTempDir(async (dir) => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const crlf = await readText(dir, Buffer.concat([bom, Buffer.from(`${user('u1', 'a')}\r\n${user('u2', 'b')}\r\n`)]));
    assert.deepEqual(crlf.corrupt, []);
    assert.deepEqual(
      crlf.lines.map((l) => l.uuid),
      ['u1', 'u2'],
    );

    // A 3 MB line of multi-byte characters crosses several 1 MB chunks (and splits characters between them).
    const big = '漢字🙂'.repeat(300_000);
    const r = await readText(dir, `${user('u1', 'small')}\n${user('u2', big)}\n${user('u3', 'after')}\n`);
    assert.deepEqual(r.corrupt, []);
    assert.equal((r.lines[1] as UserLine).message.content, big);
    assert.equal(r.lines[2].uuid, 'u3');
  });
});

test('forEachTranscriptLine can stop early; parseTranscriptText follows the same rules', async () => {
  await withTempDir(async (dir) => {
    const file = path.join(dir, 't.jsonl');
    await fsp.writeFile(file, [user('u1', 'a'), user('u2', 'b'), user('u3', 'c')].join('\n') + '\n');
    const seen: string[] = [];
    await forEachTranscriptLine(file, (line) => {
      seen.push(String(line.uuid));
      return seen.length < 2;
    });
    assert.deepEqual(seen, ['u1', 'u2']);
  });
  const r = parseTranscriptText(`${user('u1', 'a')}\nnope\n${user('u2', 'b').slice(0, 10)}`);
  assert.deepEqual(
    r.corrupt.map((c) => c.line),
    [2],
  );
  assert.equal(r.tornTail, true);
  assert.equal(r.lines.length, 1);
});

test('listSessions gives id, file, mtime, first typed prompt and line count, newest first', async () => {
  await withTempDir(async (dir) => {
    const older = path.join(dir, 'older.jsonl');
    const newer = path.join(dir, 'newer.jsonl');
    await fsp.writeFile(
      older,
      [
        JSON.stringify({ type: 'queue-operation', operation: 'enqueue' }),
        user('m1', '<local-command-caveat>Caveat</local-command-caveat>', { isMeta: true }),
        user('m2', '<command-name>/compact</command-name>'),
        user('u1', [{ type: 'text', text: 'fix the build' }]),
        user('u2', 'later prompt'),
      ].join('\n') + '\n',
    );
    await fsp.writeFile(newer, `${user('u9', 'hello')}\n{broken\n`);
    await fsp.writeFile(path.join(dir, 'notes.md'), '# not a session');
    await fsp.mkdir(path.join(dir, 'newer', 'subagents'), { recursive: true });
    await fsp.utimes(older, new Date(1_000_000), new Date(1_000_000));

    const sessions = await listSessions(dir);
    assert.deepEqual(
      sessions.map((s) => [s.sessionId, s.firstPrompt, s.lineCount]),
      [
        ['newer', 'hello', 2],
        ['older', 'fix the build', 5],
      ],
    );
    assert.equal(sessions[1].file, older);
    assert.ok(sessions[0].mtime.getTime() > sessions[1].mtime.getTime());
    assert.deepEqual(await listSessions(path.join(dir, 'missing')), []);
  });
});

test('promptText leaves out recalled memories attached to the prompt', async () => {
  const { promptText } = await import('../../../src/core/conversation/transcriptReader');
  const { isMemoryAttachment } = await import('../../../src/core/memory/autoMemory/recall');
  const attachment = '<engram-memory file="style.md">Greetings say Hi there</engram-memory>';
  assert.equal(isMemoryAttachment(attachment), true, 'the prefix here must match recall.ts');
  const line = {
    type: 'user',
    uuid: 'u1',
    parentUuid: null,
    sessionId: 's',
    timestamp: '',
    isSidechain: false,
    message: {
      role: 'user',
      content: [
        { type: 'text', text: 'fix greet' },
        { type: 'text', text: attachment },
      ],
    },
  } as const;
  assert.equal(promptText(line as never), 'fix greet');
});

// Issue #13: what a reader does with lines that are JSON but not what the API takes.
const assistant = (uuid: string, message: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    parentUuid: null,
    isSidechain: false,
    type: 'assistant',
    message: { id: `m_${uuid}`, role: 'assistant', ...message },
    uuid,
    timestamp: 't',
    sessionId: 's',
    ...extra,
  });

test('drops the blocks the API would reject, keeps the line (its chain holds) and reports line and reason', () => {
  const r = parseTranscriptText(
    [
      user('u1', [null, { type: 'text', text: 'kept' }]),
      assistant('a1', { content: [{ type: 'text', text: 7 }, { type: 'tool_use' }, { type: 'text', text: 'fine' }] }),
      user('u2', [
        { type: 'image' },
        { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'ok' }, { type: 'bogus' }] },
      ]),
      assistant('a2', { content: 'a string', usage: { input_tokens: 'many' } }),
    ].join('\n') + '\n',
  );
  assert.deepEqual(
    r.lines.map((l) => l.uuid),
    ['u1', 'a1', 'u2', 'a2'],
  );
  assert.deepEqual(
    r.corrupt.map((c) => [c.line, c.repaired]),
    [
      [1, true],
      [2, true],
      [3, true],
      [4, true],
    ],
  );
  assert.match(r.corrupt[0].error, /content block 0 dropped: null/);
  assert.match(
    r.corrupt[1].error,
    /content block 0 \(text\) dropped: text: .*number.*; content block 1 \(tool_use\) dropped: id:/,
  );
  assert.match(
    r.corrupt[2].error,
    /content block 0 \(image\) dropped: source: .*content block 1 \(tool_result\) repaired: item 1 \(bogus\) dropped/,
  );
  assert.match(r.corrupt[3].error, /read as one text block.*message\.usage dropped: input_tokens/);
  assert.deepEqual((r.lines[0] as UserLine).message.content, [{ type: 'text', text: 'kept' }]);
  assert.deepEqual((r.lines[2] as UserLine).message.content, [
    { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'ok' }] },
  ]);
  const a2 = r.lines[3] as unknown as { message: { content: unknown; usage?: unknown } };
  assert.deepEqual(a2.message.content, [{ type: 'text', text: 'a string' }]);
  assert.equal(a2.message.usage, undefined);
});

test('a value nested deeper than the limit is dropped wherever it is; a block of it, or a field', () => {
  const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
  const inContent = user('u1', [
    { type: 'text', text: 'kept' },
    { type: 'tool_result', tool_use_id: 't', content: 'DEEP' },
  ]).replace('"DEEP"', deep);
  const inField = user('u2', 'hello', { toolUseResult: 'DEEP' }).replace('"DEEP"', deep);
  const r = parseTranscriptText(`${inContent}\n${inField}\n`);
  assert.deepEqual(
    r.lines.map((l) => l.uuid),
    ['u1', 'u2'],
  );
  assert.match(r.corrupt[0].error, /content block 1 \(tool_result\) dropped: nests deeper than 1000 levels/);
  assert.match(r.corrupt[1].error, /"toolUseResult" dropped: nests deeper than 1000 levels/);
  assert.deepEqual((r.lines[0] as UserLine).message.content, [{ type: 'text', text: 'kept' }]);
  assert.doesNotThrow(() => JSON.stringify(r.lines));
});

test('a torn line with the next line glued on (older versions after a crash): the glued line is read', () => {
  const torn = user('u1', 'first').slice(0, 40);
  const r = parseTranscriptText(`${torn}${user('u2', 'second')}\n${user('u3', 'third')}\n`);
  assert.deepEqual(
    r.lines.map((l) => l.uuid),
    ['u2', 'u3'],
  );
  assert.deepEqual(
    r.corrupt.map((c) => [c.line, c.repaired]),
    [[1, true]],
  );
  assert.match(r.corrupt[0].error, /interrupted write/);
});
