// A small Okapi BM25 ranker for recall (which topic files fit a message), written here instead of
// taking a search library: the corpus is a few hundred one-line descriptions, rebuilt per query, and
// all that is needed is tokenizing, term frequencies and the standard formula:
//   score(d, q) = sum over query terms t of idf(t) * tf(t,d) * (k1 + 1) / (tf(t,d) + k1 * (1 - b + b * |d| / avgdl))
//   idf(t) = ln(1 + (N - n(t) + 0.5) / (n(t) + 0.5))   (the non-negative variant Lucene uses)
// Text is lower-cased and NFKC-normalised; words are runs of letters and digits, with a light English
// plural/suffix folding; Chinese, Japanese and Korean runs become single characters plus bigrams, since
// they have no spaces between words.

export interface Bm25Doc {
  id: string;
  text: string;
}

export interface Bm25Hit {
  id: string;
  score: number;
}

export interface Bm25Options {
  k1?: number;
  b?: number;
}

const STOPWORDS = new Set(
  ('a an and are as at be but by can could did do does for from had has have how i if in into is it its me my no not of on or our ' +
    'please should so than that the their them then there these they this to us was we were what when where which who why will with ' +
    'would you your yes just about also any some all get got make let use using need want like now one')
    .split(' '),
);

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

export function tokenize(text: string): string[] {
  const out: string[] = [];
  const words = text.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const word of words) {
    if (CJK.test(word)) {
      // Split mixed runs ("api接口") into their Latin and CJK parts.
      for (const part of word.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+|[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu) ?? []) {
        if (CJK.test(part)) {
          const chars = [...part];
          chars.forEach((c, i) => {
            out.push(c);
            if (i + 1 < chars.length) out.push(c + chars[i + 1]);
          });
        } else {
          pushWord(out, part);
        }
      }
    } else {
      pushWord(out, word);
    }
  }
  return out;
}

function pushWord(out: string[], word: string): void {
  if (word.length < 2 || STOPWORDS.has(word)) return;
  out.push(stem(word));
}

/** Folds common English endings so "tests", "testing" and "tested" meet "test". */
function stem(w: string): string {
  if (w.length <= 3 || /\d/.test(w)) return w;
  if (w.endsWith('ies') && w.length > 4) return `${w.slice(0, -3)}y`;
  if (w.endsWith('ing') && w.length > 5) return undouble(w.slice(0, -3));
  if (w.endsWith('ed') && w.length > 4) return undouble(w.slice(0, -2));
  if (w.endsWith('es') && /(ss|sh|ch|x|z)es$/.test(w)) return w.slice(0, -2);
  if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) return w.slice(0, -1);
  return w;
}

function undouble(w: string): string {
  return /([b-df-hj-np-tv-z])\1$/.test(w) && !/(ll|ss|zz)$/.test(w) ? w.slice(0, -1) : w;
}

/** Documents by descending score; documents sharing no term with the query are left out. */
export function rankBm25(docs: readonly Bm25Doc[], query: string, opts: Bm25Options = {}): Bm25Hit[] {
  const k1 = opts.k1 ?? 1.2;
  const b = opts.b ?? 0.75;
  const terms = [...new Set(tokenize(query))];
  if (terms.length === 0 || docs.length === 0) return [];
  const tokenized = docs.map((d) => tokenize(d.text));
  const avgdl = tokenized.reduce((n, t) => n + t.length, 0) / docs.length || 1;
  const df = new Map<string, number>();
  const tfs = tokenized.map((tokens) => {
    const tf = new Map<string, number>();
    for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const t of tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
    return tf;
  });
  const n = docs.length;
  const hits: Bm25Hit[] = [];
  docs.forEach((doc, i) => {
    let score = 0;
    const dl = tokenized[i].length;
    for (const t of terms) {
      const tf = tfs[i].get(t);
      if (!tf) continue;
      const nt = df.get(t) ?? 0;
      const idf = Math.log(1 + (n - nt + 0.5) / (nt + 0.5));
      score += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * dl) / avgdl));
    }
    if (score > 0) hits.push({ id: doc.id, score });
  });
  // Ties keep the documents' order, so the ranking is deterministic.
  return hits.sort((x, y) => y.score - x.score);
}
