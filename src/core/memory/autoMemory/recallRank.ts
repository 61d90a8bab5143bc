// Ranking for recall, and the bar a file must clear to be attached. minisearch scores each file with
// BM25 per field (RECALL_FIELD_BOOST weights them: the index line and front matter over the body), with
// prefix matches for long terms and a fuzzy match (edit distance up to a fifth of the term) for terms of
// five letters or more, so "migrations" meets "migrate" and a typo still finds its file. Each of the
// message's words counts by how rare it is twice over: in the folder (BM25's idf) and in ordinary
// English (commonWords.ts: "name" or "week" says little about any memory, "staging" says much). The
// message's words are expanded with related words (recallRelated.ts): each of its words that belongs to
// a group adds the best-scoring of that group's terms in the file, at RECALL_RELATED_WEIGHT of an own
// word (a synonym stands in for its word: several synonyms of one word in a file count once, as one
// more matched word). As in minisearch, a file's summed score is multiplied by the number of the
// message's words it matched. Raw BM25 scores grow with the length of the message, so the bar compares
// a normalised score, the relevance: the score divided by the number of distinct terms the message has
// after stop words (at least RECALL_MIN_QUERY_TERMS; related words do not count). A file is attached when
//   - it matched at least RECALL_MIN_WORDS of the message's words, its own or through related words (a
//     lone Chinese character is part of a word, not one): one shared word, however rare, is as often a
//     coincidence ("reverse a string in Python" and the memory that new Python code is typed) as a topic,
//   - the best such file's relevance reaches RECALL_MIN_RELEVANCE (else nothing is: most messages need no memory),
//   - and its own score is at least RECALL_GAP_RATIO of the best one's (a clear winner comes alone),
// at most `max` of them, best first. Each ranked file names the message's terms it matched, for the chat.
import {
  RECALL_COMMON_WORDS,
  RECALL_GAP_RATIO,
  RECALL_MIN_QUERY_TERMS,
  RECALL_MIN_RELEVANCE,
  RECALL_MIN_WORDS,
  RECALL_RELATED_WEIGHT,
} from '../../thresholds';
import { commonWordWeight, type CommonWordWeights } from './commonWords';
import { RECALL_FIELD_BOOST, type RecallIndex } from './recallIndex';
import { relatedConcepts, type RelatedConcept } from './recallRelated';
import { isCjkChar, queryTerms, recallQueryTokens } from './recallText';

export interface RankedTopic {
  file: string;
  score: number;
  /** The score per query term (see above). */
  relevance: number;
  /** The message's terms the file matched, its own words first, then those it matched through a related word. */
  words: string[];
}

export interface RecallBar {
  minRelevance: number;
  gapRatio: number;
  minQueryTerms: number;
  /** Of a related word against an own word; 0 searches the message's own words only. */
  relatedWeight: number;
  /** How much a word common in ordinary English counts (commonWords.ts). */
  common: CommonWordWeights;
}

/**
 * BM25 with less length normalisation than minisearch's default (b 0.7): a topic file's body is short
 * and says one thing, so a longer one is not less about its subject. Chosen on the dev split.
 */
const RECALL_BM25 = { k: 1.2, b: 0.4, d: 0.5 };

export const DEFAULT_RECALL_BAR: RecallBar = {
  minRelevance: RECALL_MIN_RELEVANCE,
  gapRatio: RECALL_GAP_RATIO,
  minQueryTerms: RECALL_MIN_QUERY_TERMS,
  relatedWeight: RECALL_RELATED_WEIGHT,
  common: RECALL_COMMON_WORDS,
};

/** The message's own words: each weighed by how rare it is in ordinary English (commonWords.ts). */
function ownSearch(common: CommonWordWeights) {
  return {
    boost: RECALL_FIELD_BOOST,
    prefix: (term: string) => term.length >= 5,
    fuzzy: (term: string) => (term.length >= 5 ? 0.2 : false),
    combineWith: 'OR',
    tokenize: recallQueryTokens,
    // A lone Chinese character says little on its own; its bigrams carry the word.
    boostTerm: (term: string) => (term.length === 1 ? 0.3 : commonWordWeight(term, common)),
    bm25: RECALL_BM25,
  } as const;
}

/** A related term is searched as it is: already a stem, and not widened by prefix or fuzzy matches. */
const RELATED_SEARCH = {
  boost: RECALL_FIELD_BOOST,
  tokenize: (term: string) => [term],
  processTerm: (term: string) => term,
  bm25: RECALL_BM25,
} as const;

interface FileMatch {
  /** BM25 summed over the matched words (related ones weighted). */
  sum: number;
  /** The message's own terms the file matched. */
  own: readonly string[];
  /** The message's other words it matched through a related word (made when there is one). */
  related?: string[];
}

/** Every file that shares a term (or a related word, see above) with `query`, best first (ties keep file order). */
export function rankRecall(index: RecallIndex, query: string, bar: RecallBar = DEFAULT_RECALL_BAR): RankedTopic[] {
  const terms = queryTerms(query);
  if (terms.length === 0 || index.docs.size === 0) return [];
  const per = Math.max(terms.length, bar.minQueryTerms);
  const files = new Map<string, FileMatch>();
  // minisearch reads the message with the same tokenize/processTerm as the files. Its score is the
  // summed BM25 times the number of query terms matched; the sum is taken back out to add to.
  for (const h of index.search.search(query, ownSearch(bar.common))) {
    files.set(String(h.id), { sum: h.score / Math.max(1, h.queryTerms.length), own: h.queryTerms });
  }
  if (bar.relatedWeight > 0) addRelated(index, relatedConcepts(query, terms), bar, files);
  const ranked: RankedTopic[] = [];
  for (const [file, m] of files) {
    const words = m.own.length + (m.related?.length ?? 0);
    if (countedWords(m) < Math.min(RECALL_MIN_WORDS, terms.length)) continue;
    ranked.push({
      file,
      score: m.sum * words,
      relevance: (m.sum * words) / per,
      words: [...m.own, ...(m.related ?? [])],
    });
  }
  return ranked.sort((a, b) => b.score - a.score || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

/** The message's words a file matched, for the two-word rule: a lone Chinese character is part of a word, not one. */
function countedWords(m: FileMatch): number {
  return m.own.filter((t) => !isCjkChar(t)).length + (m.related?.length ?? 0);
}

/**
 * Per index, each related term's score per file, as searched: the table is fixed and an index is
 * rebuilt (a new object) whenever a file changes, so a term is searched once per index.
 */
const relatedScores = new WeakMap<RecallIndex, Map<string, Map<string, number>>>();

/** Adds to `files` each related group's best term per file, weighted. */
function addRelated(
  index: RecallIndex,
  concepts: readonly RelatedConcept[],
  bar: RecallBar,
  files: Map<string, FileMatch>,
): void {
  const scores = relatedScores.get(index) ?? new Map<string, Map<string, number>>();
  relatedScores.set(index, scores);
  const termScores = (term: string): Map<string, number> => {
    let found = scores.get(term);
    if (!found) {
      found = new Map(index.search.search(term, RELATED_SEARCH).map((h) => [String(h.id), h.score]));
      scores.set(term, found);
    }
    return found;
  };
  for (const concept of concepts) {
    const best = new Map<string, number>();
    for (const term of concept.terms) {
      if (!index.terms.has(term)) continue;
      const weight = commonWordWeight(term, bar.common);
      for (const [file, score] of termScores(term)) best.set(file, Math.max(best.get(file) ?? 0, weight * score));
    }
    for (const [file, score] of best) {
      let m = files.get(file);
      if (!m) files.set(file, (m = { sum: 0, own: [] }));
      m.sum += bar.relatedWeight * score;
      if (!m.own.includes(concept.from) && !m.related?.includes(concept.from)) (m.related ??= []).push(concept.from);
    }
  }
}

/** The files of a ranking that clear the bar, at most `max`. */
export function clearBar(
  ranked: readonly RankedTopic[],
  max: number,
  bar: RecallBar = DEFAULT_RECALL_BAR,
): RankedTopic[] {
  const top = ranked[0];
  if (!top || max <= 0 || top.relevance < bar.minRelevance) return [];
  return ranked.filter((r) => r.score >= top.score * bar.gapRatio).slice(0, max);
}
