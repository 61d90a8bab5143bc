// Whether a replacement text carries a fact (droppedFacts.ts): the fact, with runs of whitespace made one
// space, appears in the text as whole words, or a path's last two segments do. A word index turns most
// facts down without a scan, and a text too big to build at once is looked in a group of its parts at a
// time (notCarriedInGroups).
import type { DroppedFacts } from './types';

type DroppedKind = keyof DroppedFacts;

/** The facts that `text` (a replacement's text, as replacementText gives it) does not carry. */
export function notCarried(facts: DroppedFacts, text: string): DroppedFacts {
  return notCarriedBy(new CarriedText(text), facts);
}

function notCarriedBy(carried: CarriedText, facts: DroppedFacts): DroppedFacts {
  return {
    paths: facts.paths.filter((p) => !carried.path(p)),
    commands: facts.commands.filter((c) => !carried.whole(c)),
    errors: facts.errors.filter((e) => !carried.whole(e)),
    userMessages: facts.userMessages.filter((u) => !carried.whole(u)),
  };
}

/**
 * A replacement's text with the set of its words. A fact found as whole words has each of its words as
 * a whole word of the text too, so a fact with a word the text lacks is turned down without a scan: a
 * compaction of thousands of messages checks thousands of facts against a text of 100K characters or
 * more, and a scan for each was most of its time.
 */
class CarriedText {
  private words: Set<string> | undefined;
  /**
   * Where the last fact was found. Facts come in order of first appearance and the replacement keeps
   * most messages in their order, so the next one is usually found after it: looking there first
   * spares a scan from the start of a text of many megabytes (a whole conversation, after a microcompact).
   */
  private cursor = 0;

  /** `words` are those of `text` when the caller has them (wordSet); `memo` keeps the words of each fact. */
  constructor(
    private readonly text: string,
    private readonly memo?: Map<string, string[]>,
    words?: Set<string>,
  ) {
    this.words = words;
  }

  whole(fact: string): boolean {
    if (!this.hasWords(this.wordsOf(fact))) return false;
    const at = wholeAt(this.text, fact, this.cursor);
    if (at < 0) return false;
    this.cursor = at;
    return true;
  }

  path(p: string): boolean {
    if (this.whole(p)) return true;
    const tail = pathTail(p);
    // The tail's outer words may run on into letters pathCarried allows beside it: only its inner ones count.
    return tail !== undefined && this.hasWords(this.wordsOf(tail).slice(1, -1)) && tailCarried(tail, this.text);
  }

  private wordsOf(text: string): string[] {
    if (!this.memo) return wordsOf(text);
    let words = this.memo.get(text);
    if (words === undefined) {
      words = wordsOf(text);
      this.memo.set(text, words);
    }
    return words;
  }

  private hasWords(words: readonly string[]): boolean {
    if (words.length === 0) return true;
    this.words ??= wordSet(this.text);
    const set = this.words;
    return words.every((w) => set.has(w));
  }
}

const WORD_RUNS = /[\p{L}\p{N}_]+/gu;

function wordsOf(text: string): string[] {
  return text.match(WORD_RUNS) ?? [];
}

/** The distinct words of `text`, without a list of every word first (millions, for a whole conversation). */
function wordSet(text: string): Set<string> {
  const set = new Set<string>();
  const runs = new RegExp(WORD_RUNS.source, WORD_RUNS.flags);
  for (let m = runs.exec(text); m !== null; m = runs.exec(text)) set.add(m[0]);
  return set;
}

/**
 * Whether `fact` appears in `text` not as a piece of a longer word: `ls` is not carried by "tools".
 * The edges are checked only where the fact itself starts or ends with a letter or digit.
 */
export function containsWhole(text: string, fact: string): boolean {
  return wholeAt(text, fact, 0) >= 0;
}

/**
 * Where `fact` appears whole in `text` (-1 when nowhere): occurrences from `from` on are tried first,
 * then those before it, so the answer is the same whatever `from` is; only the time differs.
 */
function wholeAt(text: string, fact: string, from: number): number {
  const wordStart = WORD.test(fact[0] ?? '');
  const wordEnd = WORD.test(fact[fact.length - 1] ?? '');
  const whole = (at: number): boolean =>
    !(wordStart && at > 0 && WORD.test(text[at - 1])) && !(wordEnd && WORD.test(text[at + fact.length] ?? ''));
  for (let at = text.indexOf(fact, from); at >= 0; at = text.indexOf(fact, at + 1)) if (whole(at)) return at;
  for (let at = text.indexOf(fact); at >= 0 && at < from; at = text.indexOf(fact, at + 1)) if (whole(at)) return at;
  return -1;
}

const WORD = /[\p{L}\p{N}_]/u;

export function pathCarried(path: string, text: string): boolean {
  if (containsWhole(text, path)) return true;
  const tail = pathTail(path);
  return tail !== undefined && tailCarried(tail, text);
}

/** The last two segments of a path of three or more (`src/app.ts`), which summaries name files by. */
function pathTail(path: string): string | undefined {
  const segments = path.split('/').filter((s) => s !== '');
  return segments.length < 3 ? undefined : segments.slice(-2).join('/');
}

function tailCarried(tail: string, text: string): boolean {
  for (let at = text.indexOf(tail); at >= 0; at = text.indexOf(tail, at + 1)) {
    const before = at === 0 ? ' ' : text[at - 1];
    const after = text[at + tail.length] ?? ' ';
    if (!/[\w.-]/.test(before) && !/[\w/-]/.test(after)) return true;
  }
  return false;
}

/**
 * notCarried(facts, groups joined by single spaces), for `groups` given one at a time, where `whole`
 * builds the joined text: a fact found whole in a group is found whole in the joined text (the group's
 * ends meet spaces there), so only the facts no group carries (one may span two) are looked for in the
 * joined text, built only then. Each group is checked only for the facts that have a word it holds.
 */
export function notCarriedInGroups(
  facts: DroppedFacts,
  forEachGroup: (visit: (group: string) => boolean) => void,
  whole: () => string,
): DroppedFacts {
  const memo = new Map<string, string[]>();
  const carried = new Set<string>();
  const keyOf = (kind: DroppedKind, fact: string): string => `${kind}\u0000${fact}`;
  // A fact is a candidate in a group that holds its longest word (of each way it can be carried); facts
  // with no word to look for are candidates everywhere.
  const byWord = new Map<string, Array<[DroppedKind, string]>>();
  const everywhere: Array<[DroppedKind, string]> = [];
  const index = (kind: DroppedKind, fact: string, words: readonly string[]): void => {
    if (words.length === 0) return void everywhere.push([kind, fact]);
    const longest = words.reduce((a, b) => (b.length > a.length ? b : a));
    const list = byWord.get(longest);
    if (list) list.push([kind, fact]);
    else byWord.set(longest, [[kind, fact]]);
  };
  let left = 0;
  for (const kind of Object.keys(facts) as DroppedKind[])
    for (const fact of facts[kind]) {
      left++;
      index(kind, fact, wordsOf(fact));
      const tail = kind === 'paths' ? pathTail(fact) : undefined;
      if (tail !== undefined) index(kind, fact, wordsOf(tail).slice(1, -1));
    }
  forEachGroup((group) => {
    const words = wordSet(group);
    const candidates: DroppedFacts = { paths: [], commands: [], errors: [], userMessages: [] };
    const picked = new Set<string>();
    const add = ([kind, fact]: [DroppedKind, string]): void => {
      const key = keyOf(kind, fact);
      if (carried.has(key) || picked.has(key)) return;
      picked.add(key);
      candidates[kind].push(fact);
    };
    everywhere.forEach(add);
    for (const w of words) byWord.get(w)?.forEach(add);
    const notHere = notCarriedBy(new CarriedText(group, memo, words), candidates);
    for (const kind of Object.keys(candidates) as DroppedKind[]) {
      const missing = new Set(notHere[kind]);
      for (const fact of candidates[kind])
        if (!missing.has(fact)) {
          carried.add(keyOf(kind, fact));
          left--;
        }
    }
    return left > 0;
  });
  const rest: DroppedFacts = {
    paths: facts.paths.filter((f) => !carried.has(keyOf('paths', f))),
    commands: facts.commands.filter((f) => !carried.has(keyOf('commands', f))),
    errors: facts.errors.filter((f) => !carried.has(keyOf('errors', f))),
    userMessages: facts.userMessages.filter((f) => !carried.has(keyOf('userMessages', f))),
  };
  return left === 0 ? rest : notCarried(rest, whole());
}
