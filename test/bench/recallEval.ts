// The recall evaluation set (test/fixtures/recall-eval): synthetic memory folders in the real on-disk
// format and labelled questions files, read and checked with zod, and the scoring both modes share.
// questions.json, unrelated-questions.json and paraphrase-questions.json are split into dev (even
// positions: what may be used to tune) and test (odd: held out); fresh-questions.json is a later batch
// over the same folders and untouched-questions.json a folder of its own (invoicing/), both never used
// to tune. A question is relevant when it names expected files; a hit is any of them attached.
// Unrelated questions (no expected file) should get nothing.
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

export const EVAL_DIR = path.resolve(__dirname, '../fixtures/recall-eval');

const QuestionSchema = z.object({
  folder: z.string().regex(/^[a-z0-9-]+$/),
  q: z.string().min(1),
  expect: z.array(z.string().endsWith('.md')),
});
const QuestionsSchema = z.object({ about: z.string(), questions: z.array(QuestionSchema).min(1) });

export interface EvalQuestion extends z.infer<typeof QuestionSchema> {
  /** dev: may be used to tune (even positions of a split set); test: held out; fresh and untouched: never tuned on. */
  split: 'dev' | 'test' | 'fresh' | 'untouched';
  dir: string;
}

/** The main set, written with the first ranking. */
export const MAIN_QUESTIONS = 'questions.json';
/** A later held-out batch over the same folders. */
export const FRESH_QUESTIONS = 'fresh-questions.json';
/** Written before the relevance decision (issue 22): questions no memory bears on, near misses among them. */
export const UNRELATED_QUESTIONS = 'unrelated-questions.json';
/** Written before the relevance decision: each worded unlike its entry's title, hook and description. */
export const PARAPHRASE_QUESTIONS = 'paraphrase-questions.json';
/** A realistic user's folder (invoicing/) and its questions, never tuned on. */
export const UNTOUCHED_QUESTIONS = 'untouched-questions.json';

/** Sets read whole as one split; the others alternate dev and test. */
const WHOLE_SPLIT: Record<string, EvalQuestion['split']> = {
  [FRESH_QUESTIONS]: 'fresh',
  [UNTOUCHED_QUESTIONS]: 'untouched',
};

/** The labelled questions of `name` (in EVAL_DIR); every expected file must exist in its folder. */
export function loadEvalQuestions(name = MAIN_QUESTIONS): EvalQuestion[] {
  const file = path.join(EVAL_DIR, name);
  const parsed = QuestionsSchema.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
  if (!parsed.success) throw new Error(`${file}: ${parsed.error.message}`);
  return parsed.data.questions.map((q, i) => {
    const dir = path.join(EVAL_DIR, q.folder);
    for (const f of q.expect) {
      if (!fs.existsSync(path.join(dir, f)))
        throw new Error(`${file}: question ${i + 1} expects ${q.folder}/${f}, which does not exist`);
    }
    const split = WHOLE_SPLIT[name] ?? (i % 2 === 0 ? 'dev' : 'test');
    return { ...q, split, dir };
  });
}

export interface EvalScore {
  relevant: number;
  unrelated: number;
  hits: number;
  /** Files attached over the relevant questions. */
  relevantFiles: number;
  /** Files attached over the unrelated questions. */
  unrelatedFiles: number;
  misses: string[];
  falseAttaches: string[];
}

export function emptyScore(): EvalScore {
  return { relevant: 0, unrelated: 0, hits: 0, relevantFiles: 0, unrelatedFiles: 0, misses: [], falseAttaches: [] };
}

/** Adds one question's outcome to `score`. */
export function scoreAnswer(score: EvalScore, q: EvalQuestion, attached: readonly string[]): void {
  if (q.expect.length === 0) {
    score.unrelated++;
    score.unrelatedFiles += attached.length;
    if (attached.length > 0) score.falseAttaches.push(`${q.folder}: ${q.q} -> ${attached.join(', ')}`);
    return;
  }
  score.relevant++;
  score.relevantFiles += attached.length;
  if (attached.some((f) => q.expect.includes(f))) score.hits++;
  else score.misses.push(`${q.folder}: ${q.q} -> [${attached.join(', ')}] want ${q.expect.join(' | ')}`);
}

export interface EvalRates {
  hitRate: number;
  filesPerTurn: number;
  falseAttachRate: number;
}

export function rates(s: EvalScore): EvalRates {
  return {
    hitRate: s.relevant ? s.hits / s.relevant : 0,
    filesPerTurn: s.relevant ? s.relevantFiles / s.relevant : 0,
    falseAttachRate: s.unrelated ? s.unrelatedFiles / s.unrelated : 0,
  };
}
