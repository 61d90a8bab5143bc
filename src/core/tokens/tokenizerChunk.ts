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
 * js-tiktoken merges each pre-tokenized piece in quadratic time, and a piece is a whole run of letters,
 * punctuation or whitespace: 5,000 repeated letters take seconds, a long Chinese paragraph or a line of
 * `=` likewise. Runs this long are counted in slices instead; tokens hardly ever span 64 characters, so
 * the count barely moves.
 */
const LONG_RUN = /\p{L}{128,}|[^\s\p{L}\p{N}]{128,}|\s{128,}/gu;
const SLICE = 16;

export function createEncoder(): Encoder {
  const tiktoken = new Tiktoken(cl100k);
  // No special tokens: `<|endoftext|>` inside a file or a prompt is ordinary text to count, and the
  // default (disallow all) would throw on it.
  const encodeLength = (text: string): number => tiktoken.encode(text, [], []).length;
  return {
    count(text: string): number {
      if (text.length < 128) return text.length === 0 ? 0 : encodeLength(text);
      let total = 0;
      let from = 0;
      LONG_RUN.lastIndex = 0;
      for (let m = LONG_RUN.exec(text); m !== null; m = LONG_RUN.exec(text)) {
        if (m.index > from) total += encodeLength(text.slice(from, m.index));
        total += countRun(m[0], encodeLength);
        from = m.index + m[0].length;
      }
      if (from < text.length) total += encodeLength(from === 0 ? text : text.slice(from));
      return total;
    },
  };
}

function countRun(run: string, encodeLength: (text: string) => number): number {
  let total = 0;
  let i = 0;
  while (i < run.length) {
    let end = Math.min(i + SLICE, run.length);
    // Never split a surrogate pair (astral letters such as rare CJK ideographs).
    const code = run.charCodeAt(end - 1);
    if (end < run.length && code >= 0xd800 && code <= 0xdbff) end++;
    total += encodeLength(run.slice(i, end));
    i = end;
  }
  return total;
}
