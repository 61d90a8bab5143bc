import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateMessagesRequest } from '../../../src/testServer/requestValidator';

type Msg = { role: string; content: unknown };
const req = (messages: Msg[], extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  model: 'claude-test',
  max_tokens: 1024,
  messages,
  ...extra,
});
const use = (id: string, name = 'Read') => ({ type: 'tool_use', id, name, input: { file_path: '/a' } });
const result = (id: string, content: unknown = 'ok') => ({ type: 'tool_result', tool_use_id: id, content });
const text = (t: string) => ({ type: 'text', text: t });

function rejects(body: unknown, message: string, opts?: Parameters<typeof validateMessagesRequest>[1]): void {
  const err = validateMessagesRequest(body, opts);
  assert.ok(err, `expected rejection: ${message}`);
  assert.equal(err.status, 400);
  assert.equal(err.type, 'invalid_request_error');
  assert.equal(err.message, message);
}

describe('validateMessagesRequest: accepted requests', () => {
  it('accepts a realistic tool conversation with parallel calls, thinking and cache breakpoints', () => {
    const body = req(
      [
        { role: 'user', content: 'fix the bug' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'look first', signature: 'c2ln' },
            text('Reading both files.'),
            use('toolu_01A'),
            use('toolu_01B'),
          ],
        },
        { role: 'user', content: [result('toolu_01A'), result('toolu_01B', [text('two')]), text('also check tests')] },
        { role: 'assistant', content: [text('Done.')] },
        { role: 'user', content: [{ ...text('thanks'), cache_control: { type: 'ephemeral' } }] },
      ],
      {
        system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral', ttl: '1h' } }],
        tools: [
          {
            name: 'Read',
            description: 'read a file',
            input_schema: { type: 'object' },
            cache_control: { type: 'ephemeral' },
          },
        ],
      },
    );
    assert.equal(validateMessagesRequest(body), null);
  });

  it('accepts consecutive same-role messages (the API combines them into one turn)', () => {
    const body = req([
      { role: 'user', content: 'one' },
      { role: 'user', content: 'two' },
      { role: 'assistant', content: [use('toolu_01A')] },
      { role: 'assistant', content: [use('toolu_01B')] },
      { role: 'user', content: [result('toolu_01A')] },
      { role: 'user', content: [result('toolu_01B'), text('go on')] },
    ]);
    assert.equal(validateMessagesRequest(body), null);
  });

  it('accepts a first assistant message, an empty final assistant prefill, and an empty tool_result', () => {
    assert.equal(
      validateMessagesRequest(
        req([
          { role: 'assistant', content: 'Hi!' },
          { role: 'user', content: 'hello' },
        ]),
      ),
      null,
    );
    assert.equal(
      validateMessagesRequest(
        req([
          { role: 'user', content: 'hello' },
          { role: 'assistant', content: [] },
        ]),
      ),
      null,
    );
    assert.equal(
      validateMessagesRequest(
        req([
          { role: 'user', content: 'x' },
          { role: 'assistant', content: [use('toolu_01A')] },
          { role: 'user', content: [result('toolu_01A', '')] },
        ]),
      ),
      null,
    );
  });

  it('count_tokens needs no max_tokens and has no window check', () => {
    const body = { model: 'm', messages: [{ role: 'user', content: 'x'.repeat(4000) }] };
    assert.equal(validateMessagesRequest(body, { endpoint: 'count_tokens', contextWindow: 10 }), null);
  });
});

describe('validateMessagesRequest: request shape', () => {
  it('requires model, max_tokens and a non-empty messages list', () => {
    rejects({ max_tokens: 1, messages: [] }, 'model: Field required');
    rejects({ model: 1, max_tokens: 1, messages: [] }, 'model: Input should be a valid string');
    rejects({ model: 'm', messages: [] }, 'max_tokens: Field required');
    rejects({ model: 'm', max_tokens: 1.5, messages: [] }, 'max_tokens: Input should be a valid integer');
    rejects({ model: 'm', max_tokens: 1 }, 'messages: Field required');
    rejects({ model: 'm', max_tokens: 1, messages: {} }, 'messages: Input should be a valid list');
    rejects({ model: 'm', max_tokens: 1, messages: [] }, 'messages: at least one message is required');
    rejects('nope', 'Input should be a valid dictionary');
  });

  it('rejects roles other than user and assistant', () => {
    rejects(req([{ role: 'system', content: 'x' }]), "messages.0.role: Input should be 'user' or 'assistant'");
    rejects(req([{ role: 'user', content: 'x' }, { content: 'y' } as Msg]), 'messages.1.role: Field required');
  });

  it('rejects unknown block types and malformed tool ids', () => {
    rejects(
      req([{ role: 'user', content: [{ type: 'video' }] }]),
      "messages.0.content.0: Input tag 'video' found using 'type' does not match any of the expected tags: " +
        "'text', 'image', 'document', 'tool_use', 'tool_result', 'thinking', 'redacted_thinking'",
    );
    rejects(
      req([
        { role: 'user', content: 'x' },
        { role: 'assistant', content: [use('bad id!')] },
      ]),
      "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'",
    );
  });

  it('requires a signature on thinking blocks', () => {
    rejects(
      req([
        { role: 'user', content: 'x' },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm' }, text('a')] },
      ]),
      'messages.1.content.0.thinking.signature: Field required',
    );
  });

  it('rejects duplicate tool names', () => {
    const tool = { name: 'Read', description: '', input_schema: { type: 'object' } };
    rejects(req([{ role: 'user', content: 'x' }], { tools: [tool, tool] }), 'tools: Tool names must be unique.');
  });

  it('rejects an input_schema of another type or with oneOf/anyOf/allOf at its top, as the API does', () => {
    const schema = (input_schema: unknown) => ({ tools: [{ name: 'T', description: '', input_schema }] });
    rejects(
      req([{ role: 'user', content: 'x' }], schema({ type: 'array' })),
      "tools.0.custom.input_schema.type: Input should be 'object'",
    );
    rejects(
      req([{ role: 'user', content: 'x' }], schema({ type: 'object', anyOf: [] })),
      'tools.0.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level',
    );
  });
});

describe('validateMessagesRequest: content rules', () => {
  it('rejects empty content except on the final assistant message', () => {
    const msg = 'messages.1: all messages must have non-empty content except for the optional final assistant message';
    rejects(
      req([
        { role: 'user', content: 'x' },
        { role: 'assistant', content: [] },
        { role: 'user', content: 'y' },
      ]),
      msg,
    );
    rejects(
      req([
        { role: 'user', content: 'x' },
        { role: 'assistant', content: '' },
        { role: 'user', content: 'y' },
      ]),
      msg,
    );
    rejects(req([{ role: 'user', content: [] }]), msg.replace('messages.1', 'messages.0'));
  });

  it('rejects empty and whitespace-only text blocks, also inside tool results', () => {
    rejects(req([{ role: 'user', content: [text('')] }]), 'messages: text content blocks must be non-empty');
    rejects(
      req([{ role: 'user', content: [text('ok'), text(' \n ')] }]),
      'messages: text content blocks must contain non-whitespace text',
    );
    rejects(req([{ role: 'user', content: '   ' }]), 'messages: text content blocks must contain non-whitespace text');
    rejects(
      req([
        { role: 'user', content: 'x' },
        { role: 'assistant', content: [use('toolu_01A')] },
        { role: 'user', content: [result('toolu_01A', [text('')])] },
      ]),
      'messages: text content blocks must be non-empty',
    );
  });

  it('rejects a prefill ending in whitespace', () => {
    rejects(
      req([
        { role: 'user', content: 'x' },
        { role: 'assistant', content: 'The answer is ' },
      ]),
      'messages: final assistant content cannot end with trailing whitespace',
    );
  });
});

describe('validateMessagesRequest: tool pairing', () => {
  it('rejects a tool_use without a tool_result in the next message', () => {
    rejects(
      req([
        { role: 'user', content: 'x' },
        { role: 'assistant', content: [use('toolu_01A'), use('toolu_01B')] },
        { role: 'user', content: 'never mind' },
      ]),
      'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01A, toolu_01B. ' +
        'Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
    );
  });

  it('rejects a dangling tool_use at the end of the conversation', () => {
    rejects(
      req([
        { role: 'user', content: 'x' },
        { role: 'assistant', content: [text('let me look'), use('toolu_01A')] },
      ]),
      'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01A. ' +
        'Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
    );
  });

  it('requires tool_result blocks to open the next user turn', () => {
    rejects(
      req([
        { role: 'user', content: 'x' },
        { role: 'assistant', content: [use('toolu_01A')] },
        { role: 'user', content: [text('here you go'), result('toolu_01A')] },
      ]),
      'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01A. ' +
        'Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
    );
  });

  it('rejects a tool_result whose tool_use is not in the previous message', () => {
    rejects(
      req([
        { role: 'user', content: 'x' },
        { role: 'assistant', content: [use('toolu_01A')] },
        { role: 'user', content: [result('toolu_01A'), result('toolu_01Z')] },
      ]),
      'messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01Z. ' +
        'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
    );
    // An older result left behind after its tool_use was cut away.
    rejects(
      req([{ role: 'user', content: [result('toolu_01A'), text('continue')] }]),
      'messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01A. ' +
        'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
    );
  });

  it('rejects duplicate tool_use ids anywhere in the request', () => {
    rejects(
      req([
        { role: 'user', content: 'x' },
        { role: 'assistant', content: [use('toolu_01A')] },
        { role: 'user', content: [result('toolu_01A')] },
        { role: 'assistant', content: [text('again'), use('toolu_01A')] },
        { role: 'user', content: [result('toolu_01A')] },
      ]),
      'messages.3.content.1: `tool_use` ids must be unique',
    );
  });
});

describe('validateMessagesRequest: limits', () => {
  it('allows at most 4 cache_control blocks across tools, system and messages', () => {
    const cc = { type: 'ephemeral' };
    const body = req(
      [
        {
          role: 'user',
          content: [
            { ...text('a'), cache_control: cc },
            { ...text('b'), cache_control: cc },
          ],
        },
      ],
      {
        tools: [{ name: 'T', description: '', input_schema: {}, cache_control: cc }],
        system: [
          { type: 'text', text: 's1', cache_control: cc },
          { type: 'text', text: 's2', cache_control: cc },
        ],
      },
    );
    rejects(body, 'A maximum of 4 blocks with cache_control may be provided. Found 5.');
  });

  it('rejects prompts over the context window with the counted tokens', () => {
    const body = req([{ role: 'user', content: 'x'.repeat(800) }]); // 200 tokens by the server's count
    rejects(body, 'prompt is too long: 200 tokens > 150 maximum', { contextWindow: 150 });
    assert.equal(validateMessagesRequest(body, { contextWindow: 200 }), null);
    rejects(body, 'prompt is too long: 999 tokens > 500 maximum', { contextWindow: 500, countTokens: () => 999 });
  });

  it('uses a 200,000-token window by default', () => {
    const body = req([{ role: 'user', content: 'x'.repeat(800_004) }]);
    rejects(body, 'prompt is too long: 200001 tokens > 200000 maximum');
  });
});
