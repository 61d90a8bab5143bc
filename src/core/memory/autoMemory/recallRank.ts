// Ranking for recall, and the bar a file must clear to be attached. minisearch scores each file with
// BM25 per field (RECALL_FIELD_BOOST weights them), with prefix matches for long terms and a fuzzy
// match (edit distance up to a fifth of the term) for terms of five letters or more, so "migrations"
// meets "migrate" and a typo still finds its file. Raw BM25 scores grow with the length of the message,
// so the bar compares a normalised score, the relevance: the score divided by the number of distinct
// terms the message has after stop words (at least RECALL_MIN_QUERY_TERMS, so a two-word message does
// not look sure of itself). A file is attached when
//   - the best file's relevance reaches RECALL_MIN_RELEVANCE (else nothing is: most messages need no memory),
//   - and its own score is at least RECALL_GAP_RATIO of the best one's (a clear winner comes alone),
// at most `max` of them, best first.
import { RECALL_GAP_RATIO, RECALL_MIN_QUERY_TERMS, RECALL_MIN_RELEVANCE } from '../../thresholds';
import { RECALL_FIELD_BOOST, type RecallIndex } from './recallIndex';
import { queryTerms } from './recallText';

export interface RankedTopic {
  file: string;
  score: number;
  /** The score per query term (see above). */
  relevance: number;
}

export interface RecallBar {
  minRelevance: number;
  gapRatio: number;
  minQueryTerms: number;
}

/**
 * BM25 with less length normalisation than minisearch's default (b 0.7): a topic file's body is short
 * and says one thing, so a longer one is not less about its subject. Chosen on the dev split.
 */
const RECALL_BM25 = { k: 1.2, b: 0.4, d: 0.5 };

export const DEFAULT_RECALL_BAR: RecallBar = { minRelevance: RECALL_MIN_RELEVANCE, gapRatio: RECALL_GAP_RATIO, minQueryTerms: RECALL_MIN_QUERY_TERMS };

/** Every file that shares a term with `query`, best first (ties keep file order). */
export function rankRecall(index: RecallIndex, query: string, bar: RecallBar = DEFAULT_RECALL_BAR): RankedTopic[] {
  const terms = queryTerms(query);
  if (terms.length === 0 || index.docs.size === 0) return [];
  const per = Math.max(terms.length, bar.minQueryTerms);
  // minisearch reads the message with the same tokenize/processTerm as the files.
  const hits = index.search.search(query, {
    boost: RECALL_FIELD_BOOST,
    prefix: (term) => term.length >= 5,
    fuzzy: (term) => (term.length >= 5 ? 0.2 : false),
    combineWith: 'OR',
    // A lone Chinese character says little on its own; its bigrams carry the word.
    boostTerm: (term) => (term.length === 1 ? 0.3 : 1),
    bm25: RECALL_BM25,
  });
  return hits
    .map((h) => ({ file: String(h.id), score: h.score, relevance: h.score / per }))
    .sort((a, b) => b.score - a.score || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

/** The files of a ranking that clear the bar, at most `max`. */
export function clearBar(ranked: readonly RankedTopic[], max: number, bar: RecallBar = DEFAULT_RECALL_BAR): RankedTopic[] {
  const top = ranked[0];
  if (!top || max <= 0 || top.relevance < bar.minRelevance) return [];
  return ranked.filter((r) => r.score >= top.score * bar.gapRatio).slice(0, max);
}
