// The real tokenizer: js-tiktoken with the cl100k_base ranks (~1 MB to parse). esbuild makes this file
// its own bundle (dist/tokenizer.js) that tokenizer.ts requires on first use, so activation never pays
// for it. cl100k_base is not Claude's tokenizer; it is a close, offline estimate for text between the
// API's exact usage reports.
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';

export interface Encoder {
  count(text: string): number;
}

/**
 * js-tiktoken merges each pre-tokenized piece in worse than quadratic time, and a piece is a whole run of
 * letters, punctuation or whitespace: 5,000 repeated letters take seconds, and so does a long Chinese
 * sentence (no spaces) or a line of `=`. Such runs are cut into short slices by inserting a separator
 * that is a token of its own and cannot join its neighbours (a digit between letters, a letter between
 * punctuation or whitespace), then the separators are subtracted. A cut costs at most about one token,
 * so a long Latin run is overcounted by ~15% at worst, and the text is still encoded in one call.
 */
const LONG_RUN = /\p{L}{48,}|[^\s\p{L}\p{N}]{64,}|\s{64,}/gu;
const IS_LETTER = /^\p{L}/u;
/** Slice lengths in characters: merging cost grows with bytes, and non-ASCII letters take 2-4 bytes each. */
const SLICE_ASCII = 32;
const SLICE_WIDE = 6;
const NON_ASCII = /[^\x00-\x7f]/;

export function createEncoder(): Encoder {
  const tiktoken = new Tiktoken(cl100k);
  // No special tokens: `<|endoftext|>` inside a file or a prompt is ordinary text to count, and the
  // default (disallow all) would throw on it.
  const encodeLength = (text: string): number => tiktoken.encode(text, [], []).length;
  return {
    count(text: string): number {
      if (text.length === 0) return 0;
      if (text.length < 48) return encodeLength(text);
      let separators = 0;
      const sliced = text.replace(LONG_RUN, (run) => {
        const parts = slices(run);
        separators += parts.length - 1;
        return parts.join(IS_LETTER.test(run) ? '0' : 'a');
      });
      return encodeLength(sliced) - separators;
    },
  };
}

function slices(run: string): string[] {
  const size = NON_ASCII.test(run) ? SLICE_WIDE : SLICE_ASCII;
  const out: string[] = [];
  let i = 0;
  while (i < run.length) {
    let end = Math.min(i + size, run.length);
    // Never split a surrogate pair (emoji, rare CJK ideographs).
    const code = run.charCodeAt(end - 1);
    if (end < run.length && code >= 0xd800 && code <= 0xdbff) end++;
    out.push(run.slice(i, end));
    i = end;
  }
  return out;
}
