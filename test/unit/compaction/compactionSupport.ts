// Shared by the compaction tests: random conversations shaped like real ones (parallel tool calls,
// responses split over several messages sharing one message.id with thinking first, text between
// calls, results out of call order, images, non-ASCII text around the cut points), the validator run
// on a full request body, and a model client that answers from a script without a server.
import fc from 'fast-check';
import type {
  ApiMessage,
  AssistantBlock,
  ContentBlock,
  ToolResultBlock,
  UserBlock,
} from '../../../src/core/conversation/types';
import type { CompactionEntry, TokensOf } from '../../../src/core/compaction/types';
import type { ModelClient, ModelRequest, ModelResponse, StreamHandlers } from '../../../src/core/llm/modelClient';
import { validateMessagesRequest } from '../../../src/testServer/requestValidator';

/** The validator's verdict on a whole request with these messages (a user probe follows a final answer). */
export function requestProblem(messages: readonly ApiMessage[], opts: { contextWindow?: number } = {}): string | null {
  const probe =
    messages[messages.length - 1]?.role === 'assistant'
      ? [...messages, { role: 'user' as const, content: 'next' }]
      : messages;
  const names = new Set<string>();
  for (const m of probe)
    if (typeof m.content !== 'string') for (const b of m.content) if (b.type === 'tool_use') names.add(b.name);
  const body = {
    model: 'claude-test',
    max_tokens: 1024,
    system: [{ type: 'text', text: 'You are a test.' }],
    tools: [...names].map((name) => ({ name, description: `${name} tool`, input_schema: { type: 'object' } })),
    messages: probe,
  };
  const invalid = validateMessagesRequest(body, { contextWindow: opts.contextWindow ?? Number.POSITIVE_INFINITY });
  return invalid ? invalid.message : null;
}

/** A cheap, deterministic counter: a quarter of the characters of every block's text. */
export const charTokens: TokensOf = (m) => {
  if (typeof m.content === 'string') return 4 + Math.ceil(m.content.length / 4);
  let n = 4;
  for (const b of m.content) n += 3 + Math.ceil(blockChars(b) / 4);
  return n;
};

function blockChars(b: ContentBlock): number {
  switch (b.type) {
    case 'text':
      return b.text.length;
    case 'thinking':
      return b.thinking.length;
    case 'redacted_thinking':
      return b.data.length;
    case 'tool_use':
      return b.name.length + JSON.stringify(b.input).length;
    case 'image':
      return 6400;
    case 'tool_result':
      return typeof b.content === 'string'
        ? b.content.length
        : b.content.reduce((n, c) => n + (c.type === 'text' ? c.text.length : 6400), 0);
  }
}

// Text that puts surrogate pairs, combining marks and CRLF near any cut point.
const FILLER = 'ab😀c é\u0301 x\r\nyz 👍🏽 ';

export function filler(length: number, seed: number): string {
  if (length <= 0) return '';
  const start = seed % FILLER.length;
  let s = '';
  while (s.length < length + start) s += FILLER;
  // Start on a whole character so the text itself is well formed.
  let from = start;
  const c = s.charCodeAt(from);
  if (c >= 0xdc00 && c <= 0xdfff) from++;
  let text = s.slice(from, from + length);
  const last = text.charCodeAt(text.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) text = text.slice(0, -1);
  return text.trim() === '' ? 'x' : text;
}

interface StepSpec {
  calls: number;
  sizes: number[];
  textBetween: boolean;
  image: boolean;
  shuffle: boolean;
  extraText: boolean;
}

interface RoundSpec {
  promptLength: number;
  promptAsBlocks: boolean;
  steps: StepSpec[];
  thinking: boolean;
  split: boolean;
  answer: boolean;
}

const stepArb: fc.Arbitrary<StepSpec> = fc.record({
  calls: fc.integer({ min: 1, max: 3 }),
  sizes: fc.array(
    fc.oneof(
      fc.integer({ min: 1, max: 300 }),
      fc.integer({ min: 1_900, max: 2_100 }),
      fc.integer({ min: 2_000, max: 9_000 }),
    ),
    { minLength: 3, maxLength: 3 },
  ),
  textBetween: fc.boolean(),
  image: fc.boolean(),
  shuffle: fc.boolean(),
  extraText: fc.boolean(),
});

const roundArb: fc.Arbitrary<RoundSpec> = fc.record({
  promptLength: fc.integer({ min: 1, max: 400 }),
  promptAsBlocks: fc.boolean(),
  steps: fc.array(stepArb, { maxLength: 3 }),
  thinking: fc.boolean(),
  split: fc.boolean(),
  answer: fc.boolean(),
});

export interface Generated {
  entries: CompactionEntry[];
  /** How the conversation ends: a prompt waiting, results waiting, or an answer. */
  ending: 'prompt' | 'results' | 'answer';
}

export const conversationArb: fc.Arbitrary<Generated> = fc
  .record({
    rounds: fc.array(roundArb, { minLength: 1, maxLength: 14 }),
    ending: fc.constantFrom('prompt', 'results', 'answer') as fc.Arbitrary<Generated['ending']>,
    seed: fc.nat(),
  })
  .map(({ rounds, ending, seed }) => build(rounds, ending, seed));

/** Deterministic builder (also used by benchmarks with fixed specs). */
export function build(rounds: RoundSpec[], ending: Generated['ending'], seed = 0): Generated {
  const entries: CompactionEntry[] = [];
  let tool = 0;
  let msg = 0;
  let line = 0;
  const uuid = (): string => `line-${line++}`;
  const push = (message: ApiMessage, uuids: string[], messageIds: string[] = []): void =>
    void entries.push({ message, uuids, messageIds });
  rounds.forEach((r, ri) => {
    const last = ri === rounds.length - 1;
    const prompt = filler(r.promptLength, seed + ri);
    push({ role: 'user', content: r.promptAsBlocks ? [{ type: 'text', text: prompt }] : prompt }, [uuid()]);
    const steps =
      last && ending === 'prompt' ? [] : last && ending === 'results' && r.steps.length === 0 ? [stepOf(r)] : r.steps;
    steps.forEach((s, si) => {
      const id = `msg_${msg++}`;
      const blocks: AssistantBlock[] = [];
      if (r.thinking) blocks.push({ type: 'thinking', thinking: `thinking ${id}`, signature: `sig${id}` });
      const calls: string[] = [];
      for (let c = 0; c < s.calls; c++) {
        if (s.textBetween || c === 0) blocks.push({ type: 'text', text: `step ${si} call ${c}` });
        const toolId = `toolu_${tool++}`;
        calls.push(toolId);
        blocks.push({ type: 'tool_use', id: toolId, name: c % 2 === 0 ? 'Read' : 'Bash', input: { n: c } });
      }
      pushAssistant(blocks, id, r.split, uuid, push);
      const order = s.shuffle ? [...calls].reverse() : calls;
      const results: UserBlock[] = order.map((toolId, k) =>
        resultBlock(toolId, s.sizes[k % s.sizes.length], s.image && k === 0, seed + tool + k),
      );
      if (s.extraText) results.push({ type: 'text', text: 'extra note after the results' });
      push(
        { role: 'user', content: results },
        order.map(() => uuid()),
      );
    });
    if (last && ending !== 'answer') return;
    if (r.answer || last) {
      const id = `msg_${msg++}`;
      pushAssistant(
        [
          ...(r.thinking && steps.length === 0
            ? [{ type: 'thinking' as const, thinking: 'answer thinking', signature: 'sig' }]
            : []),
          { type: 'text', text: `answer ${ri}` },
        ],
        id,
        r.split,
        uuid,
        push,
      );
    }
  });
  return { entries, ending };
}

function stepOf(r: RoundSpec): StepSpec {
  return {
    calls: 1 + (r.promptLength % 3),
    sizes: [r.promptLength * 10, 50, 2_500],
    textBetween: r.split,
    image: r.thinking,
    shuffle: r.split,
    extraText: false,
  };
}

/** A response as one message, or split: thinking alone, then the rest (as a transcript has it). */
function pushAssistant(
  blocks: AssistantBlock[],
  id: string,
  split: boolean,
  uuid: () => string,
  push: (m: ApiMessage, u: string[], ids?: string[]) => void,
): void {
  if (split && blocks.length > 1) {
    const cut = blocks[0].type === 'thinking' ? 1 : Math.ceil(blocks.length / 2);
    push(
      { role: 'assistant', content: blocks.slice(0, cut) },
      blocks.slice(0, cut).map(() => uuid()),
      [id],
    );
    push(
      { role: 'assistant', content: blocks.slice(cut) },
      blocks.slice(cut).map(() => uuid()),
      [id],
    );
    return;
  }
  push(
    { role: 'assistant', content: blocks },
    blocks.map(() => uuid()),
    [id],
  );
}

function resultBlock(toolId: string, size: number, image: boolean, seed: number): ToolResultBlock {
  const text = filler(size, seed);
  if (!image) return { type: 'tool_result', tool_use_id: toolId, content: text };
  return {
    type: 'tool_result',
    tool_use_id: toolId,
    content: [
      { type: 'text', text },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo'.repeat(40) } },
    ],
  };
}

/** A string that has a lone surrogate (what cutting in the middle of an emoji leaves). */
export function hasLoneSurrogate(s: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
}

export function toolResults(messages: readonly ApiMessage[]): ToolResultBlock[] {
  return messages.flatMap((m) =>
    typeof m.content === 'string' ? [] : m.content.filter((b): b is ToolResultBlock => b.type === 'tool_result'),
  );
}

/** A ModelClient that answers each request with the next scripted text (or error) and records requests. */
export class ScriptedClient implements ModelClient {
  readonly requests: ModelRequest[] = [];
  private n = 0;

  constructor(private readonly script: Array<string | Error | ((req: ModelRequest) => string | Error)>) {}

  async stream(req: ModelRequest, handlers: StreamHandlers): Promise<ModelResponse> {
    this.requests.push(req);
    const step = this.script[Math.min(this.n++, this.script.length - 1)];
    const answer = typeof step === 'function' ? step(req) : step;
    if (answer instanceof Error) throw answer;
    handlers.onMessageStart?.(`msg_scripted_${this.n}`, { input_tokens: 0, output_tokens: 0 });
    handlers.onTextDelta?.(answer, 0);
    return {
      id: `msg_scripted_${this.n}`,
      model: req.model,
      content: [{ type: 'text', text: answer }],
      stopReason: 'end_turn',
      usage: { input_tokens: 100, output_tokens: 50 },
    };
  }
}

export const SUMMARY_ANSWER =
  '<analysis>went through it</analysis>\n<summary>\n1. Request and intent: test.\n9. Next step: none.\n</summary>';
