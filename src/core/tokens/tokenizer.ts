// Token counting for estimates between the API's usage reports. The tokenizer costs ~1 s to load, so it
// is loaded on first use only, from its own bundle: `engram-lazy:tokenizer` is resolved by esbuild to
// ./tokenizer.js next to the bundle (see esbuild.mjs). Unbundled (tsx, unit tests) that specifier does
// not exist and the source module is required instead. Until it is loaded, estimateTokensFast is the
// cheap stand-in.
import type { Encoder } from './tokenizerChunk';

let encoder: Encoder | undefined;
let loading: Promise<void> | undefined;

/** Roughly four characters per token for English and code; good enough before the tokenizer loads. */
export function estimateTokensFast(text: string): number {
  return Math.ceil(text.length / 4);
}

export function isTokenizerLoaded(): boolean {
  return encoder !== undefined;
}

/** Loads the tokenizer (once) off the caller's current tick; later countTokens calls are synchronous. */
export function ensureTokenizer(): Promise<void> {
  loading ??= new Promise<void>((resolve, reject) => {
    setImmediate(() => {
      try {
        loadEncoder();
        resolve();
      } catch (e) {
        loading = undefined; // let a later call try again
        reject(e);
      }
    });
  });
  return loading;
}

/** Exact cl100k count; loads the tokenizer synchronously if nobody has yet. */
export function countTokens(text: string): number {
  return loadEncoder().count(text);
}

function loadEncoder(): Encoder {
  if (encoder) return encoder;
  let chunk: { createEncoder(): Encoder };
  try {
    chunk = require('engram-lazy:tokenizer') as typeof chunk;
  } catch (bundledError) {
    try {
      // A variable, so that esbuild leaves this require alone instead of bundling the tokenizer in.
      const source = './tokenizerChunk';
      chunk = require(source) as typeof chunk;
    } catch {
      throw bundledError;
    }
  }
  encoder = chunk.createEncoder();
  return encoder;
}
