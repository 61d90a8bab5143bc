// Amazon Bedrock's wire format for Claude, as the test server speaks it:
//   POST /model/{modelId}/invoke                        JSON message
//   POST /model/{modelId}/invoke-with-response-stream   AWS event-stream frames (application/vnd.amazon.eventstream)
// The model id is in the path (URL-encoded: `anthropic.claude-sonnet-4-5-20250929-v1%3A0`), and the body is
// the Messages body without `model` and `stream`, with `anthropic_version` ("bedrock-2023-05-31", or the
// API's dated version that the 1.x SDK sends). Each event of
// the Anthropic stream travels as a `chunk` frame whose payload is `{"bytes": "<base64 of the event's JSON>"}`;
// an error mid-stream is an `exception` frame (`:exception-type` is the camel-cased exception name, which is
// what @aws-sdk/client-bedrock-runtime's deserializer and @anthropic-ai/bedrock-sdk's streaming.js look up).
// Errors are `{"message": ...}` bodies with an `x-amzn-errortype` header.
//
// Texts come from real Bedrock answers quoted in public issues: "Malformed input request: #: extraneous key
// [model] is not permitted, please reformat your input and try again." (fumito-ito/AnthropicSwiftSDK#19),
// "#: required key [anthropic_version] not found" (promptfoo/promptfoo#916), "Invalid API version: ..."
// (boto/boto3#4218), "The provided model identifier is invalid." (sblakey/llm-bedrock-anthropic#8), and
// "The model returned the following errors: prompt is too long: 200049 tokens > 200000 maximum"
// (daisuke-awaji/moca#254, aaif-goose/goose#7504).

import { randomUUID } from 'node:crypto';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import type { ApiResponseMessage } from './scriptedReply';
import type { SseEvent } from './sse';
import type { Wire, WireError, WireReply } from './wire';

/**
 * The versions Bedrock takes in the body: its own documented one, and the API's dated version, which
 * @anthropic-ai/bedrock-sdk 1.x copies from its `anthropic-version` header (client.js, adaptRequest).
 */
export const BEDROCK_ANTHROPIC_VERSIONS: readonly string[] = ['bedrock-2023-05-31', '2026-10-21'];

const ERRORTYPE_SUFFIX = ':http://internal.amazon.com/coral/com.amazon.bedrock/';

/**
 * A Bedrock model id: a foundation model or a geography-prefixed inference profile. Older ids end in a
 * version (`-v1:0`), Opus 4.6 in `-v1`, newer ones in nothing (`us.anthropic.claude-opus-4-8`; public
 * reports in ziatdinovmax/SciLink#246 and binbashar/le-tf-infra-aws#1098 list them).
 */
const MODEL_ID = /^(?:(?:us|eu|apac|jp|au|ca|us-gov|global)\.)?anthropic\.claude-[a-z0-9.-]+?(?:-v\d+(?::\d+)?)?$/;
const MODEL_ARN =
  /^arn:aws(?:-[a-z]+)*:bedrock:[a-z0-9-]+:\d{12}:(?:inference-profile|application-inference-profile|foundation-model|provisioned-model|custom-model)\/\S+$/;

/** Base ids Bedrock still serves on demand; every later Claude is served only through an inference profile. */
const ON_DEMAND = /^anthropic\.claude-(?:instant-v1|v2|3-(?:haiku|sonnet|opus)-|3-5-sonnet-20240620-|3-5-haiku-)/;

/**
 * The refusal of a bare base id that only inference profiles serve (Claude 3.7 and later), with Bedrock's
 * text (cline/cline#2482, FlowiseAI/Flowise#4253); null for a profile, an ARN or an older model.
 */
export function onDemandRefusal(model: string): string | null {
  if (!model.startsWith('anthropic.') || ON_DEMAND.test(model)) return null;
  return (
    `Invocation of model ID ${model} with on-demand throughput isn\u2019t supported. ` +
    'Retry your request with the ID or ARN of an inference profile that contains this model.'
  );
}

export interface BedrockRoute {
  model: string;
  stream: boolean;
}

/** The model id and kind of a Bedrock runtime path, or undefined when the path is not one. */
export function matchBedrockPath(rawPath: string): BedrockRoute | undefined {
  const m = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream)$/.exec(rawPath);
  if (!m) return undefined;
  let model: string;
  try {
    model = decodeURIComponent(m[1]);
  } catch {
    model = m[1];
  }
  return { model, stream: m[2] === 'invoke-with-response-stream' };
}

export function isBedrockModelId(model: string): boolean {
  return MODEL_ID.test(model) || MODEL_ARN.test(model);
}

/** A Bedrock error answer: status, `x-amzn-errortype` and `{"message"}`. */
export function bedrockError(status: number, exception: string, message: string, requestId: string): WireReply {
  return {
    status,
    headers: {
      'content-type': 'application/json',
      'x-amzn-requestid': requestId,
      'x-amzn-errortype': `${exception}${ERRORTYPE_SUFFIX}`,
    },
    body: JSON.stringify({ message }),
    message,
  };
}

/** What Bedrock refuses in the body before the model sees it; null when the body is acceptable. */
export function checkBedrockBody(body: unknown, requestId: string): WireReply | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return bedrockError(
      400,
      'ValidationException',
      'Malformed input request, please reformat your input and try again.',
      requestId,
    );
  }
  const b = body as Record<string, unknown>;
  const violations: string[] = [];
  if (b.anthropic_version === undefined) violations.push('#: required key [anthropic_version] not found');
  for (const key of ['model', 'stream']) if (key in b) violations.push(`#: extraneous key [${key}] is not permitted`);
  if (violations.length > 0) {
    const message = `Malformed input request: ${violations.join('')}, please reformat your input and try again.`;
    return bedrockError(400, 'ValidationException', message, requestId);
  }
  if (!BEDROCK_ANTHROPIC_VERSIONS.includes(String(b.anthropic_version))) {
    return bedrockError(400, 'ValidationException', `Invalid API version: ${String(b.anthropic_version)}`, requestId);
  }
  return null;
}

interface BedrockException {
  status: number;
  /** The exception's name, as in `x-amzn-errortype` (the stream frame uses it camel-cased). */
  name: string;
  message: string;
}

/** The API's error as Bedrock reports it. */
function translate(e: WireError): BedrockException {
  switch (e.type) {
    case 'rate_limit_error':
      return {
        status: 429,
        name: 'ThrottlingException',
        message: 'Too many requests, please wait before trying again.',
      };
    case 'overloaded_error':
      return {
        status: 503,
        name: 'ServiceUnavailableException',
        message: 'Bedrock is unable to process your request.',
      };
    case 'api_error':
      return {
        status: 500,
        name: 'InternalServerException',
        message: 'The system encountered an unexpected error during processing. Try your request again.',
      };
    case 'invalid_request_error':
    case 'request_too_large':
      // The model's own 400s come back wrapped, with the model's text (and its token numbers) kept.
      return {
        status: 400,
        name: 'ValidationException',
        message: `The model returned the following errors: ${e.message}`,
      };
    case 'authentication_error':
    case 'permission_error':
      return { status: 403, name: 'AccessDeniedException', message: e.message };
    case 'not_found_error':
      return { status: 404, name: 'ResourceNotFoundException', message: e.message };
    default:
      return { status: e.status >= 500 ? 500 : 400, name: 'ModelErrorException', message: e.message };
  }
}

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();
const codec = new EventStreamCodec(
  (bytes) => utf8Decoder.decode(bytes),
  (text) => utf8Encoder.encode(text),
);

const str = (value: string) => ({ type: 'string' as const, value });

/** Frame headers, as the codec takes them (string-typed values only here). */
type FrameHeaders = Record<string, ReturnType<typeof str>>;

/** One `chunk` frame carrying `payload` (an Anthropic stream event) base64-encoded. */
export function chunkFrame(payload: unknown): Uint8Array {
  const json = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const headers: FrameHeaders = {
    ':event-type': str('chunk'),
    ':content-type': str('application/json'),
    ':message-type': str('event'),
  };
  const body = utf8Encoder.encode(JSON.stringify({ bytes: Buffer.from(json, 'utf8').toString('base64') }));
  return codec.encode({ headers, body });
}

/** An `exception` frame, as Bedrock ends a stream that failed after its 200. */
export function exceptionFrame(exceptionName: string, message: string): Uint8Array {
  const headers: FrameHeaders = {
    ':exception-type': str(exceptionName.charAt(0).toLowerCase() + exceptionName.slice(1)),
    ':content-type': str('application/json'),
    ':message-type': str('exception'),
  };
  return codec.encode({ headers, body: utf8Encoder.encode(JSON.stringify({ message })) });
}

/** Bedrock's invocation metrics, which it adds to the last event of a stream. */
function withInvocationMetrics(data: Record<string, unknown>, message: ApiResponseMessage | undefined) {
  if (!message) return data;
  return {
    ...data,
    'amazon-bedrock-invocationMetrics': {
      inputTokenCount: message.usage.input_tokens,
      outputTokenCount: message.usage.output_tokens,
      invocationLatency: 1,
      firstByteLatency: 1,
      cacheReadInputTokenCount: message.usage.cache_read_input_tokens,
      cacheWriteInputTokenCount: message.usage.cache_creation_input_tokens,
    },
  };
}

/** Bedrock's wire; `message` (when known) supplies the invocation metrics of the final frame. */
export function bedrockWire(): Wire {
  let lastMessage: ApiResponseMessage | undefined;
  return {
    provider: 'bedrock',
    error(e, requestId) {
      const t = translate(e);
      const reply = bedrockError(t.status, t.name, t.message, requestId);
      if (e.retryAfterSeconds !== undefined) reply.headers['retry-after'] = String(e.retryAfterSeconds);
      return reply;
    },
    streamHeaders: (requestId) => ({
      'content-type': 'application/vnd.amazon.eventstream',
      'x-amzn-requestid': requestId,
      'x-amzn-bedrock-content-type': 'application/json',
    }),
    encodeEvent(e: SseEvent) {
      const data = typeof e.data === 'string' ? (JSON.parse(e.data) as Record<string, unknown>) : e.data;
      const record = data as Record<string, unknown>;
      if (e.event === 'message_start') lastMessage = record.message as ApiResponseMessage;
      if (e.event === 'message_delta' && lastMessage) {
        const usage = record.usage as ApiResponseMessage['usage'];
        lastMessage = { ...lastMessage, usage: { ...lastMessage.usage, output_tokens: usage.output_tokens } };
      }
      if (e.event === 'error') {
        const err = record.error as { type: string; message: string };
        const t = translate({ status: 0, type: err.type, message: err.message });
        return exceptionFrame(t.name, t.message);
      }
      return chunkFrame(e.event === 'message_stop' ? withInvocationMetrics(record, lastMessage) : record);
    },
    messageHeaders: (message, requestId) => ({
      'x-amzn-requestid': requestId,
      'x-amzn-bedrock-invocation-latency': '1',
      'x-amzn-bedrock-input-token-count': String(message.usage.input_tokens),
      'x-amzn-bedrock-output-token-count': String(message.usage.output_tokens),
    }),
    messageIdPrefix: 'msg_bdrk_01',
  };
}

/** Bedrock's request ids are UUIDs. */
export const newBedrockRequestId = (): string => randomUUID();
