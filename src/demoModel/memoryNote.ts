// Turns something the user said into a memory as the guidance in the system prompt describes it: a
// type chosen from what the words are about, a topic file with front matter, and its MEMORY.md line.
import { createHash } from 'node:crypto';
import { formatIndexLine, linksTo, parseIndexLine } from '../core/memory/autoMemory/memoryIndex';
import { formatTopicFile, type MemoryType } from '../core/memory/autoMemory/topicFile';
import { clip } from './reply';

export interface MemoryNote {
  type: MemoryType;
  /** File name inside the memory folder. */
  file: string;
  name: string;
  description: string;
  content: string;
  indexLine: string;
}

/** How a fact that is feedback (a preference, a rule for the work) starts, in English. */
const FEEDBACK_EN =
  /^(?:i (?:prefer|like|love|hate|dislike|always|never|usually|want)|please|always|never|don'?t|do not|use\b|avoid\b)/i;

/**
 * A URL is a pointer elsewhere; who the user is or how they want things done is about them; the rest is
 * about the project.
 */
export function memoryTypeOf(fact: string): MemoryType {
  const t = fact.trim();
  if (/\bhttps?:\/\/\S+/i.test(t)) return 'reference';
  if (/^(?:i'?m|i am|my (?:name|role|job)|i work as)\b/i.test(t) || /^我是/.test(t)) return 'user';
  if (FEEDBACK_EN.test(t) || /^(?:我(?:更)?(?:喜欢|偏好|习惯|讨厌|希望)|请|总是|不要|以后)/.test(t)) return 'feedback';
  return 'project';
}

/** "I prefer tabs" -> "The user prefers tabs": memories speak about the user, not as them. */
export function thirdPerson(fact: string): string {
  let t = fact.trim().replace(/[.。]+$/, '');
  t = t.replace(/^i'?m\b|^i am\b/i, 'The user is').replace(/^my\b/i, "The user's");
  const verb = /^i ((?:always|never|usually|often|really) )?(\w+)/i.exec(t);
  if (verb) {
    const v = verb[2].toLowerCase();
    const third =
      v === 'do'
        ? 'does'
        : v === 'have'
          ? 'has'
          : /(?:s|sh|ch|x|z)$/.test(v)
            ? `${v}es`
            : /[^aeiou]y$/.test(v)
              ? `${v.slice(0, -1)}ies`
              : `${v}s`;
    t = `The user ${verb[1] ?? ''}${third}${t.slice(verb[0].length)}`;
  }
  return t.charAt(0).toUpperCase() + t.slice(1);
}

const STOP = new Set([
  'i',
  'im',
  'am',
  'a',
  'an',
  'the',
  'that',
  'this',
  'to',
  'of',
  'for',
  'and',
  'or',
  'is',
  'are',
  'be',
  'my',
  'me',
  'we',
  'our',
  'it',
  'in',
  'on',
  'at',
  'by',
  'with',
  'over',
  'than',
  'please',
  'remember',
  'always',
  'when',
  'use',
  'user',
]);

/** `feedback_prefer_tabs_spaces.md`; words that are not ASCII give a short hash instead. */
export function fileNameFor(type: MemoryType, fact: string, taken: ReadonlySet<string>): string {
  const words = fact
    .toLowerCase()
    .replace(/\bhttps?:\/\/\S+/g, ' ')
    .replace(/[^a-z0-9\s-]+/g, ' ')
    .split(/[\s-]+/)
    .filter((w) => w && !STOP.has(w))
    .slice(0, 4);
  const slug =
    words.length > 0 ? words.join('_') : `note_${createHash('sha256').update(fact).digest('hex').slice(0, 6)}`;
  let file = `${type}_${slug}.md`;
  for (let n = 2; taken.has(file); n++) file = `${type}_${slug}_${n}.md`;
  return file;
}

export function buildMemoryNote(
  fact: string,
  opts: { taken: ReadonlySet<string>; date?: string; source: 'asked' | 'noticed' },
): MemoryNote {
  const type = memoryTypeOf(fact);
  const rule = thirdPerson(fact);
  const file = fileNameFor(type, fact, opts.taken);
  const short = rule.replace(/^The user (?!is\b)/, '');
  const name = clip(short.charAt(0).toUpperCase() + short.slice(1), 60);
  const description = clip(rule.replace(/\s+/g, ' '), 140);
  const when = opts.date ? ` on ${opts.date}` : '';
  const why =
    opts.source === 'asked' ? `the user asked to remember it${when}.` : `the user said so in a session${when}.`;
  return {
    type,
    file,
    name,
    description,
    content: formatTopicFile({ name, description, type }, bodyOf(type, fact, rule, why)),
    indexLine: formatIndexLine({ title: name, file, hook: description }),
  };
}

/**
 * The body in its type's shape, as the extraction prompt asks: a rule or a project fact leads, then its
 * Why and How to apply lines; a fact about the user, then what it means for the work; a reference
 * starts with where the thing is.
 */
function bodyOf(type: MemoryType, fact: string, rule: string, why: string): string {
  if (type === 'feedback')
    return (
      `${rule}.\n\n**Why:** ${why}\n` +
      '**How to apply:** follow it in work on this project unless the user says otherwise.\n'
    );
  if (type === 'project')
    return (
      `${rule}.\n\n**Why:** ${why}\n` +
      '**How to apply:** take it into account when planning changes to this project.\n'
    );
  if (type === 'user') return `${rule}.\n\nTake it into account in how you explain things and work with the user.\n`;
  const where = /\bhttps?:\/\/[^\s)]+/i.exec(fact)?.[0].replace(/[.,;。]+$/, '') ?? '';
  return `${where}: ${rule}.\n\nLook it up there when the work needs what it holds.\n`;
}

/** MEMORY.md with the note's line added (kept as it is when a line already links to the file). */
export function indexWithLine(current: string, note: Pick<MemoryNote, 'file' | 'indexLine'>): string {
  const lines = current.replace(/\r\n/g, '\n').split('\n');
  if (
    lines.some((l) => {
      const e = parseIndexLine(l);
      return e !== undefined && linksTo(e, note.file);
    })
  )
    return current;
  const body = current.replace(/\s+$/, '');
  return body === '' ? `${note.indexLine}\n` : `${body}\n${note.indexLine}\n`;
}
