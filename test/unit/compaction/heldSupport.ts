// The hostile transcript of heldText.test.ts: what real ones hold when things went wrong (broken and glued
// lines, a torn tail, CRLF and a byte order mark, a response split over lines, parallel tool calls,
// sidechain lines, a branch), with texts long enough to be left on disk (heldText.ts).
import { HOLD_CHARS } from '../../../src/core/compaction/heldText';

export const long = (seed: string, n = 3 * HOLD_CHARS): string =>
  Array.from({ length: Math.ceil(n / 40) }, (_, i) => `${seed} line ${i}: const x${i} = f(${i});`).join('\n');

/** A transcript with what real ones hold when things went wrong, and texts long enough to be held. */
export function hostileTranscript(): string {
  const base = { sessionId: 's1', cwd: '/p', version: '1', userType: 'external' };
  let at = 0;
  const ts = (): string => new Date(Date.UTC(2026, 0, 1, 0, 0, at++)).toISOString();
  const user = (uuid: string, parent: string | null, content: unknown, extra: object = {}) =>
    JSON.stringify({
      type: 'user',
      ...base,
      uuid,
      parentUuid: parent,
      timestamp: ts(),
      message: { role: 'user', content },
      ...extra,
    });
  const assistant = (uuid: string, parent: string, id: string, content: unknown, extra: object = {}) =>
    JSON.stringify({
      type: 'assistant',
      ...base,
      uuid,
      parentUuid: parent,
      timestamp: ts(),
      message: {
        id,
        role: 'assistant',
        model: 'claude-x',
        content,
        usage: { input_tokens: 900 + at, output_tokens: 40, cache_read_input_tokens: 20_000 },
      },
      ...extra,
    });
  const result = (id: string, content: unknown, isError = false) => ({
    type: 'tool_result',
    tool_use_id: id,
    content,
    ...(isError ? { is_error: true } : {}),
  });
  const lines = [
    `\ufeff${user('u1', null, `Please look at the parser.\n${long('prompt')}`)}`,
    assistant('a1', 'u1', 'm1', [{ type: 'thinking', thinking: long('thinking'), signature: 'sig' }]),
    // One response over three lines: text, then two parallel calls.
    assistant('a2', 'a1', 'm1', [{ type: 'text', text: long('answer') }]),
    assistant('a3', 'a2', 'm1', [{ type: 'tool_use', id: 't1', name: 'Read', input: { file_path: '/p/src/a.ts' } }]),
    assistant('a4', 'a3', 'm1', [
      { type: 'tool_use', id: 't2', name: 'Bash', input: { command: `cat big.txt # ${long('cmd', HOLD_CHARS)}` } },
    ]),
    // Results on a small tree, one of them a list of blocks, one an error, one with the tool's own copy.
    user('r1', 'a3', [result('t1', long('file a'))], { toolUseResult: { stdout: long('copy') } }),
    user('r2', 'a4', [
      result(
        't2',
        [
          { type: 'text', text: long('bash out') },
          { type: 'text', text: 'short' },
        ],
        true,
      ),
    ]),
    'this line is not JSON at all',
    `${user('u2', 'r2', 'Now the tests, please.')}\r`,
    // A torn line with the next append glued on.
    `{"type":"user","uuid":"half${user('u3', 'u2', 'glued after a crash')}`,
    assistant('a5', 'u3', 'm2', 'an assistant message as a string, repaired into a block'),
    assistant('a6', 'a5', 'm3', [
      { type: 'tool_use', id: 't3', name: 'Write', input: { file_path: '/p/b.ts', content: long('write') } },
    ]),
    user('r3', 'a6', [result('t3', `Error: disk full\n${long('trace')}`, true)]),
    JSON.stringify({
      ...base,
      type: 'user',
      uuid: 's-1',
      parentUuid: null,
      isSidechain: true,
      message: { role: 'user', content: long('side') },
    }),
    assistant('a7', 'r3', 'm4', [{ type: 'text', text: 'Branch one.' }]),
    // A second writer continues from the same parent: a branch.
    assistant('a8', 'r3', 'm5', [{ type: 'text', text: `Branch two.\n${long('branch')}  ` }]),
    user('u4', 'a8', [
      { type: 'text', text: long('typed') },
      { type: 'text', text: '   ' },
    ]),
    assistant('a9', 'u4', 'm6', [{ type: 'tool_use', id: 't4', name: 'Read', input: { file_path: '/p/src/a.ts' } }]),
    user('r4', 'a9', [result('t4', long('file a again'))]),
    // More calls, so the older results are trimmed while the newest stay whole.
    ...Array.from({ length: 6 }, (_, i) => [
      assistant(`c${i}`, i === 0 ? 'r4' : `d${i - 1}`, `mc${i}`, [
        { type: 'tool_use', id: `tc${i}`, name: 'Read', input: { file_path: `/p/src/f${i}.ts` } },
      ]),
      user(`d${i}`, `c${i}`, [result(`tc${i}`, long(`file f${i}`, 2 * 2_000))]),
    ]).flat(),
    '{"type":"assistant","uuid":"torn","message":{"id":"m7","content":[{"type":"text","text":"cut of',
  ];
  return lines.join('\n');
}
