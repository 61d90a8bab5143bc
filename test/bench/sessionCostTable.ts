// The session-cost bench's tables: one per session and window, today's policy and the new one side by
// side, and the realistic session's shape (what issue #19 asks it to resemble).
import { approxTokens } from '../../src/testServer/promptSegments';
import type { Outcome, Shape } from './sessionAnalysis';

const k = (n: number): string => `${Math.round(n / 1000).toLocaleString('en-US')}K`;
const pct = (n: number): string => `${(100 * n).toFixed(1)} %`;

type Row = [label: string, value: (o: Outcome) => string, ratio?: (o: Outcome) => number];

const ROWS: Row[] = [
  ['units', (o) => k(o.analysis.units), (o) => o.analysis.units],
  ['main calls', (o) => k(o.analysis.parts.main), (o) => o.analysis.parts.main],
  ['notes updates', (o) => k(o.analysis.parts.notes), (o) => o.analysis.parts.notes],
  ['summaries', (o) => k(o.analysis.parts.summary)],
  ['cache write', (o) => k(o.analysis.parts.cacheWrite), (o) => o.analysis.parts.cacheWrite],
  ['cache read', (o) => k(o.analysis.parts.cacheRead), (o) => o.analysis.parts.cacheRead],
  ['input + output', (o) => k(o.analysis.parts.input + o.analysis.parts.output)],
  ['notes share', (o) => pct(o.analysis.parts.notes / o.analysis.units)],
  ['repeated results not sent', (o) => `${o.analysis.repeatsNotSent} (${k(o.analysis.repeatTokensNotSent)} tokens)`],
  ['rewrites of earlier content', (o) => `${pct(o.analysis.rewriteShare)} of cache writes`],
  [
    'compactions',
    (o) =>
      Object.entries(o.run.compactions)
        .map(([s, n]) => `${s} x${n}`)
        .join(', ') || 'none',
  ],
  [
    'smallest request after a compaction',
    (o) =>
      o.analysis.minKeptTokens === undefined ? '-' : `${o.analysis.minKeptTokens.toLocaleString('en-US')} tokens`,
  ],
  ['turns ok', (o) => `${o.run.turnsOk}/${o.run.script.turns}`],
  ['requests (rejected)', (o) => `${o.analysis.requests} (${o.analysis.rejected})`],
  ['resume_prefix_identical', (o) => `${o.analysis.identical}/${o.analysis.resumed}`],
  ['time', (o) => `${(o.run.ms / 1000).toFixed(0)} s`],
];

export function printComparison(title: string, today: Outcome, fresh: Outcome): void {
  const lines = [`\n${title}`, '| | today | new | new / today |', '|---|---|---|---|'];
  for (const [label, value, ratio] of ROWS) {
    const r = ratio && ratio(today) > 0 ? (ratio(fresh) / ratio(today)).toFixed(2) : '';
    lines.push(`| ${label} | ${value(today)} | ${value(fresh)} | ${r} |`);
  }
  console.log(lines.join('\n'));
}

export function printShape(name: string, seed: number, s: Shape): void {
  const tools = Object.entries(s.byTool)
    .map(([tool, n]) => `${tool} ${n}`)
    .join(', ');
  const repeatedTokens = k(approxTokens(s.repeatedChars));
  const repeatedPercent = ((100 * s.repeatedChars) / s.outputChars).toFixed(0);
  const repeated =
    `${repeatedTokens} in ${s.repeated} results byte-identical to an earlier one: ` +
    `${repeatedPercent} % of the characters`;
  console.log(
    [
      `\n${name} session, seed ${seed}: ${s.calls} tool calls (${tools}); ${s.turnsWith2to4} turns with 2-4 calls`,
      `tool output ${k(s.outputTokens)} tokens (${repeated}); edits ${s.editsOk}/${s.edits} matched`,
    ].join('\n'),
  );
}
