// Memories that repeat or contradict each other (issue 32 item 3), told locally. Repeats: each memory
// becomes the weighted set of its terms as recall reads them (recallText.ts: stemmed, stop words out),
// each term weighed by how rare it is in ordinary English (commonWords.ts), so two entries that share
// "pnpm", "lockfile" and "workspace" are close and two that share "project" and "test" are not; a pair
// whose weighted cosine reaches DUPLICATE_SIMILARITY is a duplicate, and the existing merge
// (mergeEntries.ts) is offered for it. Contradictions: the rival-choice table of rivalChoices.ts (tabs
// vs spaces, npm vs pnpm, ...). A pair that contradicts is never also called a duplicate: they share
// their words because they disagree about the same thing.
import { commonWordWeight } from '../autoMemory/commonWords';
import { recallTerm, recallTokens } from '../autoMemory/recallText';
import { clashes, stancesOf } from './rivalChoices';

/**
 * Weighted cosine at or above which two memories say the same thing. Measured on the pairs of
 * test/unit/memory/health/repeats.test.ts: reworded copies score 0.85 and up, distinct memories on one
 * topic (two rules about the staging cluster) stay at 0.42 or below.
 */
export const DUPLICATE_SIMILARITY = 0.55;

/**
 * The shared weight a duplicate needs besides its cosine: two one-line memories that share only "pnpm"
 * ("use pnpm for installs", "run the tests with pnpm test") are close by cosine and still say different things.
 */
const MIN_SHARED = 2;

/** The weights of commonWords.ts as evidence of sameness: an everyday word counts a fifth of a rare one. */
const WEIGHTS = { rare: 3, common: 5.5, floor: 0.2 };

/** A path (with a slash) or a file name with a source extension. */
const PATH_LIKE =
  /(?:[\w@.-]+\/)+[\w@.-]+|\b[\w-]+\.(?:[cm]?[jt]sx?|json|md|py|go|rs|java|kt|rb|php|cs|ya?ml|toml|sh|css|scss|html|sql)\b/g;

/** A memory as the finder reads it. */
export interface MemoryDoc {
  file: string;
  text: string;
}

/** Two memories that say the same thing: `merge` is what to offer ("merge a.md with b.md"). */
export interface DuplicatePair {
  a: string;
  b: string;
  /** Weighted cosine of their terms, 0..1. */
  similarity: number;
}

/** Two memories that give opposite instructions on one subject, told locally. */
export interface ContradictionPair {
  a: string;
  b: string;
  subject: string;
  /** What `a` says and what `b` says ("tabs", "no semicolons"). */
  sideA: string;
  sideB: string;
  /** In words: "indentation: a.md says tabs, b.md says spaces". */
  note: string;
}

export interface Repeats {
  duplicates: DuplicatePair[];
  contradictions: ContradictionPair[];
}

/** The weighted term vector of a text (term -> weight, counts multiplied by rarity). */
export function termVector(text: string): Map<string, number> {
  const v = new Map<string, number>();
  // A path is one term: two memories naming src/auth/session.ts and src/auth/token.ts share no "src" or "ts".
  const prose = text.replace(PATH_LIKE, (p) => {
    v.set(p.toLowerCase(), (v.get(p.toLowerCase()) ?? 0) + 1);
    return ' ';
  });
  for (const raw of recallTokens(prose)) {
    const t = recallTerm(raw);
    if (t === null) continue;
    v.set(t, (v.get(t) ?? 0) + commonWordWeight(t, WEIGHTS));
  }
  return v;
}

/** Cosine of two term vectors (0 when either is empty). */
export function similarity(
  a: ReadonlyMap<string, number>,
  b: ReadonlyMap<string, number>,
  norms: readonly [number, number] = [norm(a), norm(b)],
): number {
  let dot = 0;
  for (const [t, w] of a) dot += w * (b.get(t) ?? 0);
  if (dot === 0) return 0;
  return dot / (norms[0] * norms[1]);
}

/** The weight two vectors share (the sum of the smaller weight of each common term). */
function shared(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): number {
  let sum = 0;
  for (const [t, w] of a) sum += Math.min(w, b.get(t) ?? 0);
  return sum;
}

function norm(v: ReadonlyMap<string, number>): number {
  let s = 0;
  for (const w of v.values()) s += w * w;
  return Math.sqrt(s);
}

/** Every duplicate and contradicting pair among `docs` (each pair once, `a` before `b` in the order given). */
export function findRepeats(docs: readonly MemoryDoc[]): Repeats {
  const vectors = docs.map((d) => termVector(d.text));
  const norms = vectors.map(norm);
  const stances = docs.map((d) => stancesOf(d.text));
  const out: Repeats = { duplicates: [], contradictions: [] };
  for (let i = 0; i < docs.length; i++) {
    for (let j = i + 1; j < docs.length; j++) {
      const a = docs[i].file;
      const b = docs[j].file;
      const clash = clashes(stances[i], stances[j]);
      for (const c of clash) {
        const note = `${c.subject}: ${a} says ${c.a}, ${b} says ${c.b}`;
        out.contradictions.push({ a, b, subject: c.subject, sideA: c.a, sideB: c.b, note });
      }
      if (clash.length > 0) continue;
      const s = similarity(vectors[i], vectors[j], [norms[i], norms[j]]);
      if (s >= DUPLICATE_SIMILARITY && shared(vectors[i], vectors[j]) >= MIN_SHARED)
        out.duplicates.push({ a, b, similarity: Math.round(s * 100) / 100 });
    }
  }
  return out;
}
