// Whether a turn that recalled a memory acted in line with it, and whether the person's next message
// corrected it (issue 32 item 4), decided locally and only on evidence that can be shown:
// - used: the memory's references (paths, symbols, commands: referenceExtract.ts) or at least two of
//   its distinctive words (rare in ordinary English, commonWords.ts) turn up in the reply or in the tool
//   calls that followed, and not already in the person's message (an echo of the question proves
//   nothing); a reply that takes the rival side of the memory (it says pnpm, the reply runs npm) is not
//   "used" whatever else it shares. The matched words are the evidence, kept with the count.
// - corrected: the message reads as a correction (a cue such as "no,", "actually", "we use ... now",
//   "not X, Y", "no longer") and either takes the other side of a subject the memory takes a side on
//   (rivalChoices.ts) or, after a leading "no" / "actually" / "wrong", shares the memory's distinctive
//   words. The note says what clashed.
import { commonWordWeight } from '../autoMemory/commonWords';
import { recallTerm, recallTokens } from '../autoMemory/recallText';
import { extractReferences } from './referenceExtract';
import { clashes, stancesOf } from './rivalChoices';

/** What a turn did after its prompt: its reply text and its tool calls (name and input, as text). */
export interface TurnTrace {
  prompt: string;
  reply: string;
  toolCalls: readonly string[];
}

/** A word counts as distinctive at this weight or more (commonWords.ts: 1 rare .. 0.1 everyday). */
const DISTINCTIVE = 0.6;
const WEIGHTS = { rare: 3.5, common: 5.5, floor: 0.1 };
/** Distinctive words a turn must share with a memory when no reference of it shows. */
const MIN_WORDS = 2;
/** Evidence kept per use. */
const MAX_EVIDENCE = 8;

/**
 * The evidence that `trace` acted in line with the memory `memoryText`: its references and distinctive
 * words found in the reply or tool calls (as written in the memory), or none.
 */
export function usedEvidence(memoryText: string, trace: TurnTrace): string[] {
  const acted = `${trace.reply}\n${trace.toolCalls.join('\n')}`;
  if (clashes(stancesOf(memoryText), stancesOf(acted)).length > 0) return [];
  const refs = extractReferences(memoryText)
    .map((r) => r.ref)
    .filter((ref) => ref.length >= 3 && acted.includes(ref) && !trace.prompt.includes(ref));
  const asked = new Set(termsOf(trace.prompt).keys());
  const did = termsOf(acted);
  const words = [...distinctiveTerms(memoryText)]
    .filter(([term]) => did.has(term) && !asked.has(term))
    .map(([, typed]) => typed);
  const found = [...new Set(refs)];
  if (found.length === 0 && words.length < MIN_WORDS) return [];
  for (const w of words) if (!found.some((r) => r.toLowerCase().includes(w))) found.push(w);
  return found.slice(0, MAX_EVIDENCE);
}

/** Opening words of a correction: the person says the memory (or the answer built on it) is wrong. */
const STRONG_CUE =
  /^\s*(?:no|nope|nah|wrong|actually|not quite|not anymore|that'?s (?:wrong|outdated|old|not right))\b/i;
/** Words anywhere in a message that mark a correction of what the agent took as true. */
const CUE =
  /\b(?:we (?:now )?(?:use|prefer|switched|moved|migrated)|(?:use|uses|using) \S+ now|no longer|not anymore|any ?more|instead|switched to|moved to|renamed|is outdated|was removed|not \w+, \w+)\b/i;

/**
 * Whether `message` corrects the memory `memoryText`: the note to keep ("package manager: the memory
 * says npm, the message says pnpm"), or undefined.
 */
export function correctionOf(memoryText: string, message: string): string | undefined {
  const strong = STRONG_CUE.test(message);
  if (!strong && !CUE.test(message)) return undefined;
  const clash = clashes(stancesOf(memoryText), stancesOf(message))[0];
  if (clash) return `${clash.subject}: the memory says ${clash.a}, the message says ${clash.b}`;
  if (!strong) return undefined;
  const said = termsOf(message);
  const shared = [...distinctiveTerms(memoryText)].filter(([term]) => said.has(term)).map(([, typed]) => typed);
  return shared.length > 0 ? `the message contradicts it about ${shared.slice(0, 3).join(', ')}` : undefined;
}

/** Terms of a text (recall's stemmed form) with the word as first written. */
function termsOf(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const raw of recallTokens(text)) {
    const t = recallTerm(raw);
    if (t !== null && !out.has(t)) out.set(t, raw);
  }
  return out;
}

/** The terms of a memory rare enough in ordinary English to be evidence. */
function distinctiveTerms(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [t, raw] of termsOf(text)) if (commonWordWeight(t, WEIGHTS) >= DISTINCTIVE) out.set(t, raw);
  return out;
}

/** The proposed update of a corrected memory: its text as it is, with the correction noted under it for the person to fold in. */
export function correctedText(current: string, message: string, note: string, now: Date): string {
  const quoted = clip(message.replace(/\s+/g, ' ').trim(), 300);
  return `${current.replace(/\s+$/, '')}\n\n**Correction (${now.toISOString().slice(0, 10)}):** the user said "${quoted}" (${note}). Update the entry above to match.\n`;
}

/** Up to `max` characters, with an ellipsis when cut. */
export function clip(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}
