// What a bench session's requests say (sessionChain.ts ran them). Units = input + 1.25 x cache write
// (5 min) + 2 x cache write (1 h) + 0.1 x cache read + 5 x output, summed over every request (forks
// included). Besides the units: where they go (by kind of request and of token), the share of cache
// writes that rewrite content sent before, whether a resumed turn's prefix is byte-identical to what the
// last process sent, what compaction did, what a request after a compaction still carries, and how much
// repeated tool output went as a note instead of a second copy.
import { isRepeatNote, repeatedCallOf } from '../../src/core/conversation/repeatedResults';
import type { ToolResultBlock } from '../../src/core/conversation/types';
import { SUMMARY_REQUEST_MARKER, SUMMARY_SECTIONS } from '../../src/core/compaction/summaryPrompt';
import { NOTES_UPDATE_MARKER } from '../../src/core/memory/sessionNotes/prompts';
import type { LoggedRequest } from '../../src/testServer/anthropicTestServer';
import { approxTokens, promptSegments, type PromptSegment } from '../../src/testServer/promptSegments';
import type { Metrics } from './run';
import type { SessionRun, ToolCallFacts } from './sessionChain';

const COMPACTED_OPENING = 'This session continues a conversation';
/** How the engine's note for a repeated tool output starts (a result sent once, issue #19). */
/** Both scripts' notes updaters write "... reached Turn N." into the notes. */
const NOTES_PROGRESS = /<session-notes>[\s\S]*reached Turn \d+/;

type Kind = 'main' | 'notes' | 'summary';

function kindOf(req: LoggedRequest): Kind {
  const all = JSON.stringify(req.body.messages);
  return all.includes(NOTES_UPDATE_MARKER) ? 'notes' : all.includes(SUMMARY_REQUEST_MARKER) ? 'summary' : 'main';
}

/** A block without its position, so content moved by a compaction is still recognised. */
function contentKey(s: PromptSegment): string {
  return s.key.startsWith('m') ? s.key.slice(s.key.indexOf('|') + 1) : s.key;
}

export interface Analysis {
  units: number;
  parts: Record<'main' | 'notes' | 'summary' | 'input' | 'cacheWrite' | 'cacheRead' | 'output', number>;
  rewriteShare: number;
  resumed: number;
  identical: number;
  resumedAll: number;
  identicalAll: number;
  minKeptTokens: number | undefined;
  openingsWithoutSummary: number;
  rejected: number;
  requests: number;
  /** Tool results that went to the model as a note, and the tokens their full copies would have taken. */
  repeatsNotSent: number;
  repeatTokensNotSent: number;
}

export function analyse(run: SessionRun): Analysis {
  const parts: Analysis['parts'] = { main: 0, notes: 0, summary: 0, input: 0, cacheWrite: 0, cacheRead: 0, output: 0 };
  const seen = new Set<string>();
  const seenResults = new Set<string>();
  let written = 0;
  let rewritten = 0;
  const turnOf = (r: LoggedRequest): number => run.turnStarts.filter((s) => s <= r.receivedAt).length;
  const lastMain = new Map<number, PromptSegment[]>();
  const firstMain = new Map<number, PromptSegment[]>();
  const notes = new Map<string, string>();
  let minKept: number | undefined;
  let withoutSummary = 0;
  let opening = '';
  for (const req of run.requests) {
    const u = req.usage;
    if (!u || req.status !== 200) continue;
    const kind = kindOf(req);
    const cw5 = u.cache_creation?.ephemeral_5m_input_tokens ?? u.cache_creation_input_tokens ?? 0;
    const cw1h = u.cache_creation?.ephemeral_1h_input_tokens ?? 0;
    const kinds = {
      input: u.input_tokens,
      cacheWrite: 1.25 * cw5 + 2 * cw1h,
      cacheRead: 0.1 * (u.cache_read_input_tokens ?? 0),
      output: 5 * u.output_tokens,
    };
    for (const [k, v] of Object.entries(kinds)) parts[k as keyof typeof kinds] += v;
    parts[kind] += kinds.input + kinds.cacheWrite + kinds.cacheRead + kinds.output;

    // Cache writes that store content an earlier request already sent (unchanged, or a trimmed result).
    const segs = promptSegments(req.body);
    const readEnd = u.cache_read_input_tokens ?? 0;
    const writeEnd = readEnd + (u.cache_creation_input_tokens ?? 0);
    let at = 0;
    for (const s of segs) {
      const start = at;
      at += s.tokens;
      const key = contentKey(s);
      const resultId = /"tool_use_id":"([^"]+)"/.exec(key)?.[1];
      if (start >= readEnd && at <= writeEnd) {
        written += s.tokens;
        if (seen.has(key) || (resultId !== undefined && seenResults.has(resultId))) rewritten += s.tokens;
      }
    }
    for (const s of segs) {
      const key = contentKey(s);
      seen.add(key);
      const resultId = /"tool_use_id":"([^"]+)"/.exec(key)?.[1];
      if (resultId) seenResults.add(resultId);
    }
    if (kind !== 'main') continue;
    for (const [id, note] of repeatNotes(req)) notes.set(id, note);
    const turn = turnOf(req);
    if (!firstMain.has(turn)) firstMain.set(turn, segs);
    lastMain.set(turn, segs);

    // The first request after a summarising compaction: what it carries besides its opening message.
    const first = req.body.messages[0];
    const head =
      typeof first.content === 'string'
        ? first.content
        : first.content[0]?.type === 'text'
          ? first.content[0].text
          : '';
    if (head.startsWith(COMPACTED_OPENING) && head !== opening) {
      const messageSegs = segs.filter((s) => s.key.startsWith('m'));
      const kept = messageSegs.slice(1).reduce((n, s) => n + s.tokens, 0);
      minKept = Math.min(minKept ?? kept, kept);
      const summary = head.includes('<summary>') && SUMMARY_SECTIONS.every((s) => head.includes(s));
      if (!NOTES_PROGRESS.test(head) && !summary) withoutSummary++;
    }
    opening = head.startsWith(COMPACTED_OPENING) ? head : '';
  }
  const prefix = prefixStats(run, firstMain, lastMain);
  return {
    units: parts.main + parts.notes + parts.summary,
    parts,
    rewriteShare: written > 0 ? rewritten / written : 0,
    ...prefix,
    minKeptTokens: minKept,
    openingsWithoutSummary: withoutSummary,
    rejected: run.requests.filter((r) => r.status !== 200).length,
    requests: run.requests.length,
    repeatsNotSent: notes.size,
    repeatTokensNotSent: [...notes].reduce(
      (n, [id, note]) => n + approxTokens(Math.max(0, fullCopy(run.calls, id, note).length - note.length)),
      0,
    ),
  };
}

/** Tool results of a request that are notes standing for a repeated output: tool_use_id -> note. */
function repeatNotes(req: LoggedRequest): Array<[string, string]> {
  return req.body.messages
    .flatMap((m) => (typeof m.content === 'string' ? [] : m.content))
    .filter((b): b is ToolResultBlock => b.type === 'tool_result' && isRepeatNote(b))
    .map((b) => [b.tool_use_id, b.content as string]);
}

/** The output a note stood for: the transcript keeps it whole; else the earlier call the note names. */
function fullCopy(calls: ToolCallFacts[], id: string, note: string): string {
  const own = calls.find((c) => c.id === id)?.result;
  if (own && !isRepeatNote({ type: 'tool_result', tool_use_id: id, content: own })) return own;
  const earlier = repeatedCallOf(note);
  return calls.find((c) => c.id === earlier)?.result ?? '';
}

/** Whether each resumed turn's first request starts with the previous turn's prefix, byte for byte. */
function prefixStats(
  run: SessionRun,
  firstMain: Map<number, PromptSegment[]>,
  lastMain: Map<number, PromptSegment[]>,
): Pick<Analysis, 'resumed' | 'identical' | 'resumedAll' | 'identicalAll'> {
  const out = { resumed: 0, identical: 0, resumedAll: 0, identicalAll: 0 };
  for (let t = 2; t <= run.script.turns; t++) {
    const prev = lastMain.get(t - 1);
    const cur = firstMain.get(t);
    if (!prev || !cur) continue;
    const lastBp = prev.reduce((n, s, j) => (s.cacheControl ? j : n), -1);
    const same = lastBp >= 0 && cur.length > lastBp && prev.slice(0, lastBp + 1).every((s, j) => s.key === cur[j].key);
    out.resumedAll++;
    if (same) out.identicalAll++;
    if (run.compactedAtStart.has(t)) continue;
    out.resumed++;
    if (same) out.identical++;
  }
  return out;
}

/** The session's shape, from its transcript: what the tools were asked and what they returned. */
export interface Shape {
  calls: number;
  byTool: Record<string, number>;
  outputChars: number;
  outputTokens: number;
  /** Results byte-identical to an earlier result, and their characters. */
  repeated: number;
  repeatedChars: number;
  edits: number;
  editsOk: number;
  /** Turns with 2 to 4 tool calls. */
  turnsWith2to4: number;
}

export function shapeOf(run: SessionRun): Shape {
  const byTool: Record<string, number> = {};
  const earlier = new Set<string>();
  const perTurn = new Map<number, number>();
  let repeated = 0;
  let repeatedChars = 0;
  for (const c of run.calls) {
    byTool[c.name] = (byTool[c.name] ?? 0) + 1;
    perTurn.set(c.turn, (perTurn.get(c.turn) ?? 0) + 1);
    if (earlier.has(c.result)) {
      repeated++;
      repeatedChars += c.result.length;
    }
    earlier.add(c.result);
  }
  const outputChars = run.calls.reduce((n, c) => n + c.result.length, 0);
  const edits = run.calls.filter((c) => c.name === 'Edit');
  return {
    calls: run.calls.length,
    byTool,
    outputChars,
    outputTokens: run.calls.reduce((n, c) => n + approxTokens(c.result.length), 0),
    repeated,
    repeatedChars,
    edits: edits.length,
    editsOk: edits.filter((c) => !c.isError).length,
    turnsWith2to4: [...perTurn.values()].filter((n) => n >= 2 && n <= 4).length,
  };
}

/** A chain's run without its requests (tens of MB), with what they said. */
export interface Outcome {
  run: Omit<SessionRun, 'requests'>;
  analysis: Analysis;
  shape: Shape;
}

/**
 * How metric names say which session and policy they belong to; the one-file session under the new policy
 * keeps the old names.
 */
export interface MetricNames {
  /** '' for the one-file session, '_real' for the realistic one. */
  session: string;
  /** '' or '_100k', then '_today' for today's policy. */
  suffix: string;
  /** Targets of the units and of the notes share, when this run has them. */
  unitsTarget?: number;
  notesShareTarget?: number;
}

export function metricsOf(run: Omit<SessionRun, 'requests'>, a: Analysis, n: MetricNames): Metrics {
  const { session: s, suffix } = n;
  const m: Metrics = {
    [`session_cost${s}_units${suffix}`]: {
      value: Math.round(a.units),
      unit: 'units',
      ...(n.unitsTarget ? { target: n.unitsTarget } : {}),
    },
    [`session_cost${s}_requests${suffix}`]: { value: a.requests, unit: 'requests' },
    ...Object.fromEntries(
      Object.entries(a.parts).map(([k, v]) => [
        `session_cost${s}${suffix}_units_${k}`,
        { value: Math.round(v), unit: 'units' },
      ]),
    ),
    [`session_cost${s}_notes_share${suffix}`]: {
      value: round3(a.parts.notes / a.units),
      unit: 'share of units',
      ...(n.notesShareTarget ? { target: n.notesShareTarget } : {}),
    },
    [`session_cost${s}_rewrite_share${suffix}`]: {
      value: round3(a.rewriteShare),
      unit: 'share of cache-write tokens',
      note: 'written again after an earlier request had sent them',
    },
    [`resume_prefix_identical${s}${suffix}`]: {
      value: round3(a.resumed > 0 ? a.identical / a.resumed : 1),
      unit: 'share of resumed turns',
      target: 1,
      note: `${a.identical}/${a.resumed} (turns that compact before their first call excluded; ${a.identicalAll}/${a.resumedAll} with them)`,
    },
    [`session_cost${s}_turns_ok${suffix}`]: { value: run.turnsOk, unit: 'turns', target: run.script.turns },
    [`session_cost${s}_rejected_requests${suffix}`]: { value: a.rejected, unit: 'requests', target: 0 },
    [`session_cost${s}_compactions_without_summary${suffix}`]: {
      value: a.openingsWithoutSummary,
      unit: 'compactions',
      target: 0,
      note: 'a compacted request must open with the notes or a summary with every section',
    },
    [`session_cost${s}_repeats_not_sent${suffix}`]: {
      value: a.repeatsNotSent,
      unit: 'tool results',
      note: `sent as a note naming the earlier call (same output, or a diff of a file read again); left unsent: ${a.repeatTokensNotSent} tokens`,
    },
    [`session_cost${s}_repeat_tokens_not_sent${suffix}`]: { value: a.repeatTokensNotSent, unit: 'tokens' },
  };
  for (const stage of ['micro', 'session-memory', 'full', 'reactive']) {
    m[`session_cost${s}_compactions_${stage.replace('-', '_')}${suffix}`] = {
      value: run.compactions[stage] ?? 0,
      unit: 'compactions',
    };
  }
  if (a.minKeptTokens !== undefined)
    m[`session_cost${s}_min_kept_tokens${suffix}`] = {
      value: a.minKeptTokens,
      unit: 'tokens',
      target: 10_000,
      note: 'conversation a request carries after a compaction, besides the notes or summary (at least)',
    };
  return m;
}

export function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
