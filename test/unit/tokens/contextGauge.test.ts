// The one context gauge: DESIGN 5's rule (the last report plus estimates after it), incremental
// counting, rewritten lists recognised by identity, and the fixed parts sized by category.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { composeSystemPrompt } from '../../../src/core/agent/systemPrompt';
import type { ApiMessage } from '../../../src/core/conversation/types';
import { ContextGauge } from '../../../src/core/tokens/contextGauge';

const count = (text: string) => Math.ceil(text.length / 4);
const user = (text: string): ApiMessage => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string): ApiMessage => ({ role: 'assistant', content: [{ type: 'text', text }] });

test('used = last usage total + estimate of what came after it', () => {
  const gauge = new ContextGauge();
  const history: ApiMessage[] = [user('hello there'), assistant('hi')];
  gauge.onResponse(
    { input_tokens: 100, output_tokens: 20, cache_read_input_tokens: 1000, cache_creation_input_tokens: 30 },
    history,
  );
  assert.equal(gauge.used(), 1150);
  history.push(user('a follow-up question with a few words'));
  gauge.sync(history);
  assert.ok(gauge.used() > 1150 && gauge.used() < 1200, `used ${gauge.used()}`);
  assert.equal(gauge.used(history), gauge.used(), 'syncing the same list again adds nothing');
});

test('a rewritten history (compaction, merged prompt) is counted afresh, not added on top', () => {
  const gauge = new ContextGauge();
  const history: ApiMessage[] = [user('x '.repeat(500)), assistant('y '.repeat(500))];
  gauge.sync(history);
  const before = gauge.used();
  const compacted: ApiMessage[] = [user('summary')];
  gauge.sync(compacted);
  assert.ok(gauge.used() < before / 10, `after ${gauge.used()} before ${before}`);
  const merged: ApiMessage[] = [user('summary and more')];
  gauge.sync(merged);
  assert.ok(gauge.used() < before / 10);
});

test('a prompt merged into the last message keeps the report that ends before it', () => {
  const gauge = new ContextGauge({ count });
  const history: ApiMessage[] = [user('first'), assistant('answer')];
  gauge.onResponse({ input_tokens: 5_000, output_tokens: 10 }, history);
  history.push(user('second'));
  gauge.sync(history);
  history[2] = user('second, and a third prompt merged into it');
  assert.ok(gauge.used(history) > 5_010, 'still the report plus the estimate of the merged prompt');
  assert.ok(gauge.used() < 5_050);
  // A list whose reported part changed (another conversation) starts over from estimates.
  const other = [user('other'), assistant('conversation')];
  assert.ok(gauge.used(other) < 100);
});

test('forget(): after a compaction the last report no longer applies, even when identity cannot tell', () => {
  const gauge = new ContextGauge({ count });
  const history: ApiMessage[] = [user('a'), assistant('b')];
  gauge.onResponse({ input_tokens: 50_000, output_tokens: 10 }, history);
  assert.equal(gauge.used(history), 50_010);
  gauge.forget();
  assert.ok(gauge.used(history) < 100, `${gauge.used()}`);
});

test('the fixed parts are sized from composeSystemPrompt\'s parts, once per prompt; without parts the whole prompt is "system"', () => {
  const composed = composeSystemPrompt({
    cwd: '/w',
    platform: 'linux',
    date: '2026-01-01',
    instructions: 'Use tabs. '.repeat(50),
    memory: { dir: '/m', index: '- [A](a.md) — hook\n'.repeat(20) },
  });
  const tools = [{ schema: { name: 'Read', description: 'reads', input_schema: { type: 'object' as const } } }];
  let counted = 0;
  const gauge = new ContextGauge({ count: (t) => (counted++, count(t)) });
  gauge.setSystem(composed.blocks, tools, composed.parts);
  const b = gauge.breakdown([]);
  assert.equal(b.system, count(composed.parts.system));
  assert.equal(b.instructions, count(composed.parts.instructions));
  assert.equal(b.memoryIndex, count(composed.parts.memoryIndex));
  assert.equal(b.tools, count(JSON.stringify(tools.map((t) => t.schema))));
  assert.equal(gauge.fixedTokens, b.system + b.instructions + b.memoryIndex + b.tools);
  assert.equal(b.total, gauge.fixedTokens, 'no report yet: the fixed parts plus the (no) messages');
  // The orchestrator sizes the agent's prompt without parts: the same prompt keeps its parts.
  const calls = counted;
  gauge.setSystem(composed.blocks, tools.slice());
  assert.equal(counted, calls, 'not sized again');
  assert.equal(gauge.breakdown().instructions, b.instructions);
  // An MCP server's tools join: the tools are sized again, the same prompt keeps its parts.
  const more = [
    ...tools,
    { schema: { name: 'mcp__s__t', description: 'x'.repeat(400), input_schema: { type: 'object' as const } } },
  ];
  gauge.setSystem(composed.blocks, more);
  assert.equal(gauge.breakdown().instructions, b.instructions);
  assert.ok(gauge.breakdown().tools > b.tools);
  // Another prompt without parts: all of it counts as system.
  const other = [{ type: 'text' as const, text: 'x'.repeat(400) }];
  gauge.setSystem(other, []);
  assert.deepEqual(
    [gauge.breakdown().system, gauge.breakdown().instructions, gauge.breakdown().memoryIndex, gauge.breakdown().tools],
    [100, 0, 0, 0],
  );
});

test("the API's count of the prompt rescales the fixed parts, and a count of an older prompt is ignored", () => {
  const gauge = new ContextGauge({ count });
  const system = [{ type: 'text' as const, text: 's'.repeat(400) }];
  const tools = [{ schema: { name: 'Read', description: 'd'.repeat(100), input_schema: { type: 'object' as const } } }];
  const parts = { system: 's'.repeat(200), instructions: 'i'.repeat(120), memoryIndex: 'm'.repeat(80) };
  gauge.setSystem(system, tools, parts);
  const estimated = gauge.breakdown();
  assert.equal(gauge.fixedTokens, 50 + 30 + 20 + estimated.tools);

  assert.equal(gauge.calibrate(system, tools, 2 * gauge.fixedTokens), true);
  const counted = gauge.breakdown();
  assert.equal(gauge.fixedTokens, 2 * (100 + estimated.tools), 'the parts add up to the count');
  assert.deepEqual(
    [counted.system, counted.instructions, counted.memoryIndex],
    [100, 60, 40],
    'each part keeps its share of the breakdown',
  );
  assert.equal(gauge.used([]), gauge.fixedTokens, 'before any message the gauge is the count');

  gauge.setSystem(system, tools, parts);
  assert.equal(gauge.fixedTokens, counted.total, 'the same prompt set again keeps the count');
  const newer = [{ type: 'text' as const, text: 'n'.repeat(40) }];
  gauge.setSystem(newer, tools);
  const before = gauge.fixedTokens;
  assert.equal(gauge.calibrate(system, tools, 9_999), false, 'a count of the prompt it no longer has');
  assert.equal(gauge.calibrate(newer, [], 9_999), false, 'a count with other tools');
  assert.equal(gauge.calibrate(newer, tools, 0), false, 'a count that is not a positive number');
  assert.equal(gauge.calibrate(newer, tools, Number.NaN), false);
  assert.equal(gauge.fixedTokens, before);
});

test('MCP tool definitions are their own part; a changed tool list keeps the prompt parts; a count rescales both', () => {
  const gauge = new ContextGauge({ count });
  const system = [{ type: 'text' as const, text: 's'.repeat(400) }];
  const parts = { system: 's'.repeat(200), instructions: 'i'.repeat(120), memoryIndex: 'm'.repeat(80) };
  const read = { schema: { name: 'Read', description: 'd'.repeat(100), input_schema: { type: 'object' as const } } };
  const echo = {
    schema: { name: 'mcp__everything__echo', description: 'e'.repeat(300), input_schema: { type: 'object' as const } },
    mcp: { server: 'everything', tool: 'echo' },
  };
  gauge.setSystem(system, [read], parts);
  const builtIn = gauge.breakdown();
  assert.equal(builtIn.mcpTools, 0, 'no MCP tools offered');
  // A server came up: its tools join the list the orchestrator sizes, without the prompt's parts.
  gauge.setSystem(system, [read, echo]);
  const both = gauge.breakdown();
  assert.equal(both.tools, builtIn.tools, 'the built-in tools keep their size');
  assert.equal(both.mcpTools, count(JSON.stringify([echo.schema])));
  assert.deepEqual([both.system, both.instructions, both.memoryIndex], [50, 30, 20], 'the prompt keeps its parts');
  assert.equal(gauge.fixedTokens, 100 + both.tools + both.mcpTools);

  assert.equal(gauge.calibrate(system, [read, echo], 2 * gauge.fixedTokens), true);
  const counted = gauge.breakdown();
  assert.equal(counted.mcpTools, 2 * both.mcpTools, 'the MCP part keeps its share of the count');
  assert.equal(counted.tools, 2 * both.tools);
  assert.equal(gauge.fixedTokens, 2 * (100 + both.tools + both.mcpTools));
  assert.equal(gauge.calibrate(system, [read], 9_999), false, 'a count made before the MCP tools joined');

  // Odd counts: rounding never leaves a part negative, and the parts still add up to the count.
  gauge.setSystem(system, [echo]);
  assert.equal(gauge.calibrate(system, [echo], 1_001), true);
  const odd = gauge.breakdown();
  assert.equal(odd.tools, 0);
  assert.equal(odd.system + odd.instructions + odd.memoryIndex + odd.mcpTools, 1_001);
});
