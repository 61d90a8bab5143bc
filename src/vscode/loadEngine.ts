import type * as Engine from './engineChunk';

let engine: typeof Engine | undefined;

/**
 * The engine chunk, loaded on first use. In the bundle `engram-lazy:engine` resolves to ./engine.js
 * beside extension.js (esbuild.mjs); elsewhere (tests that import this file directly) to the module itself.
 */
export function loadEngine(): typeof Engine {
  if (!engine) {
    try {
      engine = require('engram-lazy:engine') as typeof Engine;
    } catch {
      // A variable, so that esbuild leaves this require alone instead of bundling the engine in.
      const source = './engineChunk';
      engine = require(source) as typeof Engine;
    }
  }
  return engine;
}
