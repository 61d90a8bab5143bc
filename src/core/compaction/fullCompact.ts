// Full compaction (DESIGN 5, third stage): one model call writes a structured summary that replaces the
// conversation. The request continues the conversation itself (same system prompt, same tool schemas,
// same messages, then the summary request) so it reads the prompt cache the last turn wrote, instead
// of paying for the whole conversation again. Old tool results are microcompacted first: the summary
// needs what they led to, not every byte of them, and a conversation at the window must shrink to
// leave room for the request. If the request is still too long, the oldest whole rounds are left out
// of it (deterministic, no further model call) and it is tried again.
// The summary replaces the conversation up to the recent window, which stays verbatim after it (the
// same bounds as session-memory compaction: >= 10,000 tokens by default), so the next request carries
// the summary and the last exchanges as they were. An answer that is not a summary (a tool call, no
// sections) is never accepted: it is asked again once with no tools offered, then the stage fails and
// the conversation stays as it was.
import { withDropped } from './droppedFacts';
import type { Agent } from '../agent/agent';
import { forkMessages } from '../agent/forkedAgent';
import type { AssistantBlock, SystemBlock, ToolSchema } from '../conversation/types';
import { isModelError, PromptTooLongError } from '../llm/errors';
import type { ModelClient, ThinkingConfig } from '../llm/modelClient';
import { streamWithRetry, type RetryOptions } from '../llm/retry';
import { assembleCompacted } from './compactedConversation';
import { widenToKeepInvariants } from './invariants';
import { keepIndexOf, type KeepBounds } from './keepIndex';
import { microcompact, type MicrocompactOptions } from './microcompact';
import { dropOldestRounds } from './rounds';
import { extractSummary, fullSummaryText, summaryProblem, summaryRequest, type KeptPart } from './summaryPrompt';
import {
  entriesOf,
  sumTokens,
  unavailable,
  type CompactionEntry,
  type CompactionStage,
  type StageOutcome,
  type TokensOf,
} from './types';

/** The model side of a summary: the parent conversation's settings, so the cached prefix matches. */
export interface SummarizerConfig {
  client: ModelClient;
  model: string;
  maxTokens: number;
  thinking?: ThinkingConfig;
  system: SystemBlock[];
  tools: ToolSchema[];
  retry?: Omit<RetryOptions, 'onRetry'>;
}

/** The model a forked summary call of this agent uses: its client, model, system prompt and tools (for the cache). */
export function summarizerOf(agent: Agent | undefined): SummarizerConfig | undefined {
  if (!agent) return undefined;
  const p = agent.forkContext();
  return {
    client: p.client,
    model: p.model,
    maxTokens: p.maxTokens,
    system: p.system,
    tools: p.tools.map((t) => t.schema),
    ...(p.thinking ? { thinking: p.thinking } : {}),
    ...(p.retry ? { retry: p.retry } : {}),
  };
}

/** For the VS Code progress notification: a summary takes seconds, and the person should see it move. */
export type CompactProgress =
  | { phase: 'started'; stage: CompactionStage }
  | { phase: 'streaming'; chars: number }
  | { phase: 'done'; tokensAfter: number }
  | { phase: 'failed'; message: string };

export interface FullCompactOptions {
  entries: readonly CompactionEntry[];
  summarizer: SummarizerConfig;
  /** What the person typed after /compact: what the summary should pay attention to. */
  focus?: string;
  signal?: AbortSignal;
  onProgress?(progress: CompactProgress): void;
  tokensOf: TokensOf;
  fixedTokens?: number;
  tokensBefore?: number;
  micro: MicrocompactOptions;
  reattach?: string;
  /**
   * The recent window kept verbatim after the summary. Without it (or when the whole conversation is
   * that recent) only the latest user message is kept, when it is a prompt.
   */
  keep?: KeepBounds;
  /** The user asked for this compaction: the opening message does not say the conversation grew too long. */
  manual?: boolean;
}

/** Tries of the summary request; each retry after "prompt is too long" leaves out more old rounds. */
const SUMMARY_ATTEMPTS = 3;
/** Aim this far under the API's limit when shrinking, since our token counts are estimates. */
const FIT_MARGIN = 0.9;

export async function fullCompact(opts: FullCompactOptions): Promise<StageOutcome> {
  const stage = 'full';
  const { entries, tokensOf } = opts;
  if (entries.length === 0) return unavailable(stage, 'nothing-to-compact', 'The conversation is empty.');
  opts.onProgress?.({ phase: 'started', stage });
  const fixed = opts.fixedTokens ?? 0;
  const { keptFrom, kept } = keptPart(opts);

  let prefix = entriesOf(
    microcompact(
      entries.map((e) => e.message),
      opts.micro,
    ).messages,
  );
  const request = summaryRequest(opts.focus);
  const signal = opts.signal ?? new AbortController().signal;
  let answer: SummaryAnswer | undefined;
  let offerTools = true;
  for (let attempt = 1; answer === undefined; attempt++) {
    try {
      answer = await summarize(opts, prefix, request, signal, offerTools);
    } catch (e) {
      if (!(e instanceof PromptTooLongError) || attempt >= SUMMARY_ATTEMPTS) return failed(opts, e);
      const from = dropOldestRounds(prefix, 0, tokensToFree(e, prefix, fixed, tokensOf), tokensOf);
      if (from === 0) return failed(opts, e);
      prefix = prefix.slice(from);
      continue;
    }
    if (signal.aborted) return failed(opts, new Error('cancelled'));
    const problem = summaryProblem(answer.content);
    if (problem === undefined) break;
    // Once more, with nothing to call: a model that reached for a tool (or wandered off) gets the
    // same request and can only answer in text. A second miss fails the stage.
    if (!offerTools) return invalid(opts, problem, answer.text);
    offerTools = false;
    answer = undefined;
  }
  if (signal.aborted) return failed(opts, new Error('cancelled'));
  const summary = extractSummary(answer.text);
  const summaryText = fullSummaryText(summary, { kept, reattach: opts.reattach, manual: opts.manual });
  const compacted = assembleCompacted(summaryText, entries, keptFrom);
  const tokensAfter = fixed + sumTokens(compacted, tokensOf);
  opts.onProgress?.({ phase: 'done', tokensAfter });
  return {
    ok: true,
    result: withDropped({
      stage,
      entries: compacted,
      keptFrom,
      replaced: entries.slice(0, keptFrom),
      summaryText,
      summaryBody: summary.trim(),
      tokensBefore: opts.tokensBefore ?? fixed + sumTokens(entries, tokensOf),
      tokensAfter,
      modelCalls: answer.calls,
    }),
  };
}

/** Where the summary ends and the verbatim part begins. */
function keptPart(opts: FullCompactOptions): { keptFrom: number; kept: KeptPart } {
  const { entries } = opts;
  if (opts.keep) {
    const keep = keepIndexOf(entries, entries.length, opts.keep, opts.tokensOf);
    const from = widenToKeepInvariants(entries, keep.index);
    if (from > 0 && from < entries.length) return { keptFrom: from, kept: 'recent' };
  }
  const last = entries[entries.length - 1].message;
  const latest = last.role === 'user' && !hasToolResults(last.content) && entries.length > 1;
  return latest ? { keptFrom: entries.length - 1, kept: 'latest' } : { keptFrom: entries.length, kept: 'nothing' };
}

interface SummaryAnswer {
  content: AssistantBlock[];
  text: string;
  /** Model calls spent so far (a retry with no tools is the second). */
  calls: number;
}

async function summarize(
  opts: FullCompactOptions,
  prefix: readonly CompactionEntry[],
  request: string,
  signal: AbortSignal,
  offerTools: boolean,
): Promise<SummaryAnswer> {
  const s = opts.summarizer;
  let chars = 0;
  const response = await streamWithRetry(
    s.client,
    {
      model: s.model,
      maxTokens: s.maxTokens,
      system: s.system,
      tools: offerTools ? s.tools : [],
      messages: forkMessages(
        prefix.map((e) => e.message),
        request,
      ),
      ...(s.thinking ? { thinking: s.thinking } : {}),
      // The request is sent once: writing it to the cache would cost more than sending it.
      cache: { cacheTail: false },
    },
    {
      onTextDelta: (text) => {
        chars += text.length;
        opts.onProgress?.({ phase: 'streaming', chars });
      },
    },
    signal,
    s.retry ?? {},
  );
  if (response.cancelled) throw new Error('cancelled');
  const text = response.content
    .filter((b) => b.type === 'text')
    .map((b) => (b as { text: string }).text)
    .join('\n');
  return { content: response.content, text, calls: offerTools ? 1 : 2 };
}

/** How much to leave out, in our token units, scaled by how far the API said the request was over. */
function tokensToFree(
  e: PromptTooLongError,
  prefix: readonly CompactionEntry[],
  fixed: number,
  tokensOf: TokensOf,
): number {
  const estimate = fixed + sumTokens(prefix, tokensOf);
  if (!e.promptTokens || !e.maxTokens || estimate === 0) return Math.ceil(estimate / 4);
  const ratio = e.promptTokens / estimate;
  return Math.max(1, Math.ceil(estimate - (e.maxTokens * FIT_MARGIN) / ratio));
}

function invalid(opts: FullCompactOptions, problem: string, text: string): StageOutcome {
  const empty = extractSummary(text) === '';
  const outcome = 'also when asked again with no tools; the conversation was left as it was.';
  const message = empty
    ? `The model returned no summary, ${outcome}`
    : `The model's answer was not a summary (${problem}), ${outcome}`;
  opts.onProgress?.({ phase: 'failed', message });
  return unavailable('full', empty ? 'empty-summary' : 'invalid-summary', message);
}

function failed(opts: FullCompactOptions, e: unknown): StageOutcome {
  const cancelled = (e instanceof Error && e.message === 'cancelled') || opts.signal?.aborted === true;
  const message = cancelled
    ? 'The compaction was cancelled.'
    : isModelError(e)
      ? e.message
      : `The summary failed: ${e instanceof Error ? e.message : String(e)}`;
  opts.onProgress?.({ phase: 'failed', message });
  return unavailable('full', cancelled ? 'cancelled' : 'model-error', message);
}

function hasToolResults(content: string | readonly { type: string }[]): boolean {
  return typeof content !== 'string' && content.some((b) => b.type === 'tool_result');
}
