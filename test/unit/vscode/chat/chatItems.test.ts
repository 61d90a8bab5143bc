import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ApiMessage } from '../../../../src/core/conversation/types';
import { clip, itemsFromMessages } from '../../../../src/vscode/chat/chatItems';

test('a resumed conversation becomes chat items with tool calls paired to their results', () => {
  const messages: ApiMessage[] = [
    { role: 'user', content: 'find greet' },
    { role: 'assistant', content: [{ type: 'text', text: 'Searching.' }, { type: 'tool_use', id: 'toolu_1', name: 'Grep', input: { pattern: 'greet' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'src/greet.js' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'It is in src/greet.js' }] },
    { role: 'user', content: [{ type: 'text', text: '   ' }] },
  ];
  const items = itemsFromMessages(messages, (name, input) => `${name} ${String(input.pattern)}`);
  assert.deepEqual(items.map((i) => i.kind), ['user', 'assistant', 'tool', 'assistant']);
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
