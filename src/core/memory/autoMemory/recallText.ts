// How recall reads text, for the index and for the user's message alike (minisearch's `tokenize` and
// `processTerm`). Text is NFKC-normalised and lower-cased; words are runs of letters and digits (so
// `fct_orders` gives `fct` and `orders`), stemmed with the Porter2 stemmer so "deploying", "deployment"
// and "deploys" meet. Stop words are dropped: function words, and the words people use to ask anything
// of a coding agent ("explain", "write", "file", "code") that would otherwise make every file look a bit
// relevant to every message. Chinese, Japanese and Korean have no spaces: a run of them becomes its
// single characters (common function characters left out) plus its bigrams, which carry most of the
// meaning ("退款", "对账").
import { stem } from 'porter2';

const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;
const WORD = /[\p{L}\p{N}]+/gu;

const STOP_WORDS = new Set(
  // Function words.
  (
    'a about above after again against all also am an and any are as at be because been before being below between ' +
    'both but by can cannot could did do does doing done down during each either else ever every few for from ' +
    'further get gets getting got had has have having he her here hers him his how i if in into is it its itself ' +
    'just let lets like may me might mine more most much must my myself need needs no nor not now of off on once ' +
    'one only or other our ours out over own please same shall she should so some still such than that the their ' +
    'theirs them then there these they this those through to too under until up upon us very was way we were what ' +
    'whats when where which while who whom whose why will with within without would yes yet you your yours okay ok ' +
    'thanks thank hi hello hey sure right well really actually something anything everything thing things im ive id ' +
    'dont doesnt didnt isnt arent wasnt cant wont shouldnt youre were weve theyre thats theres ' +
    // Words of asking an agent for something, not of what it is about.
    'want wants wanted use used using make makes made show tell give take put see look find go going try help know ' +
    'think explain write rewrite add create change fix check run set new old quick quickly short simple example way ' +
    'ways okay continue ahead work works working file files code project'
  ).split(/\s+/),
);

const STOP_STEMS = new Set([...STOP_WORDS].map((w) => stem(w)));

/** Han and kana characters that carry grammar, not meaning; bigrams that hold them stay. */
const CJK_STOP_CHARS = new Set([
  ...'的了是在我你他她它们这那个有和与及或吗呢吧啊么什怎样要会可以就也都一不把被给到对为之而且并请帮该应能还很再又让从向',
]);

/** Particles that end or join phrases: a bigram across one ("的类", "别的") is not a word. */
const CJK_PARTICLES = new Set([...'的了吗呢吧啊么着过']);

/** A bigram of two function characters ("可以", "应该", "还是") is a function word too. */
function keepBigram(a: string, b: string): boolean {
  if (CJK_PARTICLES.has(a) || CJK_PARTICLES.has(b)) return false;
  return !(CJK_STOP_CHARS.has(a) && CJK_STOP_CHARS.has(b));
}

/** Splits text into raw terms: words, and for CJK runs their characters and bigrams. */
export function recallTokens(text: string): string[] {
  return tokens(text, (run, out) => cjkTerms(run, out));
}

/**
 * A message's raw terms. As recallTokens, except that a CJK run is first cut into words (ICU's
 * dictionary, through Intl.Segmenter) and a bigram across two words is left out: "代码怎么写" gives
 * "代码", never "码怎", a pair that a file can hold by chance. Between two one-character pieces the
 * bigram stays: that is where the dictionary did not know a word ("商户", "调高").
 */
export function recallQueryTokens(text: string): string[] {
  return tokens(text, (run, out) => {
    const pieces = [...CJK_WORDS.segment(run)].map((s) => s.segment);
    const wordOf = pieces.flatMap((p, i) => [...p].map(() => ([...p].length === 1 ? -1 : i)));
    cjkTerms(run, out, (i) => wordOf[i] === wordOf[i + 1]);
  });
}

const CJK_WORDS = new Intl.Segmenter('zh', { granularity: 'word' });

function tokens(text: string, cjk: (run: string, out: string[]) => void): string[] {
  const out: string[] = [];
  const normal = text.normalize('NFKC').toLowerCase();
  for (const word of normal.match(WORD) ?? []) {
    let last = 0;
    for (const run of word.matchAll(CJK_RUN)) {
      const at = run.index ?? 0;
      if (at > last) out.push(word.slice(last, at));
      cjk(run[0], out);
      last = at + run[0].length;
    }
    if (last < word.length) out.push(word.slice(last));
  }
  return out;
}

/**
 * A CJK run's characters (function characters left out) and the bigrams worth keeping (`pair`: at
 * character i and the next).
 */
function cjkTerms(run: string, out: string[], pair: (i: number) => boolean = () => true): void {
  const chars = [...run];
  chars.forEach((c, i) => {
    if (!CJK_STOP_CHARS.has(c)) out.push(c);
    const next = chars[i + 1];
    if (next !== undefined && keepBigram(c, next) && pair(i)) out.push(c + next);
  });
}

const IS_CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** A term that is one CJK character (a part of a word, weighed less). */
export function isCjkChar(term: string): boolean {
  return term.length === 1 && IS_CJK.test(term);
}

/** The indexed form of a raw term, or null for a stop word or a lone letter. */
export function recallTerm(term: string): string | null {
  if (IS_CJK.test(term)) return term;
  if (term.length < 2 || STOP_WORDS.has(term)) return null;
  if (/\d/.test(term)) return term;
  const stemmed = stem(term);
  // "finds" and "explained" are stop words too.
  return STOP_STEMS.has(stemmed) ? null : stemmed;
}

/** The distinct terms of a message as recall searches for them. */
export function queryTerms(text: string): string[] {
  const terms = new Set<string>();
  for (const raw of recallQueryTokens(text)) {
    const t = recallTerm(raw);
    if (t) terms.add(t);
  }
  return [...terms];
}
