// What the pins carry into a compacted conversation (issue 24): the pinned texts, word for word, in one
// tagged block right after the summary or notes, within a token budget. Whole pins only: a pin cut in
// the middle could turn a rule into its opposite, so when the pins exceed the budget the oldest ones that
// do not fit are left out (newer pins are what the person said last) and the result names them. A pin
// whose message is still in the part kept verbatim is carried all the same: the kept part is the next
// compaction's to replace, and the block is where the model learns that the person pinned the text.
import type { Pin } from '../conversation/pinLines';

/** What a compaction event records of the pins it carried (CompactionEvent.pinsCarried). */
export interface PinsCarried {
  count: number;
  tokens: number;
  /** Pins the budget left out. */
  cut: number;
}

export interface CarriedPins {
  /** The block to put after the summary; empty when no pin is carried. */
  text: string;
  /** The pins carried, oldest first, with their token costs. */
  carried: Array<{ pin: Pin; tokens: number }>;
  /** The pins the budget left out (oldest first). */
  cut: Pin[];
  /** Tokens of the carried pins' texts (the tags around them not counted). */
  tokens: number;
}

/** Each pin's cost is its text's; the pins are taken newest first while they fit, then put back in order. */
export function carryPins(pins: readonly Pin[], budget: number, countTokens: (text: string) => number): CarriedPins {
  const costs = pins.map((pin) => ({ pin, tokens: countTokens(pin.text) }));
  let left = budget;
  const kept = new Set<Pin>();
  for (let i = costs.length - 1; i >= 0; i--) {
    if (costs[i].tokens > left) continue;
    left -= costs[i].tokens;
    kept.add(costs[i].pin);
  }
  const carried = costs.filter((c) => kept.has(c.pin));
  const tokens = carried.reduce((n, c) => n + c.tokens, 0);
  return { text: pinnedBlock(carried.map((c) => c.pin)), carried, cut: pins.filter((p) => !kept.has(p)), tokens };
}

export const PINNED_OPEN = '<pinned by="user">';
const PINNED_CLOSE = '</pinned>';

function pinnedBlock(pins: readonly Pin[]): string {
  if (pins.length === 0) return '';
  const items = pins.map((p) => `<pin>\n${p.text}\n</pin>`).join('\n');
  return (
    'The user pinned these texts to survive every compaction; they are quoted word for word. Keep to them ' +
    `as if the user had just said them again.\n${PINNED_OPEN}\n${items}\n${PINNED_CLOSE}`
  );
}
