import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ApiMessage } from '../../../../src/core/conversation/types';
import { clip, itemsFromMessages } from '../../../../src/vscode/chat/chatItems';
import { repeatNote } from '../../../../src/core/conversation/repeatedResults';

test('a resumed conversation becomes chat items with tool calls paired to their results', () => {
  const messages: ApiMessage[] = [
    { role: 'user', content: 'find greet' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Searching.' },
        { type: 'tool_use', id: 'toolu_1', name: 'Grep', input: { pattern: 'greet' } },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'src/greet.js' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'It is in src/greet.js' }] },
    { role: 'user', content: [{ type: 'text', text: '   ' }] },
  ];
  const items = itemsFromMessages(messages, (name, input) => `${name} ${String(input.pattern)}`);
  assert.deepEqual(
    items.map((i) => i.kind),
    ['user', 'assistant', 'tool', 'assistant'],
  );
  const tool = items[2];
  assert.ok(tool.kind === 'tool');
  assert.equal(tool.summary, 'Grep greet');
  assert.equal(tool.result, 'src/greet.js');
  assert.equal(tool.status, 'done');
});

test('long tool output is clipped for display with a count of what was left out', () => {
  const text = clip('x'.repeat(25_000), 20_000);
  assert.ok(text.startsWith('x'.repeat(20_000)));
  assert.match(text, /5,000 more characters/);
});

test('a result the model got as a repeat note shows, after a resume, the full output it stands for', () => {
  const output = 'line of the file\n'.repeat(60);
  const messages: ApiMessage[] = [
    { role: 'user', content: 'read it twice' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'a.py' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: output }] },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_2', name: 'Read', input: { file_path: 'a.py' } }] },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_2',
          content: repeatNote('toolu_1', { name: 'Read', summary: 'Read a.py' }, output.length),
        },
      ],
    },
  ];
  const tools = itemsFromMessages(messages, (name) => name).filter((i) => i.kind === 'tool');
  assert.deepEqual(
    tools.map((t) => (t.kind === 'tool' ? t.result : '')),
    [output, output],
  );
});

test('a change note read back from a transcript shows the full output the transcript kept', () => {
  const messages: ApiMessage[] = [
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_2', name: 'Read', input: { file_path: 'a.py' } }] },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_2',
          content:
            '[Changed since the earlier Read call, id toolu_1; only what changed is shown ...]\n@@ -1,1 +1,1 @@\n-a\n+b',
        },
      ],
    },
  ];
  const tools = itemsFromMessages(messages, (name) => name, new Map([['toolu_2', '     1\tb']])).filter(
    (i) => i.kind === 'tool',
  );
  assert.deepEqual(
    tools.map((t) => (t.kind === 'tool' ? t.result : '')),
    ['     1\tb'],
  );
});
