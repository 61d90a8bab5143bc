// Recall precision and speed (issues 14 and 22). Every labelled question of test/fixtures/recall-eval goes
// through recallForPrompt, the path a turn takes, in a fresh conversation: per set, *_hit_rate (an expected
// file was attached), *_files_per_turn (files attached per relevant question) and *_false_attach_rate (files
// attached per unrelated question). The sets: dev (what may be tuned on) and test (held out), the even and
// odd questions of questions.json, unrelated-questions.json and paraphrase-questions.json; the last two also
// whole, their halves in the note; fresh-questions.json and untouched-questions.json (a realistic user's
// folder of its own), never tuned on. recall_ms is the per-turn cost on a generated 200-entry folder with the
// index warm (the folder listed and stat'ed, the query ranked, the chosen files read), the median of 50
// different messages. Model mode is reported too (recall_model_*), against the test server's scripted picker,
// which is a stand-in: its figures show the path works, not how well a real model picks.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AnthropicModelClient } from '../../src/core/llm/anthropicClient';
import { modelPick } from '../../src/core/memory/autoMemory/modelRecall';
import { recallForPrompt } from '../../src/core/memory/autoMemory/recall';
import { startTestServer } from '../../src/testServer/anthropicTestServer';
import {
  emptyScore,
  FRESH_QUESTIONS,
  loadEvalQuestions,
  MAIN_QUESTIONS,
  PARAPHRASE_QUESTIONS,
  rates,
  scoreAnswer,
  UNRELATED_QUESTIONS,
  UNTOUCHED_QUESTIONS,
  type EvalScore,
} from './recallEval';

type Metrics = Record<string, { value: number; unit: string; target?: number; note?: string }>;

const SUBJECTS = [
  'deploy',
  'billing',
  'search',
  'cache',
  'login',
  'tests',
  'styles',
  'flags',
  'queues',
  'backups',
  'metrics',
  'alerts',
  'schema',
  'exports',
  'imports',
  'reports',
  'emails',
  'uploads',
  'payments',
  'builds',
];
const ASPECTS = [
  'staging',
  'production',
  'rollback',
  'retries',
  'timeouts',
  'limits',
  'owners',
  'naming',
  'format',
  'history',
];

/** A memory folder of `n` typed topic files with index lines and bodies of a few sentences. */
function writeRecallFolder(dir: string, n = 200): void {
  fs.mkdirSync(dir, { recursive: true });
  const lines: string[] = [];
  const types = ['user', 'feedback', 'project', 'reference'];
  for (let i = 0; i < n; i++) {
    const subject = SUBJECTS[i % SUBJECTS.length];
    const aspect = ASPECTS[Math.floor(i / SUBJECTS.length) % ASPECTS.length];
    const file = `${types[i % 4]}_${subject}_${aspect}_${i}.md`;
    const body =
      `The ${subject} ${aspect} rule number ${i}: keep ${subject} ${aspect} settings in config/${subject}.yaml.\n\n` +
      `**Why:** an incident in week ${i % 52} came from ${subject} ${aspect} drift.\n\n**How to apply:** check ${subject} before changing ${aspect}.`;
    fs.writeFileSync(
      path.join(dir, file),
      `---\nname: ${subject}-${aspect}-${i}\ndescription: How ${subject} handles ${aspect} (${i})\ntype: ${types[i % 4]}\n---\n\n${body}\n`,
    );
    lines.push(`- [${subject} ${aspect} ${i}](${file}) — ${subject} ${aspect} notes`);
  }
  fs.writeFileSync(path.join(dir, 'MEMORY.md'), `${lines.join('\n')}\n`);
}

/** The local-mode scores of the questions files, per split (dev, test, fresh, untouched) and per file. */
async function localScores(names: readonly string[]): Promise<Record<string, EvalScore>> {
  const scores: Record<string, EvalScore> = {};
  for (const name of names) {
    for (const q of loadEvalQuestions(name)) {
      const files = (await recallForPrompt(q.dir, q.q, [])).files.map((f) => f.file);
      scoreAnswer((scores[name] ??= emptyScore()), q, files);
      scoreAnswer((scores[q.split] ??= emptyScore()), q, files);
      if (q.split === 'dev' || q.split === 'test')
        scoreAnswer((scores[`${name}:${q.split}`] ??= emptyScore()), q, files);
    }
  }
  return scores;
}

/** recall_ms: a turn's recall on a generated 200-entry folder, index warm, median of 50 messages. */
async function recallMs(): Promise<number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-recall-bench-'));
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
    return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const round = (n: number): number => Math.round(n * 1000) / 1000;

/** A set's figures, each with its target: hit rate, files per relevant question, files per unrelated one. */
function setMetrics(prefix: string, s: EvalScore | undefined, note: string): Metrics {
  if (!s) return {};
  const r = rates(s);
  const out: Metrics = {};
  const misses = `misses: ${s.misses.length}; false attaches: ${s.falseAttaches.length}`;
  if (s.relevant > 0) {
    out[`${prefix}_hit_rate`] = {
      value: round(r.hitRate),
      unit: 'share',
      target: 0.9,
      note: `${note}; ${s.hits}/${s.relevant} found, ${s.unrelated} unrelated; ${misses}`,
    };
    out[`${prefix}_files_per_turn`] = { value: round(r.filesPerTurn), unit: 'files', target: 1.5 };
  }
  if (s.unrelated > 0) {
    const words = `${s.unrelatedFiles} files over ${s.unrelated} unrelated questions`;
    out[`${prefix}_false_attach_rate`] = {
      value: round(r.falseAttachRate),
      unit: 'files/question',
      target: 0.15,
      note: s.relevant > 0 ? words : `${note}; ${words}`,
    };
  }
  return out;
}

/** dev and test of one split file, for a note. */
function splitNote(scores: Record<string, EvalScore>, name: string): string {
  const part = (split: string): string => {
    const s = scores[`${name}:${split}`];
    if (!s) return '';
    const r = rates(s);
    const relevant = s.relevant ? `hit ${round(r.hitRate)}, files/turn ${round(r.filesPerTurn)}` : '';
    const separator = s.relevant && s.unrelated ? ', ' : '';
    const unrelated = s.unrelated ? `false ${round(r.falseAttachRate)}` : '';
    return `${split}: ${relevant}${separator}${unrelated}`;
  };
  return `${name} (${part('dev')}; ${part('test')})`;
}

export async function run(): Promise<Metrics> {
  const sets = [MAIN_QUESTIONS, UNRELATED_QUESTIONS, PARAPHRASE_QUESTIONS, FRESH_QUESTIONS, UNTOUCHED_QUESTIONS];
  const scores = await localScores(sets);
  const ms = await recallMs();
  const model = await modelMode();
  const splitFiles = `${MAIN_QUESTIONS}, ${UNRELATED_QUESTIONS} and ${PARAPHRASE_QUESTIONS}`;
  return {
    ...setMetrics('recall_dev', scores.dev, `dev: even positions of ${splitFiles}, the only questions tuned on`),
    ...setMetrics('recall_test', scores.test, `test: odd positions of ${splitFiles}, held out`),
    ...setMetrics(
      'recall_fresh',
      scores.fresh,
      `${FRESH_QUESTIONS}, written after the related-words table, never tuned on`,
    ),
    ...setMetrics('recall_unrelated', scores[UNRELATED_QUESTIONS], splitNote(scores, UNRELATED_QUESTIONS)),
    ...setMetrics('recall_paraphrase', scores[PARAPHRASE_QUESTIONS], splitNote(scores, PARAPHRASE_QUESTIONS)),
    ...setMetrics(
      'recall_untouched',
      scores.untouched,
      `${UNTOUCHED_QUESTIONS} over invoicing/ (29 files), never tuned on`,
    ),
    recall_ms: { value: round(ms), unit: 'ms', target: 5, note: '200-entry folder, index warm, median of 50 messages' },
    recall_model_hit_rate: {
      value: round(model.rates.hitRate),
      unit: 'share',
      note: 'model mode against the scripted test server (word-overlap picker)',
    },
    recall_model_files_per_turn: { value: round(model.rates.filesPerTurn), unit: 'files' },
    recall_model_false_attach_rate: { value: round(model.rates.falseAttachRate), unit: 'files/question' },
    recall_model_calls_per_turn: { value: round(model.calls), unit: 'calls' },
  };
}

/** The same questions in model mode, against the test server's scripted picker over real HTTP. */
async function modelMode(): Promise<{ rates: ReturnType<typeof rates>; calls: number }> {
  const server = await startTestServer({ demo: true });
  try {
    const pick = modelPick({
      client: new AnthropicModelClient({ apiKey: 'bench', baseUrl: server.url }),
      model: 'claude-bench',
    });
    const score = emptyScore();
    const questions = loadEvalQuestions();
    for (const q of questions)
      scoreAnswer(
        score,
        q,
        (await recallForPrompt(q.dir, q.q, [], { pick })).files.map((f) => f.file),
      );
    return { rates: rates(score), calls: server.requests.length / questions.length };
  } finally {
    await server.close();
  }
}
