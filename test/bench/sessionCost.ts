// session_cost_units (DESIGN 8, issue #10): a scripted 40-turn coding session (reads, greps, bash; about
// 240K tokens of tool output in all) run through `engram -p --resume`, one process per turn as a script
// would, against the test server with its simulated prompt cache, at a 200K and at a 100K window (the
// server's window and the CLI's --context-window match). Units = input + 1.25 x cache write (5 min) +
// 2 x cache write (1 h) + 0.1 x cache read + 5 x output, summed over every request (forks included).
// Besides the units: where they go (by kind of request and of token), the share of cache writes that
// rewrite content sent before, whether a resumed turn's prefix is byte-identical to what the last process
// sent, what compaction did, and what a request after a compaction still carries.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ApiMessage } from '../../src/core/conversation/types';
import { SUMMARY_SECTIONS } from '../../src/core/compaction/summaryPrompt';
import { startTestServer, type LoggedRequest, type MessagesRequestBody, type ScriptedReply } from '../../src/server/anthropicTestServer';
import { promptSegments, type PromptSegment } from '../../src/server/promptSegments';
import type { Metrics } from './run';

const TURNS = 40;
const NOTES_MARKER = '<engram-session-notes-update>';
const SUMMARY_MARKER = '<engram-compact-summary>';
const COMPACTED_OPENING = 'This session continues a conversation';

function lastMessage(body: MessagesRequestBody): ApiMessage {
  return body.messages[body.messages.length - 1];
}

function isToolResult(m: ApiMessage): boolean {
  return Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_result');
}

/** The tool call of turn t: about 6K tokens of output each. */
function toolCall(t: number): ScriptedReply {
  const file = `src/module${t}.js`;
  const calls = [
    { name: 'Read', input: { file_path: file } },
    { name: 'Grep', input: { pattern: `value_${t}_`, path: file, output_mode: 'content' } },
    { name: 'Bash', input: { command: `cat ${file}` } },
    { name: 'Read', input: { file_path: file, offset: 1, limit: 400 } },
  ];
  return { content: [{ type: 'text', text: `Looking at ${file}.` }, { type: 'tool_use', ...calls[t % calls.length] }] };
}

/** A hand-over summary of the kind a model writes for this session: every section, about 1,000 tokens. */
function summaryOf(turn: number): string {
  const body: Record<(typeof SUMMARY_SECTIONS)[number], string> = {
    'Request and intent': 'The user asked for a review of every module under src/, one per turn, in order, each with a short verdict.',
    'Key concepts': 'Each module exports 300 constants computed by compute(i, label); consistency means every line follows that pattern.',
    Files: Array.from({ length: turn }, (_, i) => `- src/module${i + 1}.js: 300 exported constants value_${i + 1}_0..299; reviewed, consistent.`).join('\n'),
    'Errors and fixes': 'None so far.',
    'Problem solving': 'Modules were read whole (Read, cat) or searched (Grep) for their value names; nothing inconsistent was found.',
    'All user messages': Array.from({ length: turn }, (_, i) => `- "Turn ${i + 1}: review src/module${i + 1}.js"`).join('\n'),
    'Pending tasks': 'Review the remaining modules.',
    'Current work': `Reviewing src/module${turn}.js.`,
    'Next step': `Review the next module, as in "Turn ${turn}: review src/module${turn}.js".`,
  };
  const sections = SUMMARY_SECTIONS.map((s, i) => `${i + 1}. ${s}:\n${body[s]}`).join('\n\n');
  return `<analysis>Went through the turns in order; each reviewed one module.</analysis>\n<summary>\n${sections}\n</summary>`;
}

function latestTurn(text: string): number {
  return Math.max(0, ...[...text.matchAll(/Turn (\d+):/g)].map((m) => Number(m[1])));
}

function respond(body: MessagesRequestBody): ScriptedReply {
  const all = JSON.stringify(body.messages);
  const last = lastMessage(body);
  if (all.includes(NOTES_MARKER)) {
    if (isToolResult(last)) return { content: [{ type: 'text', text: 'Notes updated.' }] };
    const notesPath = /\/[^\s`'"\\]*session-memory\/summary\.md/.exec(all)?.[0] ?? '';
    const guide = '_What is in progress right now, what is still open, and the very next step_\n';
    return { content: [{ type: 'tool_use', name: 'Edit', input: { file_path: notesPath, old_string: guide, new_string: `${guide}Reviewing modules; reached Turn ${latestTurn(all)}.\n` } }] };
  }
  if (all.includes(SUMMARY_MARKER)) return { content: [{ type: 'text', text: summaryOf(latestTurn(all)) }] };
  if (isToolResult(last)) return { content: [{ type: 'text', text: 'Reviewed; it looks consistent.' }] };
  const turn = Number(/Turn (\d+)/.exec(typeof last.content === 'string' ? last.content : JSON.stringify(last.content))?.[1] ?? 0);
  return toolCall(turn);
}

interface SessionRun {
  window: number;
  requests: LoggedRequest[];
  /** When each turn's process was started (index 0 = turn 1). */
  turnStarts: number[];
  turnsOk: number;
  /** Turns whose first request came after a compaction in that process (its prefix changed on purpose). */
  compactedAtStart: Set<number>;
  compactions: Record<string, number>;
}

async function runSession(windowTokens: number): Promise<SessionRun> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-cost-'));
  const server = await startTestServer({ responder: respond, contextWindow: windowTokens });
  try {
    const ws = path.join(root, 'ws');
    fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
    for (let t = 1; t <= TURNS; t++) {
      const lines = Array.from({ length: 300 }, (_, i) => `export const value_${t}_${i} = compute(${i}, 'module ${t} line ${i} of the generated code');`);
      fs.writeFileSync(path.join(ws, 'src', `module${t}.js`), `${lines.join('\n')}\n`);
    }
    const cli = path.resolve(__dirname, '../../dist/cli.js');
    const env = { ...process.env, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'bench-key', ENGRAM_DATA_DIR: path.join(root, 'data') };
    let sessionId: string | undefined;
    let transcript = '';
    const turnStarts: number[] = [];
    const compactions: Record<string, number> = {};
    let turnsOk = 0;
    for (let t = 1; t <= TURNS; t++) {
      const args = [cli, '-p', `Turn ${t}: review src/module${t}.js`, '--cwd', ws, '--allowed-tools', 'Read,Grep,Glob,Bash', '--output-format', 'json',
        '--context-window', String(windowTokens), '--verbose', ...(sessionId ? ['--resume', sessionId] : [])];
      turnStarts.push(Date.now());
      // Asynchronously: the test server answering the CLI lives in this process.
      const r = await promisify(execFile)(process.execPath, args, { env, encoding: 'utf8', maxBuffer: 16 * 2 ** 20 })
        .catch((e: { code?: number; stderr?: string }) => { throw new Error(`turn ${t} at ${windowTokens} failed (exit ${e.code}): ${String(e.stderr).slice(0, 500)}`); });
      const out = JSON.parse(r.stdout) as { sessionId: string; result: string; transcript: string };
      sessionId = out.sessionId;
      transcript = out.transcript;
      if (out.result.trim() !== '') turnsOk++;
      for (const m of r.stderr.matchAll(/compacted \(([\w-]+)\)/g)) compactions[m[1]] = (compactions[m[1]] ?? 0) + 1;
    }
    return { window: windowTokens, requests: server.requests.slice(), turnStarts, turnsOk, compactedAtStart: turnStartCompactions(transcript), compactions };
  } finally {
    await server.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/** Turns whose transcript has a compaction record between the prompt and the first answer. */
function turnStartCompactions(transcriptFile: string): Set<number> {
  const out = new Set<number>();
  let turn = 0;
  let answered = true;
  for (const text of fs.readFileSync(transcriptFile, 'utf8').split('\n')) {
    if (text.trim() === '') continue;
    const line = JSON.parse(text) as { type?: string; subtype?: string; isSidechain?: boolean; message?: { content?: unknown } };
    if (line.isSidechain) continue;
    if (line.type === 'user') {
      const t = /^"?Turn (\d+):/.exec(typeof line.message?.content === 'string' ? line.message.content : JSON.stringify(line.message?.content ?? '').replace(/^\[\{"type":"text","text":/, ''));
      if (t) { turn = Number(t[1]); answered = false; }
    } else if (line.type === 'assistant') {
      answered = true;
    } else if (line.type === 'system' && /compact_boundary$/.test(line.subtype ?? '') && !answered) {
      out.add(turn);
    }
  }
  return out;
}

type Kind = 'main' | 'notes' | 'summary';

function kindOf(req: LoggedRequest): Kind {
  const all = JSON.stringify(req.body.messages);
  return all.includes(NOTES_MARKER) ? 'notes' : all.includes(SUMMARY_MARKER) ? 'summary' : 'main';
}

/** A block without its position, so content moved by a compaction is still recognised. */
function contentKey(s: PromptSegment): string {
  return s.key.startsWith('m') ? s.key.slice(s.key.indexOf('|') + 1) : s.key;
}

interface Analysis {
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
}

function analyse(run: SessionRun): Analysis {
  const parts: Analysis['parts'] = { main: 0, notes: 0, summary: 0, input: 0, cacheWrite: 0, cacheRead: 0, output: 0 };
  const seen = new Set<string>();
  const seenResults = new Set<string>();
  let written = 0;
  let rewritten = 0;
  const turnOf = (r: LoggedRequest): number => run.turnStarts.filter((s) => s <= r.receivedAt).length;
  const lastMain = new Map<number, PromptSegment[]>();
  const firstMain = new Map<number, PromptSegment[]>();
  let minKept: number | undefined;
  let withoutSummary = 0;
  let opening = '';
  for (const req of run.requests) {
    const u = req.usage;
    if (!u || req.status !== 200) continue;
    const kind = kindOf(req);
    const cw5 = u.cache_creation?.ephemeral_5m_input_tokens ?? u.cache_creation_input_tokens ?? 0;
    const cw1h = u.cache_creation?.ephemeral_1h_input_tokens ?? 0;
    const kinds = { input: u.input_tokens, cacheWrite: 1.25 * cw5 + 2 * cw1h, cacheRead: 0.1 * (u.cache_read_input_tokens ?? 0), output: 5 * u.output_tokens };
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
    const turn = turnOf(req);
    if (!firstMain.has(turn)) firstMain.set(turn, segs);
    lastMain.set(turn, segs);

    // The first request after a summarising compaction: what it carries besides its opening message.
    const first = req.body.messages[0];
    const head = typeof first.content === 'string' ? first.content : first.content[0]?.type === 'text' ? first.content[0].text : '';
    if (head.startsWith(COMPACTED_OPENING) && head !== opening) {
      const messageSegs = segs.filter((s) => s.key.startsWith('m'));
      const kept = messageSegs.slice(1).reduce((n, s) => n + s.tokens, 0);
      minKept = Math.min(minKept ?? kept, kept);
      const notes = /<session-notes>[\s\S]*Reviewing modules/.test(head);
      const summary = head.includes('<summary>') && SUMMARY_SECTIONS.every((s) => head.includes(s));
      if (!notes && !summary) withoutSummary++;
    }
    opening = head.startsWith(COMPACTED_OPENING) ? head : '';
  }
  let resumed = 0;
  let identical = 0;
  let resumedAll = 0;
  let identicalAll = 0;
  for (let t = 2; t <= TURNS; t++) {
    const prev = lastMain.get(t - 1);
    const cur = firstMain.get(t);
    if (!prev || !cur) continue;
    const lastBp = prev.reduce((n, s, j) => (s.cacheControl ? j : n), -1);
    const same = lastBp >= 0 && cur.length > lastBp && prev.slice(0, lastBp + 1).every((s, j) => s.key === cur[j].key);
    resumedAll++;
    if (same) identicalAll++;
    if (run.compactedAtStart.has(t)) continue;
    resumed++;
    if (same) identical++;
  }
  return {
    units: parts.main + parts.notes + parts.summary, parts, rewriteShare: written > 0 ? rewritten / written : 0,
    resumed, identical, resumedAll, identicalAll, minKeptTokens: minKept, openingsWithoutSummary: withoutSummary,
    rejected: run.requests.filter((r) => r.status !== 200).length, requests: run.requests.length,
  };
}

function metricsOf(run: SessionRun, a: Analysis, suffix: string, target: number): Metrics {
  const m: Metrics = {
    [`session_cost_units${suffix}`]: { value: Math.round(a.units), unit: 'units', target },
    [`session_cost_requests${suffix}`]: { value: a.requests, unit: 'requests' },
    ...Object.fromEntries(Object.entries(a.parts).map(([k, v]) => [`session_cost${suffix}_units_${k}`, { value: Math.round(v), unit: 'units' }])),
    [`session_cost_notes_share${suffix}`]: { value: round3(a.parts.notes / a.units), unit: 'share of units' },
    [`session_cost_rewrite_share${suffix}`]: { value: round3(a.rewriteShare), unit: 'share of cache-write tokens', note: 'written again after an earlier request had sent them' },
    [`resume_prefix_identical${suffix}`]: { value: round3(a.resumed > 0 ? a.identical / a.resumed : 1), unit: 'share of resumed turns', target: 1, note: `${a.identical}/${a.resumed} (turns that compact before their first call excluded; ${a.identicalAll}/${a.resumedAll} with them)` },
    [`session_cost_turns_ok${suffix}`]: { value: run.turnsOk, unit: 'turns', target: TURNS },
    [`session_cost_rejected_requests${suffix}`]: { value: a.rejected, unit: 'requests', target: 0 },
    [`session_cost_compactions_without_summary${suffix}`]: { value: a.openingsWithoutSummary, unit: 'compactions', target: 0, note: 'a compacted request must open with the notes or a summary with every section' },
  };
  for (const stage of ['micro', 'session-memory', 'full', 'reactive']) {
    m[`session_cost_compactions_${stage.replace('-', '_')}${suffix}`] = { value: run.compactions[stage] ?? 0, unit: 'compactions' };
  }
  if (a.minKeptTokens !== undefined) m[`session_cost_min_kept_tokens${suffix}`] = { value: a.minKeptTokens, unit: 'tokens', target: 10_000, note: 'conversation a request carries after a compaction, besides the notes or summary (at least)' };
  return m;
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

export async function run(): Promise<Metrics> {
  // Both windows at once: each is a chain of CLI processes that mostly wait on each other.
  const runs = await Promise.all([runSession(200_000), runSession(100_000)]);
  const analysed = runs.map(analyse);
  const k = (n: number): string => `${Math.round(n / 1000)}K`;
  const rows = runs.map((r, i) => {
    const a = analysed[i];
    const c = Object.entries(r.compactions).map(([s, n]) => `${s} x${n}`).join(', ') || 'none';
    return `| ${k(r.window)} | ${k(a.units)} | ${k(a.parts.main)} | ${k(a.parts.notes)} | ${k(a.parts.summary)} | ${k(a.parts.cacheWrite)} | ${k(a.parts.cacheRead)} | ${k(a.parts.input + a.parts.output)} | ${(100 * a.rewriteShare).toFixed(1)} % | ${c} |`;
  });
  console.log(['', '| window | units | main | notes | summary | cache write | cache read | input + output | rewrites | compactions |', '|---|---|---|---|---|---|---|---|---|---|', ...rows].join('\n'));
  return { ...metricsOf(runs[0], analysed[0], '', 560_000), ...metricsOf(runs[1], analysed[1], '_100k', 480_000) };
}
