// Compares the server's streams with real API streams recorded in the SDK's own tests
// (../shared/fixtures/anthropic-sse), parsed by the same parser.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import type { ScriptedReply, TestServer } from '../../../src/testServer/anthropicTestServer';
import { chunkText, parseSse, type ParsedSseEvent } from '../../../src/testServer/sse';
import { useTestServer } from '../support/testServerFixture';

const FIXTURES = process.env.ENGRAM_SSE_FIXTURES ?? path.resolve('..', 'shared', 'fixtures', 'anthropic-sse');
const haveFixtures = fs.existsSync(FIXTURES);

// biome-ignore lint/suspicious/noExplicitAny: SSE payloads are walked field by field and compared with recorded JSON.
type Data = Record<string, any>;
interface Event {
  event: string | null;
  data: Data;
}

const parse = (text: string): Event[] =>
  parseSse(text).map((e: ParsedSseEvent) => ({ event: e.event, data: JSON.parse(e.data) as Data }));

/** One token per event (with block and delta types), consecutive repeats collapsed: delta counts vary. */
function shape(events: Event[]): string[] {
  const out: string[] = [];
  for (const { event, data } of events) {
    let t = String(event);
    if (data.content_block) t += `:${data.content_block.type}`;
    if (event === 'content_block_delta') t += `:${data.delta.type}`;
    if (out[out.length - 1] !== t) out.push(t);
  }
  return out;
}

async function serverStream(server: TestServer, reply: ScriptedReply): Promise<{ text: string; headers: Headers }> {
  server.enqueue(reply);
  const res = await fetch(`${server.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': 'test', 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'claude-test',
      max_tokens: 100,
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    }),
  });
  return { text: await res.text(), headers: res.headers };
}

const cases: Array<{ file: string; reply: ScriptedReply }> = [
  { file: 'basic_response.txt', reply: { content: [{ type: 'text', text: 'Hello there!' }] } },
  {
    file: 'tool_use_response.txt',
    reply: {
      content: [
        { type: 'text', text: "I'll check the current weather in Paris for you." },
        { type: 'tool_use', name: 'get_weather', input: { location: 'Paris' } },
      ],
    },
  },
  {
    file: 'incomplete_partial_json_response.txt',
    reply: {
      content: [
        { type: 'text', text: "I'll create a comprehensive tax guide." },
        { type: 'tool_use', name: 'make_file', input: { filename: 'taxes.txt', lines_of_text: ['# GUIDE'] } },
      ],
      omitFinalBlockStop: true,
    },
  },
  {
    file: 'stream-a-refusal.sse',
    reply: {
      content: [
        { type: 'thinking', thinking: 'Simple educational question about what a solar eclipse is.' },
        { type: 'text', text: 'Hi' },
      ],
      stopReason: 'refusal',
    },
  },
];

// Fields of newer API versions that the server leaves out on purpose.
const NOT_EMITTED = new Set(['stop_details', 'inference_geo', 'iterations', 'output_tokens_details']);
const missingKeys = (fixture: Data, ours: Data): string[] =>
  Object.keys(fixture).filter((k) => !NOT_EMITTED.has(k) && !(k in ours));

// The fixtures come with the project's shared material (../shared from the repository root, as in CI):
// without them this comparison cannot run, and that is a failure, not a skip.
describe('SSE streams match the recorded API streams', () => {
  const server = useTestServer();
  before(() => {
    assert.ok(haveFixtures, `no SSE fixtures at ${FIXTURES} (set ENGRAM_SSE_FIXTURES or check out ../shared)`);
  });

  for (const { file, reply } of cases) {
    it(`has the event shape of ${file}`, async () => {
      const fixture = parse(fs.readFileSync(path.join(FIXTURES, file), 'utf8'));
      const { text, headers } = await serverStream(server, reply);
      const ours = parse(text);
      assert.deepEqual(shape(ours), shape(fixture));
      assert.match(headers.get('content-type') ?? '', /^text\/event-stream/);
      assert.match(headers.get('request-id') ?? '', /^req_[0-9A-Za-z]{24}$/);

      // Same fields where both streams have the event (ours may carry more, e.g. cache usage).
      for (const kind of ['message_start', 'message_delta']) {
        const f = fixture.find((e) => e.event === kind)!.data;
        const o = ours.find((e) => e.event === kind)!.data;
        assert.deepEqual(missingKeys(f, o), [], `${kind} keys`);
        const fInner = f.message ?? f.delta;
        const oInner = o.message ?? o.delta;
        assert.deepEqual(missingKeys(fInner, oInner), [], `${kind} inner keys`);
        assert.deepEqual(missingKeys(f.usage ?? f.message.usage, o.usage ?? o.message.usage), [], `${kind} usage keys`);
      }
      const starts = (events: Event[]): string[] =>
        events
          .filter((e) => e.event === 'content_block_start')
          .map((e) => Object.keys(e.data.content_block).sort().join(','));
      assert.deepEqual(starts(ours), starts(fixture));
      for (const e of ours) {
        assert.equal(e.data.type, e.event, 'every data.type names its event');
      }
      assert.equal(ours.find((e) => e.event === 'message_start')!.data.message.usage.output_tokens, 1);
    });
  }

  it('writes ping exactly as the API does', async () => {
    const { text } = await serverStream(server, { content: [{ type: 'text', text: 'x' }] });
    assert.ok(text.includes('event: ping\ndata: {"type": "ping"}\n\n'));
  });

  it('streams deltas that add up to the scripted content', async () => {
    const input = { path: 'src/ünïcode 😀.ts', nested: { list: [1, 2, 3] } };
    const thinking = 'Let me think about this 😀 carefully.';
    const { text } = await serverStream(server, {
      content: [
        { type: 'thinking', thinking, signature: 'sig-1' },
        { type: 'text', text: 'Some text with an emoji 😀 in the middle of it.' },
        { type: 'tool_use', id: 'toolu_01fixed', name: 'Read', input },
      ],
    });
    const events = parse(text);
    const deltas = (i: number, field: string): string =>
      events
        .filter((e) => e.event === 'content_block_delta' && e.data.index === i)
        .map((e) => e.data.delta[field] ?? '')
        .join('');
    assert.equal(deltas(0, 'thinking'), thinking);
    assert.equal(deltas(0, 'signature'), 'sig-1');
    assert.equal(deltas(1, 'text'), 'Some text with an emoji 😀 in the middle of it.');
    assert.deepEqual(JSON.parse(deltas(2, 'partial_json')), input);
    const textDeltas = events.filter((e) => e.data.delta?.type === 'text_delta');
    assert.ok(textDeltas.length >= 3, 'text arrives in several chunks');
    assert.ok(events.filter((e) => e.data.delta?.type === 'input_json_delta').length >= 3);
  });
});

describe('sse helpers', () => {
  it('parses multi-line data, comments and CRLF', () => {
    assert.deepEqual(parseSse(': comment\r\nevent: a\r\ndata: 1\r\ndata: 2\r\n\r\ndata: x\n\n'), [
      { event: 'a', data: '1\n2' },
      { event: null, data: 'x' },
    ]);
  });

  it('never splits a surrogate pair', () => {
    const chunks = chunkText('😀😀😀😀😀', 2);
    assert.ok(chunks.length >= 3);
    for (const c of chunks) assert.doesNotThrow(() => encodeURIComponent(c));
    assert.equal(chunks.join(''), '😀😀😀😀😀');
  });
});
