// Recall precision and speed (issue 14). Every labelled question of test/fixtures/recall-eval goes
// through recallForPrompt, the path a turn takes, in a fresh conversation: recall_hit_rate (an expected
// file was attached), recall_files_per_turn (files attached per relevant question) and
// recall_false_attach_rate (files attached per unrelated question), with the dev and test splits in the
// note. recall_fresh_* are the same figures on fresh-questions.json, a batch written after the
// related-words table and never tuned on. recall_ms is the per-turn cost on a generated 200-entry folder
// with the index warm (the folder listed and stat'ed, the query ranked, the chosen files read), the
// median of 50 different messages. Model mode is reported too (recall_model_*), against the test
// server's scripted picker, which is a stand-in: its figures show the path works, not how well a real
// model picks.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AnthropicModelClient } from '../../src/core/llm/anthropicClient';
import { modelPick } from '../../src/core/memory/autoMemory/modelRecall';
import { recallForPrompt } from '../../src/core/memory/autoMemory/recall';
import { startTestServer } from '../../src/server/anthropicTestServer';
import { emptyScore, FRESH_QUESTIONS, loadEvalQuestions, rates, scoreAnswer, type EvalScore } from './recallEval';

type Metrics = Record<string, { value: number; unit: string; target?: number; note?: string }>;

const SUBJECTS = ['deploy', 'billing', 'search', 'cache', 'login', 'tests', 'styles', 'flags', 'queues', 'backups', 'metrics', 'alerts', 'schema', 'exports', 'imports', 'reports', 'emails', 'uploads', 'payments', 'builds'];
const ASPECTS = ['staging', 'production', 'rollback', 'retries', 'timeouts', 'limits', 'owners', 'naming', 'format', 'history'];

/** A memory folder of `n` typed topic files with index lines and bodies of a few sentences. */
function writeRecallFolder(dir: string, n = 200): void {
  fs.mkdirSync(dir, { recursive: true });
  const lines: string[] = [];
  const types = ['user', 'feedback', 'project', 'reference'];
  for (let i = 0; i < n; i++) {
    const subject = SUBJECTS[i % SUBJECTS.length];
    const aspect = ASPECTS[Math.floor(i / SUBJECTS.length) % ASPECTS.length];
    const file = `${types[i % 4]}_${subject}_${aspect}_${i}.md`;
    const body = `The ${subject} ${aspect} rule number ${i}: keep ${subject} ${aspect} settings in config/${subject}.yaml.\n\n` +
      `**Why:** an incident in week ${i % 52} came from ${subject} ${aspect} drift.\n\n**How to apply:** check ${subject} before changing ${aspect}.`;
    fs.writeFileSync(path.join(dir, file), `---\nname: ${subject}-${aspect}-${i}\ndescription: How ${subject} handles ${aspect} (${i})\ntype: ${types[i % 4]}\n---\n\n${body}\n`);
    lines.push(`- [${subject} ${aspect} ${i}](${file}) — ${subject} ${aspect} notes`);
  }
  fs.writeFileSync(path.join(dir, 'MEMORY.md'), `${lines.join('\n')}\n`);
}

/** The local-mode scores of a questions file: all of them and per split. */
async function localScores(name?: string): Promise<Record<string, EvalScore>> {
  const scores: Record<string, EvalScore> = { all: emptyScore() };
  for (const q of loadEvalQuestions(name)) {
    const files = (await recallForPrompt(q.dir, q.q, [])).files.map((f) => f.file);
    scoreAnswer(scores.all, q, files);
    scoreAnswer((scores[q.split] ??= emptyScore()), q, files);
  }
  return scores;
}

export async function run(): Promise<Metrics> {
  const main = await localScores();
  const score = main.all;
  const r = rates(score);
  const fresh = await localScores(FRESH_QUESTIONS);
  const f = rates(fresh.all);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-recall-bench-'));
  let ms: number;
  try {
    writeRecallFolder(dir);
    await recallForPrompt(dir, 'warm up the index', []);
    const times: number[] = [];
    for (let i = 0; i < 50; i++) {
      const prompt = `why do ${SUBJECTS[i % SUBJECTS.length]} ${ASPECTS[i % ASPECTS.length]} fail after the change in week ${i}?`;
      const t0 = performance.now();
      await recallForPrompt(dir, prompt, []);
      times.push(performance.now() - t0);
    }
    ms = times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const model = await modelMode();
  const round = (n: number): number => Math.round(n * 1000) / 1000;
  const split = (name: string): string => {
    const x = rates(main[name] ?? emptyScore());
    return `${name}: hit ${round(x.hitRate)}, files/turn ${round(x.filesPerTurn)}, false ${round(x.falseAttachRate)}`;
  };
  const note = `${score.relevant} relevant and ${score.unrelated} unrelated questions; misses: ${score.misses.length}; ${split('dev')}; ${split('test')}`;
  const freshNote = `fresh-questions.json: ${fresh.all.relevant} relevant and ${fresh.all.unrelated} unrelated questions; misses: ${fresh.all.misses.length}; files/turn ${round(f.filesPerTurn)}`;
  return {
    recall_hit_rate: { value: round(r.hitRate), unit: 'share', target: 0.9, note },
    recall_files_per_turn: { value: round(r.filesPerTurn), unit: 'files', target: 2.0 },
    recall_false_attach_rate: { value: round(r.falseAttachRate), unit: 'files/question', target: 0.15 },
    recall_ms: { value: round(ms), unit: 'ms', target: 5, note: '200-entry folder, index warm, median of 50 messages' },
    recall_fresh_hit_rate: { value: round(f.hitRate), unit: 'share', target: 0.9, note: freshNote },
    recall_fresh_false_attach_rate: { value: round(f.falseAttachRate), unit: 'files/question', target: 0.15 },
    recall_model_hit_rate: { value: round(model.rates.hitRate), unit: 'share', note: 'model mode against the scripted test server (word-overlap picker)' },
    recall_model_files_per_turn: { value: round(model.rates.filesPerTurn), unit: 'files' },
    recall_model_false_attach_rate: { value: round(model.rates.falseAttachRate), unit: 'files/question' },
    recall_model_calls_per_turn: { value: round(model.calls), unit: 'calls' },
  };
}

/** The same questions in model mode, against the test server's scripted picker over real HTTP. */
async function modelMode(): Promise<{ rates: ReturnType<typeof rates>; calls: number }> {
  const server = await startTestServer({ demo: true });
  try {
    const pick = modelPick({ client: new AnthropicModelClient({ apiKey: 'bench', baseUrl: server.url }), model: 'claude-bench' });
    const score = emptyScore();
    const questions = loadEvalQuestions();
    for (const q of questions) scoreAnswer(score, q, (await recallForPrompt(q.dir, q.q, [], { pick })).files.map((f) => f.file));
    return { rates: rates(score), calls: server.requests.length / questions.length };
  } finally {
    await server.close();
  }
}
