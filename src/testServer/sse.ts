// Server-sent events as the Messages API streams them: framing, a small parser (used by tests on both
// the recorded API fixtures and our own output), and the event sequence for one message.
//
// The sequence follows the recorded streams in ../shared/fixtures/anthropic-sse: message_start (usage
// with output_tokens 1), then per block content_block_start / deltas / content_block_stop, a `ping`
// right after the first content_block_start, message_delta (stop_reason and cumulative usage), and
// message_stop. tool_use input is streamed as input_json_delta pieces, starting with an empty one as
// the API does; thinking ends with one signature_delta.

import type { ApiResponseMessage, OutputBlock } from './scriptedReply';

export interface SseEvent {
  event: string;
  /** An object is JSON-encoded; a string is written as is (the API's ping has its own spacing). */
  data: unknown;
}

export interface ParsedSseEvent {
  event: string | null;
  data: string;
}

/** The API's ping body, byte for byte. */
export const PING_DATA = '{"type": "ping"}';

const TEXT_CHUNK = 24;
const JSON_CHUNK = 16;

export function formatSse(e: SseEvent): string {
  const data = typeof e.data === 'string' ? e.data : JSON.stringify(e.data);
  return `event: ${e.event}\ndata: ${data}\n\n`;
}

/** Parses an SSE text into events (multi-line data joined by "\n", comments ignored). */
export function parseSse(text: string): ParsedSseEvent[] {
  const out: ParsedSseEvent[] = [];
  let event: string | null = null;
  let data: string[] = [];
  const flush = (): void => {
    if (event !== null || data.length > 0) out.push({ event, data: data.join('\n') });
    event = null;
    data = [];
  };
  for (const raw of text.split(/\r\n|\r|\n/)) {
    if (raw === '') {
      flush();
      continue;
    }
    if (raw.startsWith(':')) continue;
    const colon = raw.indexOf(':');
    const field = colon < 0 ? raw : raw.slice(0, colon);
    let value = colon < 0 ? '' : raw.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  flush();
  return out;
}

/**
 * Splits text into pieces of at most `size` code points (never inside a surrogate pair), and into at
 * least three when it is that long, so even short replies exercise a client's delta accumulation.
 */
export function chunkText(text: string, maxSize: number): string[] {
  const points = Array.from(text);
  const size = Math.max(1, Math.min(maxSize, Math.ceil(points.length / 3)));
  const out: string[] = [];
  for (let i = 0; i < points.length; i += size) out.push(points.slice(i, i + size).join(''));
  return out.length > 0 ? out : [''];
}

export interface StreamShapeOptions {
  omitFinalBlockStop?: boolean;
}

/** The full event sequence that streams `message`. */
export function messageEvents(message: ApiResponseMessage, opts: StreamShapeOptions = {}): SseEvent[] {
  const u = message.usage;
  const events: SseEvent[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: { ...u, output_tokens: 1 } },
      },
    },
  ];
  message.content.forEach((block, index) => {
    events.push({
      event: 'content_block_start',
      data: { type: 'content_block_start', index, content_block: emptyBlock(block) },
    });
    if (index === 0) events.push({ event: 'ping', data: PING_DATA });
    for (const delta of blockDeltas(block)) {
      events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta } });
    }
    const last = index === message.content.length - 1;
    if (!(last && opts.omitFinalBlockStop)) {
      events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
    }
  });
  if (message.content.length === 0) events.push({ event: 'ping', data: PING_DATA });
  events.push({
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: { stop_reason: message.stop_reason, stop_sequence: null },
      usage: {
        input_tokens: u.input_tokens,
        cache_creation_input_tokens: u.cache_creation_input_tokens,
        cache_read_input_tokens: u.cache_read_input_tokens,
        output_tokens: u.output_tokens,
      },
    },
  });
  events.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return events;
}

/** message_start followed by an `error` event: how the API reports overload mid-stream. */
export function inStreamErrorEvents(message: ApiResponseMessage, error: { type: string; message: string }): SseEvent[] {
  const [start] = messageEvents({ ...message, content: [] });
  return [start, { event: 'error', data: { type: 'error', error } }];
}

function emptyBlock(block: OutputBlock): Record<string, unknown> {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: '' };
    case 'thinking':
      return { type: 'thinking', thinking: '', signature: '' };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: {} };
  }
}

function blockDeltas(block: OutputBlock): Array<Record<string, unknown>> {
  switch (block.type) {
    case 'text':
      return chunkText(block.text, TEXT_CHUNK).map((text) => ({ type: 'text_delta', text }));
    case 'thinking':
      return [
        ...chunkText(block.thinking, TEXT_CHUNK).map((thinking) => ({ type: 'thinking_delta', thinking })),
        { type: 'signature_delta', signature: block.signature },
      ];
    case 'tool_use':
      return ['', ...chunkText(JSON.stringify(block.input), JSON_CHUNK)].map((partial_json) => ({
        type: 'input_json_delta',
        partial_json,
      }));
  }
}
