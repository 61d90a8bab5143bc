// Context accounting benchmarks (DESIGN 8): the cost of accounting for one new message in conversations
// of 10K, 100K and 200K tokens (target 1 ms: it must not grow with the conversation), and the tokenizer's
// cold start in a fresh process (reported; it is kept off the activation path).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { ApiMessage } from '../../src/core/conversation/types';
import { ContextAccountant, estimateMessagesTokens, TokenEstimator } from '../../src/core/tokens/accounting';
import { countTokens, ensureTokenizer } from '../../src/core/tokens/tokenizer';

type Metrics = Record<string, { value: number; unit: string; target?: number }>;

const REPO_ROOT = path.resolve(__dirname, '../..');
const SAMPLES = 101;

export async function run(): Promise<Metrics> {
  await ensureTokenizer();
  const metrics: Metrics = {};
  for (const [name, size] of [
    ['10k', 10_000],
    ['100k', 100_000],
    ['200k', 200_000],
  ] as const) {
    metrics[`accounting_ms_${name}`] = { value: round(accountingMedianMs(size), 3), unit: 'ms', target: 1 };
  }
  metrics.tokenizer_cold_ms = { value: round(tokenizerColdMs(), 1), unit: 'ms' };
  return metrics;
}

/**
 * Median time to take in one new message (a prompt-sized text, tokenized for real) and read used() and
 * breakdown(), after the accountant has seen a conversation of `tokens` tokens and its usage report.
 */
function accountingMedianMs(tokens: number): number {
  const estimator = new TokenEstimator(countTokens);
  const history = conversationOf(tokens, estimator);
  const acc = new ContextAccountant({ estimator, fixed: { system: 2_000, tools: 3_000, instructions: 500 } });
  acc.reset(history); // the one-time cost of a resumed session, not measured
  acc.onResponse({ input_tokens: 1_000, cache_read_input_tokens: tokens, output_tokens: 300 }, history.length);
  const times: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const message: ApiMessage = { role: 'user', content: [{ type: 'text', text: promptText(i) }] };
    const started = performance.now();
    acc.onMessageAdded(message);
    acc.used();
    acc.breakdown();
    times.push(performance.now() - started);
  }
  return median(times);
}

/** Alternating prompts, tool calls and tool results (code-like text) until `tokens` is reached. */
function conversationOf(tokens: number, estimator: TokenEstimator): ApiMessage[] {
  const messages: ApiMessage[] = [];
  let total = 0;
  for (let turn = 0; total < tokens; turn++) {
    const id = `toolu_${turn}`;
    const round: ApiMessage[] = [
      { role: 'user', content: [{ type: 'text', text: promptText(turn + 1_000_000) }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: `Let me look at module ${turn}.` },
          { type: 'tool_use', id, name: 'Read', input: { file_path: `/work/src/module${turn}.ts` } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: codeText(turn, 60) }] },
    ];
    messages.push(...round);
    total += estimateMessagesTokens(round, estimator);
  }
  return messages;
}

function promptText(i: number): string {
  return (
    `Request ${i}: please update the handler in src/server/route${i % 97}.ts so that it validates ` +
    `the payload (field id${i} must be a positive integer) and returns 400 with a helpful message otherwise.`
  );
}

function codeText(seed: number, lines: number): string {
  const out: string[] = [];
  for (let l = 0; l < lines; l++) {
    const body = `{ return Number(input.v${l}) * ${seed + l}; }`;
    out.push(`${l + 1}\texport function handler${seed}_${l}(input: Record<string, unknown>): number ${body}`);
  }
  return out.join('\n');
}

/**
 * A fresh node loads the tokenizer chunk and counts one string; the child times itself so process
 * start-up is left out. Uses the bundle (dist/tokenizer.js) when built, else the source through tsx.
 */
function tokenizerColdMs(): number {
  const bundle = path.join(REPO_ROOT, 'dist', 'tokenizer.js');
  const useBundle = fs.existsSync(bundle);
  const target = useBundle ? bundle : path.join(REPO_ROOT, 'src', 'core', 'tokens', 'tokenizerChunk.ts');
  const script =
    `const t0 = performance.now(); const enc = require(${JSON.stringify(target)}).createEncoder(); ` +
    `const n = enc.count('Hello, tokenizer <|endoftext|>'); ` +
    `process.stdout.write(JSON.stringify({ ms: performance.now() - t0, n }));`;
  const args = useBundle ? ['-e', script] : ['--import', 'tsx', '-e', script];
  const r = spawnSync(process.execPath, args, { cwd: REPO_ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tokenizer child failed: ${r.stderr}`);
  return (JSON.parse(r.stdout) as { ms: number }).ms;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
