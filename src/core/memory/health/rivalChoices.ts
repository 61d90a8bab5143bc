// What a memory says for or against on subjects where a project picks one of a few rival choices
// (issue 32 item 3): indentation with tabs or spaces, one package manager, one kind of string quotes,
// semicolons or none. The table below is deliberately small and plain: a choice is named when its word
// appears, and its polarity is read from the words before it in the same clause ("never", "don't",
// "not", "avoid", "instead of", "rather than", "switched from") or from a rival named in the same
// clause after "over" / "instead of". Two memories contradict on a subject when one is for a choice
// the other is against, or each is for a different choice of an exclusive subject. Outside the table,
// a rule given with "always" / "must" / "do" in one memory and "never" / "don't" / "avoid" in another
// about the same two leading words ("mock the database") is a contradiction too. What the table
// does not know is left to the model check (modelContradictions.ts). Also used to tell a correction
// ("no, we use pnpm now") from an ordinary message (turnOutcome.ts).
import { recallTerm, recallTokens } from '../autoMemory/recallText';

/** One subject and its rival choices; `exclusive`: a project uses one of them (so two "for"s clash). */
interface RivalSubject {
  subject: string;
  exclusive: boolean;
  choices: ReadonlyArray<{ name: string; pattern: RegExp }>;
}

/**
 * The rival choices told locally. A choice's pattern matches its word in lower-cased text; keep each
 * specific enough that ordinary prose does not name it ("yarn" is fine, "bun" needs its commands).
 */
const RIVALS: readonly RivalSubject[] = [
  {
    subject: 'indentation',
    exclusive: true,
    choices: [
      { name: 'tabs', pattern: /\b(?:hard )?tabs?\b(?! (?:key|bar|order|stop|completion|title))/ },
      { name: 'spaces', pattern: /\bspaces\b/ },
    ],
  },
  {
    subject: 'package manager',
    exclusive: true,
    choices: [
      { name: 'npm', pattern: /\bnpm\b/ },
      { name: 'pnpm', pattern: /\bpnpm\b/ },
      { name: 'yarn', pattern: /\byarn\b/ },
      { name: 'bun', pattern: /\bbun (?:install|run|add|test)\b|\bbun\.lockb?\b/ },
    ],
  },
  {
    subject: 'string quotes',
    exclusive: true,
    choices: [
      { name: 'single quotes', pattern: /\bsingle[- ]quot(?:es?|ed)\b/ },
      { name: 'double quotes', pattern: /\bdouble[- ]quot(?:es?|ed)\b/ },
    ],
  },
  { subject: 'semicolons', exclusive: false, choices: [{ name: 'semicolons', pattern: /\bsemicolons?\b/ }] },
  {
    subject: 'test runner',
    exclusive: true,
    choices: [
      { name: 'jest', pattern: /\bjest\b/ },
      { name: 'vitest', pattern: /\bvitest\b/ },
      { name: 'mocha', pattern: /\bmocha\b/ },
    ],
  },
  {
    subject: 'line endings',
    exclusive: true,
    choices: [
      { name: 'LF', pattern: /\blf\b/ },
      { name: 'CRLF', pattern: /\bcrlf\b/ },
    ],
  },
  {
    subject: 'git history',
    exclusive: true,
    choices: [
      { name: 'rebase', pattern: /\brebas(?:e|ing)\b/ },
      { name: 'merge commits', pattern: /\bmerge commits?\b/ },
    ],
  },
];

/** For or against. */
export type Polarity = 'for' | 'against';

/** What one text says about one choice of a subject. */
export interface Stance {
  subject: string;
  choice: string;
  polarity: Polarity;
}

/** Words before a choice, in its clause, that turn it against. */
const AGAINST_BEFORE =
  /\b(?:never|not|no|don'?t|do not|doesn'?t|does not|avoid|stop using|no longer|instead of|rather than|without|nor|switched from|moved from|migrated from|moved away from|away from|replaced)\b|\bover\s*$/;
/** Words right after a choice that turn it against ("npm is not installed", "yarn is deprecated here"). */
const AGAINST_AFTER =
  /^\s*(?:(?:is|are|was|were)\s+(?:not|no longer|deprecated|banned|forbidden|gone|wrong)|isn'?t|aren'?t|wasn'?t)\b/;
/** A clause: text between punctuation or "but" (so "not tabs, spaces" makes two). */
const CLAUSE_SPLIT = /[.;,!?:\n()]+|\bbut\b|\s[-–—]\s/;

/** Every stance `text` takes on the table's subjects (one per subject and choice; "against" wins a tie). */
export function stancesOf(text: string): Stance[] {
  const out = new Map<string, Stance>();
  const lower = text.toLowerCase().replace(/`/g, '');
  for (const clause of lower.split(CLAUSE_SPLIT)) {
    for (const rival of RIVALS) {
      for (const choice of rival.choices) {
        const m = choice.pattern.exec(clause);
        if (!m) continue;
        const before = clause.slice(0, m.index);
        const after = clause.slice(m.index + m[0].length);
        const against = AGAINST_BEFORE.test(lastWords(before)) || AGAINST_AFTER.test(after);
        const polarity: Polarity = against ? 'against' : 'for';
        const key = `${rival.subject}\0${choice.name}`;
        const seen = out.get(key);
        if (!seen || polarity === 'against') out.set(key, { subject: rival.subject, choice: choice.name, polarity });
      }
    }
  }
  for (const d of directivesOf(lower)) {
    const seen = out.get(d.subject);
    if (!seen || d.polarity === 'against') out.set(d.subject, d);
  }
  return [...out.values()];
}

/** A rule given with "always" / "never" (and their kin) in a clause: its polarity and what it is about. */
const DIRECTIVE =
  /(?:^\s*(do)\b|\b(always|never|do not|don'?t|must not|mustn'?t|must|should not|shouldn'?t|should|avoid)\b)\s+(.+)/;
const AGAINST_CUES = new Set([
  'never',
  'do not',
  'dont',
  "don't",
  'must not',
  'mustnt',
  "mustn't",
  'should not',
  'shouldnt',
  "shouldn't",
  'avoid',
]);
const RULE_PREFIX = 'rule: ';

/**
 * Rules outside the table ("always mock the database", "never mock the database"): the subject is the
 * first two words of what follows the cue as recall reads them (stemmed, stop words out), so the same
 * rule written twice meets whatever the small words around it.
 */
function directivesOf(lower: string): Stance[] {
  const out: Stance[] = [];
  for (const clause of lower.split(CLAUSE_SPLIT)) {
    const m = DIRECTIVE.exec(clause);
    if (!m) continue;
    const cue = m[1] ?? m[2] ?? '';
    const words: string[] = [];
    const typed: string[] = [];
    for (const raw of recallTokens(m[3])) {
      const t = recallTerm(raw);
      if (t === null) continue;
      words.push(t);
      typed.push(raw);
      if (words.length === 2) break;
    }
    if (words.length < 2) continue;
    const polarity: Polarity = AGAINST_CUES.has(cue) ? 'against' : 'for';
    out.push({ subject: `${RULE_PREFIX}${words.join(' ')}`, choice: typed.join(' '), polarity });
  }
  return out;
}

/** The last few words before a choice: a negation far back in a long clause is about something else. */
function lastWords(before: string): string {
  return before.split(/\s+/).slice(-5).join(' ');
}

/** How two sets of stances clash: per subject, in words ("indentation: tabs vs spaces"). */
export function clashes(a: readonly Stance[], b: readonly Stance[]): Array<{ subject: string; a: string; b: string }> {
  const out: Array<{ subject: string; a: string; b: string }> = [];
  for (const rival of RIVALS) {
    const sa = a.filter((s) => s.subject === rival.subject);
    const sb = b.filter((s) => s.subject === rival.subject);
    if (sa.length === 0 || sb.length === 0) continue;
    const clash = clashOn(rival, sa, sb);
    if (clash) out.push({ subject: rival.subject, ...clash });
  }
  if (out.length > 0) return out;
  // Rules outside the table: the same rule, one for and one against.
  for (const ra of a) {
    if (!ra.subject.startsWith(RULE_PREFIX)) continue;
    const rb = b.find((s) => s.subject === ra.subject && s.polarity !== ra.polarity);
    if (rb)
      out.push({
        subject: ra.choice,
        a: ra.polarity === 'for' ? 'always' : 'never',
        b: rb.polarity === 'for' ? 'always' : 'never',
      });
  }
  return out;
}

function clashOn(
  rival: RivalSubject,
  sa: readonly Stance[],
  sb: readonly Stance[],
): { a: string; b: string } | undefined {
  const forA = sa.filter((s) => s.polarity === 'for').map((s) => s.choice);
  const forB = sb.filter((s) => s.polarity === 'for').map((s) => s.choice);
  const against = (ss: readonly Stance[], c: string): boolean =>
    ss.some((s) => s.choice === c && s.polarity === 'against');
  // One is for what the other is against.
  for (const c of forA) if (against(sb, c)) return { a: side(c, 'for'), b: side(c, 'against') };
  for (const c of forB) if (against(sa, c)) return { a: side(c, 'against'), b: side(c, 'for') };
  // Each is for one choice only, and they differ (a text naming two choices "for" is not clear enough).
  if (rival.exclusive && forA.length === 1 && forB.length === 1 && forA[0] !== forB[0])
    return { a: forA[0], b: forB[0] };
  return undefined;
}

function side(choice: string, polarity: Polarity): string {
  return polarity === 'for' ? choice : `no ${choice}`;
}
