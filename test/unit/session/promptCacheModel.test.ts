// The session's model of the prompt cache (promptCacheModel.ts) against the test server's simulation of
// the API's cache (testServer/promptCache.ts), request for request: the model only sees what the session
// sends and the usage that comes back, and must predict what the next request reads, after the prompt
// grew, after a message in the middle changed, after a tool joined, across the 20-block look-back, and
// once the TTL has passed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiMessage, ContentBlock, SystemBlock, ToolSchema } from '../../../src/core/conversation/types';
import { toRequestParams } from '../../../src/core/llm/anthropicRequest';
import { PromptCacheModel, type CachedPrompt } from '../../../src/core/session/promptCacheModel';
import { PromptCacheSimulator } from '../../../src/testServer/promptCache';
import { promptSegments } from '../../../src/testServer/promptSegments';

const MIN = 60_000;
const MODEL = 'claude-sonnet-4-6';
const system: SystemBlock[] = [
  { type: 'text', text: `You are a careful assistant. ${'Follow the rules. '.repeat(300)}` },
];
const tools: ToolSchema[] = [
  { name: 'Read', description: 'Reads a file.', input_schema: { type: 'object', properties: { path: {} } } },
];

/** A model and the simulator on one clock, the model fed the simulator's usage as the session is. */
function pair() {
  const clock = { t: 1_000_000 };
  const server = new PromptCacheSimulator({ now: () => clock.t });
  const model = new PromptCacheModel();
  const body = (p: CachedPrompt) =>
    toRequestParams({ ...p, maxTokens: 100, system: [...p.system], tools: [...p.tools], messages: [...p.messages] });
  return {
    clock,
    /** What the model says `p` reads now (0 when what it would read has expired). */
    predicted(p: CachedPrompt): number {
      const l = model.lookup(p, '5m', clock.t);
      return l.expiresAt !== undefined && l.expiresAt > clock.t ? l.read : 0;
    },
    /** Sends `p`: the simulator bills it, the model observes it; returns what was read. */
    send(p: CachedPrompt): number {
      const usage = server.process(MODEL, promptSegments(body(p)));
      model.observe(p, '5m', { ...usage, output_tokens: 10 }, clock.t);
      return usage.cache_read_input_tokens;
    },
  };
}

const prompt = (messages: ApiMessage[], more: ToolSchema[] = []): CachedPrompt => ({
  model: MODEL,
  system,
  tools: [...tools, ...more],
  messages,
});
const user = (text: string): ApiMessage => ({ role: 'user', content: [{ type: 'text', text }] });
const answer = (text: string): ApiMessage => ({ role: 'assistant', content: [{ type: 'text', text }] });

/** A turn of `calls` tool calls: many blocks, to cross the API's 20-block look-back. */
function toolTurn(n: number, calls: number): ApiMessage[] {
  const uses: ContentBlock[] = [];
  const results: ContentBlock[] = [];
  for (let i = 0; i < calls; i++) {
    uses.push({ type: 'tool_use', id: `t${n}_${i}`, name: 'Read', input: { path: `f${i}.txt` } });
    results.push({ type: 'tool_result', tool_use_id: `t${n}_${i}`, content: `line ${i} of turn ${n}. `.repeat(20) });
  }
  return [
    { role: 'assistant', content: uses },
    { role: 'user', content: results },
  ];
}

/** Checks the model's prediction for `p` against the simulator, then sends it. */
function step(c: ReturnType<typeof pair>, p: CachedPrompt, what: string): number {
  const predicted = c.predicted(p);
  const read = c.send(p);
  assert.equal(predicted, read, `${what}: predicted ${predicted}, read ${read}`);
  return read;
}

describe("the session's model of the prompt cache", () => {
  it('predicts exactly what the simulated API reads, request after request, whatever changed', () => {
    const c = pair();
    const conv: ApiMessage[] = [user(`Look at the project. ${'Some context. '.repeat(40)}`)];
    assert.equal(step(c, prompt(conv), 'the first request'), 0);
    conv.push(...toolTurn(1, 3), answer('Done reading.'), user('And the tests?'));
    c.clock.t += MIN;
    assert.ok(step(c, prompt(conv), 'a grown conversation') > 1_000);
    // A turn with 15 tool calls: 30 blocks, beyond the look-back of the previous breakpoints.
    conv.push(...toolTurn(2, 15), answer('Tests read.'), user('Now the docs.'));
    c.clock.t += MIN;
    step(c, prompt(conv), 'after a long turn');
    conv.push(answer('Docs read.'), user('Summarise.'));
    step(c, prompt(conv), 'a short turn');

    // A message in the middle changes (a dropped attachment): read up to a stored prefix before it.
    const edited = conv.map((m, i) => (i === 4 ? user('And the tests? (attachment left out)') : m));
    edited.push(answer('Summary.'), user('Thanks.'));
    c.clock.t += MIN;
    const read = step(c, prompt(edited), 'a changed message in the middle');
    assert.ok(read > 0, 'the system prompt and the first turn are still read');

    // A tool joins (an MCP server came up): the tools open the prompt, nothing is read.
    edited.push(answer('Welcome.'), user('Use the new tool.'));
    const more = [{ name: 'mcp__x__y', description: 'Another tool.', input_schema: { type: 'object' } }];
    c.clock.t += MIN;
    assert.equal(step(c, prompt(edited, more), 'a new tool'), 0);
    edited.push(answer('Used.'), user('Again.'));
    assert.ok(step(c, prompt(edited, more), 'the next request with it') > 1_000);

    // Past the TTL: nothing is read, and the model knows.
    edited.push(answer('Again done.'), user('Later.'));
    c.clock.t += 5 * MIN;
    assert.equal(step(c, prompt(edited, more), 'after five minutes'), 0);
  });

  it('past the TTL it still says what a warm cache would read, with the moment it expired', () => {
    const c = pair();
    const conv: ApiMessage[] = [user(`Start. ${'Context. '.repeat(50)}`)];
    c.send(prompt(conv));
    conv.push(answer('Ok.'), user('Next.'));
    const sentAt = c.clock.t;
    c.clock.t += 6 * MIN;
    assert.equal(c.predicted(prompt(conv)), 0);
    const model = new PromptCacheModel();
    const usage = { input_tokens: 0, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 2_000 };
    model.observe(prompt(conv.slice(0, 1)), '5m', usage, sentAt);
    const hypothetical = model.lookup(prompt(conv), '5m', c.clock.t);
    assert.equal(hypothetical.read, 2_000);
    assert.equal(hypothetical.expiresAt, sentAt + 5 * MIN);
  });
});
