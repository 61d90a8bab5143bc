// Compaction benchmarks (DESIGN 8): microcompact and session-memory compaction on conversations of
// 1,000 and 5,000 messages (about 200K and 1M tokens), and the number of API-invalid requests any stage
// produces over random histories and Claude Code's fixture transcripts (target 0).
//
// Token counts are warm, as in the live agent: every block was counted once when it arrived (the
// estimator caches per block), so what is timed is the stage itself. The notes text is new on every
// run, as it is after each notes update, so counting it is part of the time.
import path from 'node:path';
import fc from 'fast-check';
import { fullCompact } from '../../src/core/compaction/fullCompact';
import { microStep } from '../../src/core/compaction/pipeline';
import { looksTemplateOnly } from '../../src/core/compaction/notesSource';
import { reactiveCompact } from '../../src/core/compaction/reactive';
import { compactWithNotes } from '../../src/core/compaction/sessionMemoryCompact';
import { DEFAULT_COMPACTION_SETTINGS } from '../../src/core/compaction/settings';
import { loadTranscriptView } from '../../src/core/compaction/transcriptView';
import { sumTokens, tokensOfEstimator, type CompactionEntry, type TokensOf } from '../../src/core/compaction/types';
import type { ApiMessage } from '../../src/core/conversation/types';
import { PromptTooLongError } from '../../src/core/llm/errors';
import { TokenEstimator } from '../../src/core/tokens/accounting';
import { countTokens, ensureTokenizer } from '../../src/core/tokens/tokenizer';
import {
  charTokens,
  conversationArb,
  requestProblem,
  ScriptedClient,
  SUMMARY_ANSWER,
} from '../unit/compaction/compactionSupport';
import { CC_FIXTURES, fixtureTranscripts } from '../unit/conversation/testSupport';

type Metrics = Record<string, { value: number; unit: string; target?: number }>;

const RUNS = 21;
const NOTES_FIXTURE = path.join(CC_FIXTURES, 'sm-session-memory-summary.md');

export async function run(): Promise<Metrics> {
  await ensureTokenizer();
  const metrics: Metrics = {};
  for (const size of [1_000, 5_000]) {
    const tokensOf = tokensOfEstimator(new TokenEstimator(countTokens));
    const entries = conversationOf(size);
    const total = sumTokens(entries, tokensOf); // warms the per-block cache, as live accounting does
    metrics[`compaction_conversation_tokens_${size}`] = { value: total, unit: 'tokens' };
    const settings = { ...DEFAULT_COMPACTION_SETTINGS, contextWindow: 200_000 };
    metrics[`microcompact_ms_${size}`] = {
      value: round(
        median(RUNS, () => {
          const r = microStep(entries, total, { settings, tokensOf, automatic: false });
          if (!r) throw new Error('microcompact found nothing to trim');
        }),
      ),
      unit: 'ms',
      ...(size === 5_000 ? { target: 20 } : {}),
    };
    let calls = 0;
    let run = 0;
    metrics[`sm_compact_ms_${size}`] = {
      value: round(
        median(RUNS, () => {
          const out = compactWithNotes(
            { text: notesText(run++), lastSummarizedMessageId: entries[entries.length - 40].uuids[0] },
            looksTemplateOnly,
            {
              entries,
              bounds: {
                minTokens: settings.keepMinTokens,
                minTextMessages: settings.keepMinTextMessages,
                maxTokens: settings.keepMaxTokens,
              },
              thresholdTokens: 160_000,
              tokensOf,
              tokensBefore: total,
            },
          );
          if (!out.ok) throw new Error(`session-memory compaction declined: ${out.reason}`);
          calls += out.result.modelCalls;
        }),
      ),
      unit: 'ms',
      ...(size === 5_000 ? { target: 20 } : {}),
    };
    if (size === 5_000) metrics.sm_compact_model_calls = { value: calls, unit: 'calls', target: 0 };
  }
  const checked = await invalidRequests();
  metrics.invalid_requests = { value: checked.invalid, unit: 'requests', target: 0 };
  metrics.invalid_requests_checked = { value: checked.total, unit: 'requests' };
  return metrics;
}

/** Rounds of prompt, a call (some parallel), results of mixed sizes (code-like text), until `count` messages. */
function conversationOf(count: number): CompactionEntry[] {
  const out: CompactionEntry[] = [];
  const sizes = [250, 850, 2_000, 4_000];
  for (let r = 0; out.length < count; r++) {
    const id = `msg_${r}`;
    out.push({
      message: {
        role: 'user',
        content: `Request ${r}: update src/route${r % 97}.ts so that field id${r} is validated and a helpful 400 is returned otherwise.`,
      },
      uuids: [`u${r}`],
      messageIds: [],
    });
    const calls = r % 5 === 0 ? 2 : 1;
    const uses = Array.from({ length: calls }, (_, k) => ({
      type: 'tool_use' as const,
      id: `toolu_${r}_${k}`,
      name: 'Read',
      input: { file_path: `/work/src/module${r}_${k}.ts` },
    }));
    out.push({
      message: { role: 'assistant', content: [{ type: 'text', text: `Reading module ${r}.` }, ...uses] },
      uuids: [`a${r}`],
      messageIds: [id],
    });
    const results: ApiMessage = {
      role: 'user',
      content: uses.map((u, k) => ({
        type: 'tool_result' as const,
        tool_use_id: u.id,
        content: code(r * 7 + k, sizes[(r + k) % sizes.length]),
      })),
    };
    out.push({ message: results, uuids: uses.map((_, k) => `r${r}_${k}`), messageIds: [] });
  }
  return out.slice(0, count);
}

function code(seed: number, chars: number): string {
  let s = '';
  for (let l = 0; s.length < chars; l++) {
    const body = `{ return Number(input.v${l}) * ${seed + l}; }`;
    s += `${l + 1}\texport function handler${seed}_${l}(input: Record<string, unknown>): number ${body}\n`;
  }
  return s.slice(0, chars);
}

function notesText(n: number): string {
  const note = (i: number) => `- note ${n}.${i}: the parser handles case ${i} by checking the token kind first.`;
  const section = (title: string, lines: number) =>
    `# ${title}\n_What belongs here_\n${Array.from({ length: lines }, (_, i) => note(i)).join('\n')}\n`;
  return [
    'Session Title',
    'Current State',
    'Task specification',
    'Files and Functions',
    'Workflow',
    'Errors & Corrections',
    'Learnings',
    'Key results',
    'Worklog',
  ]
    .map((t) => section(t, 25))
    .join('\n');
}

/** Every stage over random histories and the fixtures; each result goes through the API's validator. */
async function invalidRequests(): Promise<{ invalid: number; total: number }> {
  let invalid = 0;
  let total = 0;
  const check = (messages: readonly ApiMessage[]): void => {
    total++;
    if (requestProblem(messages) !== null) invalid++;
  };
  const histories = fc.sample(conversationArb, { numRuns: 300, seed: 42 }).map((g) => g.entries);
  for (const name of await fixtureTranscripts()) {
    const view = await loadTranscriptView(path.join(CC_FIXTURES, name));
    if (view.entries.length > 0) histories.push(view.entries);
  }
  const notes = await import('node:fs').then((fs) => fs.readFileSync(NOTES_FIXTURE, 'utf8'));
  for (const entries of histories) await everyStage(entries, charTokens, notes, check);
  return { invalid, total };
}

async function everyStage(
  entries: CompactionEntry[],
  tokensOf: TokensOf,
  notes: string,
  check: (m: readonly ApiMessage[]) => void,
): Promise<void> {
  const micro = { keepRecent: 5, maxChars: 2_000 };
  const step = microStep(entries, 0, { settings: { ...DEFAULT_COMPACTION_SETTINGS }, tokensOf, automatic: false });
  if (step) check(step.entries.map((e) => e.message));
  for (const cursorAt of [entries.length - 1, Math.floor(entries.length / 2), 0]) {
    const cursor = entries[cursorAt]?.uuids[0];
    const sm = compactWithNotes(
      { text: notes, ...(cursor ? { lastSummarizedMessageId: cursor } : {}) },
      looksTemplateOnly,
      {
        entries,
        bounds: { minTokens: 300, minTextMessages: 2, maxTokens: 2_000 },
        thresholdTokens: Number.POSITIVE_INFINITY,
        tokensOf,
      },
    );
    if (sm.ok) check(sm.result.entries.map((e) => e.message));
  }
  const full = await fullCompact({
    entries,
    tokensOf,
    micro,
    summarizer: { client: new ScriptedClient([SUMMARY_ANSWER]), model: 'm', maxTokens: 100, system: [], tools: [] },
  });
  if (full.ok) check(full.result.entries.map((e) => e.message));
  const before = sumTokens(entries, tokensOf);
  const reactive = await reactiveCompact({
    entries,
    error: new PromptTooLongError('x', before * 2, before),
    attempt: 1,
    contextWindow: before,
    tokensOf,
    micro,
  });
  if (reactive.ok) check(reactive.result.entries.map((e) => e.message));
}

function median(runs: number, fn: () => void): number {
  fn(); // first run outside the timing: lazy init (segmenter, regexes)
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
