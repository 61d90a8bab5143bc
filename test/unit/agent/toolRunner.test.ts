// The tool runner in-process: every call is answered, whatever goes wrong.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ToolGate } from '../../../src/core/agent/permissions';
import { runToolCalls, type ToolCallOutcome } from '../../../src/core/agent/toolRunner';
import type { ToolUseBlock } from '../../../src/core/conversation/types';
import { ReadFileState } from '../../../src/core/tools/readFileState';
import type { Tool } from '../../../src/core/tools/tool';

function tool(name: string, run: Tool['run'], validate: Tool['validate'] = () => null): Tool {
  return {
    name,
    schema: { name, description: name, input_schema: { type: 'object' } },
    readOnly: true,
    concurrencySafe: true,
    validate,
    summarize: () => name,
    run,
  };
}

const call = (id: string, name: string, input: Record<string, unknown> = {}): ToolUseBlock => ({
  type: 'tool_use',
  id,
  name,
  input,
});
const allow: ToolGate = async () => ({ allow: true });

async function run(
  calls: ToolUseBlock[],
  tools: Tool[],
  gate: ToolGate = allow,
  signal = new AbortController().signal,
) {
  const seen: ToolCallOutcome[] = [];
  const outcomes = await runToolCalls(calls, {
    tools: new Map(tools.map((t) => [t.name, t])),
    gate,
    context: { cwd: process.cwd(), readFiles: new ReadFileState() },
    signal,
    onResult: (o) => seen.push(o),
  });
  return { outcomes, seen };
}

describe('runToolCalls', () => {
  it('answers unknown tools, invalid input, throwing tools, denials and empty output, in call order', async () => {
    const ok = tool('Ok', async () => ({ content: '', isError: false }));
    const strict = tool(
      'Strict',
      async () => ({ content: 'ran', isError: false }),
      () => 'path is required',
    );
    const broken = tool('Broken', async () => {
      throw new Error('boom');
    });
    const guarded = tool('Guarded', async () => ({ content: 'ran', isError: false }));
    const gate: ToolGate = async (t) =>
      t.name === 'Guarded' ? { allow: false, reason: 'not today' } : { allow: true };
    const { outcomes, seen } = await run(
      [call('1', 'Nope'), call('2', 'Strict'), call('3', 'Broken'), call('4', 'Guarded'), call('5', 'Ok')],
      [ok, strict, broken, guarded],
      gate,
    );
    assert.deepEqual(
      outcomes.map((o) => o.block),
      [
        {
          type: 'tool_result',
          tool_use_id: '1',
          content: 'There is no tool named "Nope". Use one of: Ok, Strict, Broken, Guarded.',
          is_error: true,
        },
        {
          type: 'tool_result',
          tool_use_id: '2',
          content: 'Invalid input for Strict: path is required',
          is_error: true,
        },
        { type: 'tool_result', tool_use_id: '3', content: 'Broken failed: boom', is_error: true },
        { type: 'tool_result', tool_use_id: '4', content: 'not today', is_error: true },
        { type: 'tool_result', tool_use_id: '5', content: '(no output)' },
      ],
    );
    assert.equal(seen.length, 5);
  });

  it('answers every call as cancelled once the signal is aborted, even a tool that ignores it', async () => {
    const controller = new AbortController();
    const stuck = tool('Stuck', () => new Promise(() => {}));
    setTimeout(() => controller.abort(), 30);
    const { outcomes } = await run([call('a', 'Stuck'), call('b', 'Stuck')], [stuck], allow, controller.signal);
    assert.deepEqual(
      outcomes.map((o) => [o.call.id, o.result.isError, /Cancelled/.test(o.result.content)]),
      [
        ['a', true, true],
        ['b', true, true],
      ],
    );
  });
});

describe('runToolCalls and secrets (issue #13)', () => {
  const anthropicKey = `sk-ant-api03-${'Ab3'.repeat(31)}AA`;
  const githubToken = `ghp_${'a1B2'.repeat(9)}`;

  it('redacts secrets in a result before the model, the listeners and the transcript get it', async () => {
    const leaky = tool('Leaky', async () => ({
      content: `KEY=${anthropicKey}\nTOKEN=${githubToken}\nplain text stays`,
      isError: false,
    }));
    const { outcomes, seen } = await run([call('1', 'Leaky')], [leaky]);
    for (const text of [
      outcomes[0].block.content,
      outcomes[0].result.content,
      seen[0].block.content,
      seen[0].result.content,
    ]) {
      assert.equal(typeof text, 'string');
      assert.equal(String(text).includes(anthropicKey), false, String(text));
      assert.equal(String(text).includes(githubToken), false, String(text));
      assert.match(String(text), /plain text stays/);
      assert.match(String(text), /KEY=\[REDACTED/);
    }
  });

  it('redacts secrets in every text block of a block result (an MCP image answer), keeping the image', async () => {
    const image = {
      type: 'image' as const,
      source: { type: 'base64' as const, media_type: 'image/png', data: 'iVBORw0KGgo=' },
    };
    const blocks = tool('Blocks', async () => ({
      content: `caption TOKEN=${githubToken}\n[image: image/png, 8 bytes]`,
      isError: false,
      blocks: [{ type: 'text', text: `caption TOKEN=${githubToken}` }, image, { type: 'text', text: '' }],
    }));
    const { outcomes } = await run([call('1', 'Blocks')], [blocks]);
    const sent = outcomes[0].block.content;
    assert.ok(Array.isArray(sent), 'sent as blocks');
    assert.equal(sent.length, 2, 'the empty text block is left out');
    assert.equal(JSON.stringify(sent).includes(githubToken), false);
    assert.deepEqual(sent[1], image);
    assert.equal(outcomes[0].result.content.includes(githubToken), false);
  });

  it('redacts the value of the API key the process runs with, whatever its shape', async () => {
    const saved = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = 'custom-gateway-key-0123456789';
    try {
      const echo = tool('Echo', async () => ({ content: 'the key is custom-gateway-key-0123456789.', isError: false }));
      const { outcomes } = await run([call('1', 'Echo')], [echo]);
      assert.equal(outcomes[0].block.content, 'the key is [REDACTED api key].');
    } finally {
      if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = saved;
    }
  });
});

describe('runToolCalls beforeChange (checkpoints, issue 33)', () => {
  it('is awaited before a tool that may change files, not before read-only ones or a read-only Bash command', async () => {
    const order: string[] = [];
    const writer = { ...tool('Write', async () => (order.push('Write ran'), { content: '', isError: false })) };
    writer.readOnly = false;
    writer.concurrencySafe = false;
    const bash = { ...tool('Bash', async () => (order.push('Bash ran'), { content: '', isError: false })) };
    bash.readOnly = false;
    bash.concurrencySafe = false;
    const reader = tool('Read', async () => (order.push('Read ran'), { content: '', isError: false }));
    const lookup = {
      ...tool('mcp__s__lookup', async () => (order.push('lookup ran'), { content: '', isError: false })),
    };
    lookup.readOnly = false;
    lookup.mcp = { server: 's', tool: 'lookup', readOnlyHint: true };
    const denied: ToolGate = async (_t, input) =>
      (input as { deny?: boolean }).deny ? { allow: false, reason: 'no' } : { allow: true };
    await runToolCalls(
      [
        call('1', 'Read'),
        call('0', 'mcp__s__lookup'),
        call('2', 'Bash', { command: 'ls -la' }),
        call('3', 'Write', { deny: true }),
        call('4', 'Bash', { command: "sed -i 's/a/b/' f.txt" }),
        call('5', 'Write'),
      ],
      {
        tools: new Map([writer, bash, reader, lookup].map((t) => [t.name, t])),
        gate: denied,
        context: { cwd: process.cwd(), readFiles: new ReadFileState() },
        signal: new AbortController().signal,
        beforeChange: async () => {
          order.push('checkpoint');
          throw new Error('the store failed');
        },
      },
    );
    assert.deepEqual(order, [
      'Read ran',
      'lookup ran',
      'Bash ran',
      'checkpoint',
      'Bash ran',
      'checkpoint',
      'Write ran',
    ]);
  });
});
