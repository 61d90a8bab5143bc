// The stages in the order they are tried (DESIGN 5), shared by the orchestrator (live agent) and the
// `engram compact` command (a transcript on disk). No transcript writing here: the caller records what
// it applies. Chains:
//   micro           microcompact only
//   session-memory  session-memory compaction only (the "Compact with Session Notes" command)
//   full            microcompact, then a full summary
//   auto            microcompact, then session-memory compaction, falling back to a full summary
// Automatic runs decide each step on the context the previous one left, and spend the prompt cache
// with care (every change rewrites the cache from the first changed block to the end):
// - a trim is applied only when it saves enough to be worth that rewrite, and, when session notes can
//   take over at their mark, only when it brings the context well below the microcompact mark
//   (hysteresis: trim in one batch, then leave the prefix alone until the next crossing);
// - from the session-memory mark up (the full mark included) the notes are tried before a summary;
//   the summary, a model call that forgets detail, is written only when the notes are missing, lost
//   their place or would still leave the context over the mark.
import { withDropped } from './droppedFacts';
import type { KeepBounds } from './keepIndex';
import { fullCompact, type CompactProgress, type SummarizerConfig } from './fullCompact';
import { microcompact } from './microcompact';
import type { NotesSource } from './notesSource';
import { sessionMemoryCompact } from './sessionMemoryCompact';
import { trimPlan } from './supersededResults';
import { tokensAtPercent, type CompactionSettings } from './settings';
import type { ApiMessage } from '../conversation/types';
import {
  sumTokens,
  unavailable,
  type CompactionEntry,
  type CompactionResult,
  type StageOutcome,
  type TokensOf,
} from './types';

export type ChainStage = 'micro' | 'session-memory' | 'full' | 'auto';
export type AutoPlan = 'none' | 'micro' | 'auto';
export type StageFailure = Extract<StageOutcome, { ok: false }>;

/**
 * What automatic compaction does at this fill level: nothing below the microcompact mark; a trim
 * from it; from the session-memory mark the whole chain. The full mark (the window, by default) does
 * not skip the notes: a conversation at the window fits again with the notes as well as with a
 * summary, for no model call.
 */
export function planForUsage(usedTokens: number, s: CompactionSettings): AutoPlan {
  if (usedTokens >= tokensAtPercent(s, s.sessionMemoryPercent)) return 'auto';
  if (usedTokens >= tokensAtPercent(s, s.microcompactPercent)) return 'micro';
  return 'none';
}

/**
 * Where an automatic trim must bring the context when the notes could take over instead: half the
 * microcompact mark (30% of the window by default). A trim rewrites the cache from the oldest trimmed
 * result to the end; one that lands just under the mark is due again a few turns later, while the
 * notes, at their mark, shrink the context to the recent window for one rewrite.
 */
export function trimTargetTokens(s: CompactionSettings): number {
  return tokensAtPercent(s, s.microcompactPercent / 2);
}

export interface PipelineContext {
  settings: CompactionSettings;
  tokensOf: TokensOf;
  /** System prompt and tool schemas: sent with every request, never compacted. */
  fixedTokens: number;
  notes?: NotesSource;
  /** Needed by the full stage; without it that stage is unavailable. */
  summarizer?: SummarizerConfig;
  focus?: string;
  signal?: AbortSignal;
  automatic: boolean;
  /** Text re-attached after a summarising stage (files, instructions); computed once, when needed. */
  reattach?(): Promise<string>;
  onProgress?(progress: CompactProgress): void;
  /** A stage declined and the chain goes on (e.g. no notes, so a summary is written instead). */
  onUnavailable?(failure: StageFailure): void;
  /** Called as each stage is applied, with the conversation it produced. */
  onApplied?(result: CompactionResult, startedAt: number): void | Promise<void>;
  now?(): number;
}

export interface PipelineOutcome {
  /** Stages applied, in order; each one's input is the previous one's output. */
  applied: CompactionResult[];
  /** The conversation after the last applied stage (the input when none applied). */
  entries: CompactionEntry[];
  /** Why the chain ended without its main stage (a micro step may still have been applied). */
  failure?: StageFailure;
}

export async function runCompaction(
  stage: ChainStage,
  input: readonly CompactionEntry[],
  tokensBefore: number,
  ctx: PipelineContext,
): Promise<PipelineOutcome> {
  const s = ctx.settings;
  const now = ctx.now ?? Date.now;
  const out: PipelineOutcome = { applied: [], entries: input.slice() };
  let before = tokensBefore;
  let reattachText: string | undefined;
  const reattach = async (): Promise<string | undefined> => (reattachText ??= ctx.reattach ? await ctx.reattach() : '');
  const apply = async (result: CompactionResult, startedAt: number): Promise<void> => {
    out.applied.push(result);
    out.entries = result.entries;
    before = result.tokensAfter;
    await ctx.onApplied?.(result, startedAt);
  };

  // Automatic, with notes that can take over: a trim that does not land well below the mark is held
  // back; it is applied only if the notes turn out unusable.
  let heldBack: { result: CompactionResult; startedAt: number } | undefined;
  if (stage !== 'session-memory') {
    const startedAt = now();
    const holdBack = ctx.automatic && ctx.notes !== undefined && stage !== 'full';
    const micro = microStep(
      out.entries,
      before,
      ctx,
      holdBack ? (r) => r.tokensAfter <= trimTargetTokens(s) : undefined,
    );
    if (micro && holdBack && micro.tokensAfter > trimTargetTokens(s)) heldBack = { result: micro, startedAt };
    else if (micro) await apply(micro, startedAt);
    else if (stage === 'micro' && !ctx.automatic)
      out.failure = unavailable(
        'micro',
        'nothing-to-compact',
        'No old tool result is long enough to trim.',
      ) as StageFailure;
    if (stage === 'micro') return out;
    // Measured again: the trim may have brought the context under the mark that called for the rest.
    if (stage === 'auto' && ctx.automatic && before < tokensAtPercent(s, s.sessionMemoryPercent)) return out;
  }

  if (stage === 'session-memory' || stage === 'auto') {
    const startedAt = now();
    const sm = ctx.notes
      ? await sessionMemoryCompact(ctx.notes, s.notesWaitMs, {
          entries: out.entries,
          bounds: keepBounds(s),
          thresholdTokens: tokensAtPercent(s, s.sessionMemoryPercent),
          fixedTokens: ctx.fixedTokens,
          tokensOf: ctx.tokensOf,
          tokensBefore: before,
          reattach: await reattach(),
          catchUp: s.notesCatchUp,
          manual: !ctx.automatic,
        })
      : unavailable('session-memory', 'no-notes', 'Session notes are not available in this conversation.');
    if (sm.ok) {
      await apply(sm.result, startedAt);
      return out;
    }
    if (stage === 'session-memory') {
      out.failure = sm;
      return out;
    }
    ctx.onUnavailable?.(sm);
    // The notes could not take over: the trim held back above is the cheapest step left.
    if (heldBack) {
      await apply(heldBack.result, heldBack.startedAt);
      if (before < tokensAtPercent(s, s.sessionMemoryPercent)) return out;
    }
  }

  const startedAt = now();
  if (!ctx.summarizer) {
    out.failure = unavailable('full', 'no-model', 'A full compaction needs a model (set an API key).') as StageFailure;
    return out;
  }
  const full = await fullCompact({
    entries: out.entries,
    summarizer: ctx.summarizer,
    ...(ctx.focus ? { focus: ctx.focus } : {}),
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    ...(ctx.onProgress ? { onProgress: ctx.onProgress } : {}),
    tokensOf: ctx.tokensOf,
    fixedTokens: ctx.fixedTokens,
    tokensBefore: before,
    micro: { keepRecent: s.keepRecentToolResults, maxChars: s.toolResultChars },
    keep: keepBounds(s),
    reattach: await reattach(),
    manual: !ctx.automatic,
  });
  if (full.ok) await apply(full.result, startedAt);
  else out.failure = full;
  return out;
}

/** The recent window every summarising stage keeps verbatim (>= 10,000 tokens by default). */
function keepBounds(s: CompactionSettings): KeepBounds {
  return { minTokens: s.keepMinTokens, minTextMessages: s.keepMinTextMessages, maxTokens: s.keepMaxTokens };
}

/**
 * Microcompact as a stage result; undefined when it changes nothing (or too little, when automatic).
 * With `trimSupersededFirst`, the trim is tried in tiers, the gentlest first, and the first that is
 * `enough` is taken (the last that saves anything otherwise): superseded copies only, keeping each
 * file's newest copy and every copy a note stands for whole; then the newest copies too; then, as
 * microcompact always did, every old result.
 */
export function microStep(
  entries: readonly CompactionEntry[],
  tokensBefore: number,
  ctx: Pick<PipelineContext, 'settings' | 'tokensOf' | 'automatic'>,
  enough?: (result: CompactionResult) => boolean,
): CompactionResult | undefined {
  const s = ctx.settings;
  const messages = entries.map((e) => e.message);
  const base = { keepRecent: s.keepRecentToolResults, maxChars: s.toolResultChars };
  if (!s.trimSupersededFirst) return microResult(entries, microcompact(messages, base), tokensBefore, ctx);
  const plan = trimPlan(messages);
  const tiers = [
    { ...base, ...plan },
    { ...base, trimFirst: plan.trimFirst, keepWhole: plan.noteOrigins },
    { ...base, trimFirst: plan.trimFirst },
  ];
  let last: CompactionResult | undefined;
  for (const opts of tiers) {
    const r = microResult(entries, microcompact(messages, opts), tokensBefore, ctx);
    if (r && (!enough || enough(r))) return r;
    last = r ?? last;
  }
  return last;
}

function microResult(
  entries: readonly CompactionEntry[],
  m: ReturnType<typeof microcompact>,
  tokensBefore: number,
  ctx: Pick<PipelineContext, 'settings' | 'tokensOf' | 'automatic'>,
): CompactionResult | undefined {
  const s = ctx.settings;
  if (m.changed.length === 0) return undefined;
  const changed = new Set(m.changed);
  const next = entries.map((e, i) => (changed.has(i) ? { ...e, message: m.messages[i] } : e));
  // The trimmed texts are new strings: scale each message's known count by how much text is left
  // instead of tokenizing them again (a first microcompact can trim hundreds of results).
  let saved = 0;
  let left = 0; // what the trimmed messages still weigh
  for (const i of m.changed) {
    const before = ctx.tokensOf(entries[i].message);
    const chars = contentChars(entries[i].message);
    const cut = chars > 0 ? Math.round(before * (1 - contentChars(m.messages[i]) / chars)) : 0;
    saved += cut;
    left += before - cut;
  }
  if (ctx.automatic && saved < tokensAtPercent(s, s.microcompactMinSavingsPercent)) return undefined;
  return withDropped({
    stage: 'micro',
    entries: next,
    keptFrom: m.changed[m.changed.length - 1] + 1,
    replaced: m.changed.map((i) => entries[i]),
    trimmedToolUseIds: m.trimmedToolUseIds,
    tokensBefore,
    tokensAfter: microTokensAfter(entries, tokensBefore, saved, left, ctx.tokensOf),
    modelCalls: 0,
  });
}

/**
 * The usage report minus the saving. A report below our estimate of the messages (an odd or partial
 * report, as in generated transcripts) would leave 0 or less though the trimmed results are still
 * sent: then the report is scaled by the share of the estimate that is left, which stays above 0 and
 * below the report. Only in that case is the whole conversation summed (from cached counts).
 */
function microTokensAfter(
  entries: readonly CompactionEntry[],
  tokensBefore: number,
  saved: number,
  left: number,
  tokensOf: PipelineContext['tokensOf'],
): number {
  if (tokensBefore - saved >= left) return tokensBefore - saved;
  const estimated = sumTokens(entries, tokensOf);
  if (estimated <= 0) return Math.max(0, tokensBefore - saved);
  return Math.max(1, Math.round((tokensBefore * Math.max(0, estimated - saved)) / estimated));
}

/** Characters of a message's text and data (what its token count grows with). */
function contentChars(m: ApiMessage): number {
  if (typeof m.content === 'string') return m.content.length;
  let n = 0;
  for (const b of m.content) {
    if (b.type === 'text') n += b.text.length;
    else if (b.type === 'image') n += b.source.data.length;
    else if (b.type === 'tool_result')
      n +=
        typeof b.content === 'string'
          ? b.content.length
          : b.content.reduce((k, c) => k + (c.type === 'text' ? c.text.length : c.source.data.length), 0);
    else n += JSON.stringify(b).length;
  }
  return n;
}
