// How much a word of the message can say about a memory before the folder is looked at. A word common
// in ordinary English ("name", "week", "phone") turns up in messages about anything, so a memory that
// shares it is weak evidence, however rare the word is in the folder; a word ordinary speech hardly
// uses ("staging", "webhook", "backfill") is strong evidence. Commonness is the word's Zipf frequency
// in SUBTLEX-US, 51 million words of film and TV subtitles, as a stem (commonWords.json, written by
// scripts/genCommonWords.mjs): a word at or below `rare` counts fully, one at or above `common` counts
// `floor`, and in between the weight falls linearly. Chinese and other scripts have no table here:
// their words count fully (the folder's own rarity still applies).
import table from './commonWords.json';

export interface CommonWordWeights {
  /** Zipf at or below which a word counts fully (3: once in a million words). */
  rare: number;
  /** Zipf at or above which a word counts only `floor` (6: "name", "time", "want"). */
  common: number;
  floor: number;
}

const STEMS: Readonly<Record<string, number>> = table.stems;

/** The Zipf frequency of a stem in ordinary English; 0 for one the table does not hold (rare, or not English). */
export function zipfOf(stem: string): number {
  return (STEMS[stem] ?? 0) / 10;
}

/** A message term's weight as evidence, from 1 (rare in ordinary English) down to `w.floor`. */
export function commonWordWeight(term: string, w: CommonWordWeights): number {
  const z = zipfOf(term);
  if (z <= w.rare) return 1;
  if (z >= w.common) return w.floor;
  return 1 - ((1 - w.floor) * (z - w.rare)) / (w.common - w.rare);
}
