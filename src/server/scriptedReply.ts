// What a test scripts the server to answer, and how a script becomes a full API message
// (ids, signatures, stop reason, usage). Also the offline demo model used by `npm start`.

import { randomBytes } from 'node:crypto';
import type { StopReason, Usage } from '../core/conversation/types';
import { SUMMARY_REQUEST_MARKER, SUMMARY_SECTIONS } from '../core/compaction/summaryPrompt';
import { approxTokens, blockTokens } from './promptSegments';

export type ScriptedBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id?: string; name: string; input: Record<string, unknown> }
  | { type: 'thinking'; thinking: string; signature?: string };

export interface ScriptedMessage {
  content: ScriptedBlock[];
  /** Default: `tool_use` when a tool_use block is present, else `end_turn` (`max_tokens` when cut). */
  stopReason?: StopReason;
  /** Wait before answering (before the status line). */
  delayMs?: number;
  /** Wait between SSE events. */
  chunkDelayMs?: number;
  /** Destroy the socket after this many SSE events (non-streaming: before any response). */
  dropAfterEvents?: number;
  /** Leave out the last content_block_stop, as a stream cut at max_tokens does. */
  omitFinalBlockStop?: boolean;
  /** Overrides of the computed usage (e.g. to simulate a big context). */
  usage?: Partial<Usage>;
}

export interface ScriptedError {
  error: {
    status: number;
    type: string;
    message: string;
    /** Sent as the `retry-after` header. */
    retryAfterSeconds?: number;
    /** For streaming requests: answer 200, send message_start, then this as an SSE `error` event. */
    inStream?: boolean;
  };
}

export type ScriptedReply = ScriptedMessage | ScriptedError;

export type OutputBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'thinking'; thinking: string; signature: string };

/** A complete assistant message as the API returns it. */
export interface ApiResponseMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: OutputBlock[];
  stop_reason: StopReason;
  stop_sequence: null;
  usage: ResponseUsage;
}

export interface ResponseUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
  output_tokens: number;
  service_tier: 'standard';
}

export function isScriptedError(r: ScriptedReply): r is ScriptedError {
  return 'error' in r;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random base62 text from crypto bytes (rejection sampling keeps the letters uniform). */
export function base62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

// Real ids look like `toolu_01` + 22 characters; the same shape keeps id-pattern checks honest.
export const newToolUseId = (): string => `toolu_01${base62(22)}`;
export const newMessageId = (): string => `msg_01${base62(22)}`;
export const newRequestId = (): string => `req_01${base62(22)}`;
const newSignature = (): string => randomBytes(48).toString('base64');

/** Fills in ids and signatures and computes output tokens and the stop reason. */
export function resolveMessage(script: ScriptedMessage, model: string, input: Omit<ResponseUsage, 'output_tokens' | 'service_tier'>): ApiResponseMessage {
  const content: OutputBlock[] = script.content.map((b) => {
    if (b.type === 'tool_use') return { type: 'tool_use', id: b.id ?? newToolUseId(), name: b.name, input: b.input };
    if (b.type === 'thinking') return { type: 'thinking', thinking: b.thinking, signature: b.signature ?? newSignature() };
    return { type: 'text', text: b.text };
  });
  const defaultStop: StopReason = script.omitFinalBlockStop
    ? 'max_tokens'
    : content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
  const outputTokens = Math.max(1, content.reduce((sum, b) => sum + blockTokens(b), 0));
  const o = script.usage ?? {};
  const usage: ResponseUsage = {
    input_tokens: o.input_tokens ?? input.input_tokens,
    cache_creation_input_tokens: o.cache_creation_input_tokens ?? input.cache_creation_input_tokens,
    cache_read_input_tokens: o.cache_read_input_tokens ?? input.cache_read_input_tokens,
    cache_creation: {
      ephemeral_5m_input_tokens: o.cache_creation?.ephemeral_5m_input_tokens ?? input.cache_creation.ephemeral_5m_input_tokens,
      ephemeral_1h_input_tokens: o.cache_creation?.ephemeral_1h_input_tokens ?? input.cache_creation.ephemeral_1h_input_tokens,
    },
    output_tokens: o.output_tokens ?? outputTokens,
    service_tier: 'standard',
  };
  return {
    id: newMessageId(),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: script.stopReason === undefined ? defaultStop : script.stopReason,
    stop_sequence: null,
    usage,
  };
}

const DEMO_PREFIX = 'Offline demo model:';

/**
 * The built-in reply of `npm start` when no API key is set: it says plainly what it is, echoes what
 * it understood, and can exercise one tool round (`read <path>` -> a Read call, if a Read tool exists).
 */
export function demoReply(body: Record<string, unknown>): ScriptedMessage {
  const messages = Array.isArray(body.messages) ? (body.messages as Array<Record<string, unknown>>) : [];
  const last = messages[messages.length - 1];
  const blocks = !last ? [] : typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : (last.content as Array<Record<string, unknown>>);
  const results = blocks.filter((b) => b.type === 'tool_result');
  if (results.length > 0) {
    const chars = results.reduce((n, r) => n + JSON.stringify(r.content ?? '').length, 0);
    return {
      content: [{ type: 'text', text: `${DEMO_PREFIX} the tool returned about ${approxTokens(chars)} tokens of output. I am a scripted stand-in, not Claude, so I stop here.` }],
    };
  }
  const text = blocks.filter((b) => b.type === 'text').map((b) => String(b.text)).join('\n').trim();
  if (text.includes(SUMMARY_REQUEST_MARKER)) return { content: [{ type: 'text', text: demoSummary(messages.slice(0, -1)) }] };
  const tools = Array.isArray(body.tools) ? (body.tools as Array<Record<string, unknown>>) : [];
  const read = /\bread\s+(\S+)/i.exec(text);
  if (read && tools.some((t) => t.name === 'Read')) {
    return {
      content: [
        { type: 'text', text: `${DEMO_PREFIX} reading ${read[1]}.` },
        { type: 'tool_use', name: 'Read', input: { file_path: read[1] } },
      ],
    };
  }
  const chars = Array.from(text); // code points, so an emoji is never cut in half
  const echo = chars.length > 200 ? `${chars.slice(0, 200).join('')}...` : text;
  return {
    content: [{
      type: 'text',
      text: `${DEMO_PREFIX} you said "${echo}". This reply is scripted and offline; set an Anthropic API key to talk to Claude. Try "read <path>" to see a tool call.`,
    }],
  };
}

/**
 * A compaction summary the offline demo can honestly write without a model: every section, filled
 * from what the conversation shows (the user's messages, the files tools touched), so a compaction in
 * the demo works like one with Claude.
 */
function demoSummary(messages: ReadonlyArray<Record<string, unknown>>): string {
  const prompts: string[] = [];
  const files = new Set<string>();
  for (const m of messages) {
    const content = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content as Array<Record<string, unknown>>);
    for (const b of content) {
      if (m.role === 'user' && b.type === 'text' && typeof b.text === 'string' && !b.text.startsWith('<')) prompts.push(b.text.trim().slice(0, 200));
      const input = b.input as Record<string, unknown> | undefined;
      if (b.type === 'tool_use' && typeof input?.file_path === 'string') files.add(input.file_path);
    }
  }
  const last = prompts[prompts.length - 1] ?? '(none)';
  const body: Record<(typeof SUMMARY_SECTIONS)[number], string> = {
    'Request and intent': `The user worked with the offline demo model. Latest request: "${last}".`,
    'Key concepts': 'A scripted, offline demo conversation; no real model took part.',
    Files: files.size > 0 ? [...files].map((f) => `- ${f}`).join('\n') : 'No files were touched.',
    'Errors and fixes': 'None recorded.',
    'Problem solving': 'Nothing beyond the requests below.',
    'All user messages': prompts.length > 0 ? prompts.map((p) => `- "${p}"`).join('\n') : '(none)',
    'Pending tasks': 'None known.',
    'Current work': `Answering "${last}".`,
    'Next step': 'Wait for the next request.',
  };
  const sections = SUMMARY_SECTIONS.map((title, i) => `${i + 1}. ${title}:\n${body[title]}`).join('\n\n');
  return `<analysis>\n${DEMO_PREFIX} the summary is built from the conversation's own messages.\n</analysis>\n<summary>\n${sections}\n</summary>`;
}
