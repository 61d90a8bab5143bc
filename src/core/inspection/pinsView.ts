// The inspector's pins list (issue 24): each pin of the live session with its token cost, the total
// against the pin budget, and which pins the next compaction would leave out, worked out by the same
// rule the compaction applies (compaction/pinnedBlock.ts), so the warning names the pins it will cut.
import { carryPins } from '../compaction/pinnedBlock';
import type { Pin, PinSource } from '../conversation/pinLines';
import type { PinsView } from '../../protocol/messages';

/** What the inspector reads and changes of a session's pins (session/sessionPins.ts). */
export interface PinStore {
  list(): readonly Pin[];
  add(text: string, source: PinSource): Promise<unknown>;
  remove(id: string): Promise<boolean>;
}

export function buildPinsView(pins: readonly Pin[], budget: number, countTokens: (text: string) => number): PinsView {
  const carried = carryPins(pins, budget, countTokens);
  const cut = new Set(carried.cut.map((p) => p.id));
  const views = pins.map((p) => ({
    id: p.id,
    text: p.text,
    tokens: countTokens(p.text),
    source: p.source.kind,
    ...(p.source.kind !== 'dropped' ? { role: p.source.role } : {}),
    at: Date.parse(p.at) || 0,
    wouldCut: cut.has(p.id),
  }));
  return {
    pins: views,
    tokens: views.reduce((n, v) => n + v.tokens, 0),
    carriedTokens: carried.tokens,
    budget,
    wouldCut: cut.size,
  };
}
