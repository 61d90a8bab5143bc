// The shape of the session notes (DESIGN 4): a title and nine sections, each heading followed by one
// italic guide line that tells the updater what belongs there. The headings are a schema, not prose: the
// updater writes under them, compaction swaps old messages for the notes, and the inspector shows each
// section's size against its cap, so all three need the same parse.
import { promises as fsp } from 'node:fs';
import { defaultTokenCounter, type TokenCounter } from '../../tokens/accounting';
import { NOTES_FILE_CAP_TOKENS, NOTES_SECTION_CAP_TOKENS } from '../../thresholds';
import { userTemplatePath } from './paths';

/**
 * The default template. Each section answers one question a newcomer taking over the session would ask;
 * Current State comes first because it decides the next action after a compaction.
 */
export const DEFAULT_TEMPLATE = [
  '# Session Title',
  '_Five to ten words that tell this session apart from others; no filler_',
  '',
  '# Current State',
  '_What is in progress right now, what is still open, and the very next step_',
  '',
  '# Task specification',
  '_What the user asked for, in their terms, with the decisions and constraints agreed so far_',
  '',
  '# Files and Functions',
  '_The files and functions that matter here: what each one holds and why it is relevant_',
  '',
  '# Workflow',
  '_Commands that get run (build, test, start) and in what order; how to read their output when it is not obvious_',
  '',
  '# Errors & Corrections',
  '_Errors hit and how they were fixed; what the user corrected; approaches that failed and must not be retried_',
  '',
  '# Codebase and System Documentation',
  '_How the parts of the system that matter here work and fit together_',
  '',
  '# Learnings',
  '_What worked, what did not, what to avoid; nothing already said in another section_',
  '',
  '# Key results',
  '_Exact outputs the user asked for (an answer, a table, a document), copied in full_',
  '',
  '# Worklog',
  '_One terse line per step: what was tried, what was done_',
  '',
].join('\n');

export interface NotesTemplate {
  text: string;
  source: 'default' | 'user';
  /** The user's template file, when that is the source. */
  path?: string;
}

/** The user's template (`<configDir>/session-memory/config/template.md`) when it has content, else the default. */
export async function loadTemplate(configDir: string): Promise<NotesTemplate> {
  const file = userTemplatePath(configDir);
  try {
    const text = await fsp.readFile(file, 'utf8');
    // An empty file would give the updater nothing to write under; treat it as absent.
    if (text.trim() !== '') return { text: text.endsWith('\n') ? text : `${text}\n`, source: 'user', path: file };
  } catch {
    // missing or unreadable: the default applies
  }
  return { text: DEFAULT_TEMPLATE, source: 'default' };
}

export interface NotesSection {
  /** Heading text without the `# `. */
  heading: string;
  /** The italic guide line without its markers, when the section has one. */
  guide?: string;
  /** What the updater wrote under the guide line (trimmed). */
  body: string;
  /** Tokens of the body: what the per-section cap limits. */
  tokens: number;
  /** 1-based line of the heading. */
  line: number;
}

export interface ParsedNotes {
  sections: NotesSection[];
  /** Text before the first heading (normally empty). */
  preamble: string;
  /** Tokens of the whole file: what the file cap limits. */
  tokens: number;
}

const HEADING = /^# +(.*?)\s*$/;
const FENCE = /^\s*(```|~~~)/;

/**
 * Splits notes into their `# ` sections. Lines inside fenced code blocks are never headings: a Workflow
 * section full of shell snippets has `# comment` lines that must not start new sections.
 */
export function parseNotes(text: string, count: TokenCounter = defaultTokenCounter): ParsedNotes {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const raw: Array<{ heading: string; line: number; content: string[] }> = [];
  const preamble: string[] = [];
  let fenced = false;
  lines.forEach((line, i) => {
    const m = fenced ? null : HEADING.exec(line);
    if (FENCE.test(line)) fenced = !fenced;
    if (m) raw.push({ heading: m[1], line: i + 1, content: [] });
    else if (raw.length > 0) raw[raw.length - 1].content.push(line);
    else preamble.push(line);
  });
  const sections = raw.map(({ heading, line, content }): NotesSection => {
    const first = content.findIndex((l) => l.trim() !== '');
    const guide = first >= 0 ? italicText(content[first]) : undefined;
    const bodyLines = guide !== undefined ? content.slice(first + 1) : content;
    const body = bodyLines.join('\n').trim();
    return { heading, ...(guide !== undefined ? { guide } : {}), body, tokens: body === '' ? 0 : count(body), line };
  });
  return { sections, preamble: preamble.join('\n').trim(), tokens: text.trim() === '' ? 0 : count(text) };
}

/**
 * True when the notes say nothing yet: every line is blank, a heading, or an italic guide line. Lines of
 * the given template count as structure even if they are not headings or guides; a heading or guide the
 * template no longer has (the user changed the template since) counts as structure too, not as content.
 * Compaction uses this: template-only notes cannot stand in for the conversation.
 */
export function isTemplateOnly(text: string, template: string): boolean {
  const structural = new Set(
    template
      .replace(/\r\n/g, '\n')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== ''),
  );
  for (const rawLine of text.replace(/\r\n/g, '\n').split('\n')) {
    const line = rawLine.trim();
    if (line === '' || structural.has(line)) continue;
    if (/^#{1,6}\s/.test(line) || italicText(line) !== undefined) continue;
    return false;
  }
  return true;
}

export interface NotesCaps {
  sectionTokens: number;
  fileTokens: number;
}

export const DEFAULT_CAPS: NotesCaps = { sectionTokens: NOTES_SECTION_CAP_TOKENS, fileTokens: NOTES_FILE_CAP_TOKENS };

export interface CapReport {
  /** Sections whose body is over the section cap, largest first. */
  sections: Array<{ heading: string; tokens: number }>;
  /** Set when the whole file is over the file cap. */
  file?: { tokens: number };
}

export function capViolations(notes: ParsedNotes, caps: NotesCaps = DEFAULT_CAPS): CapReport {
  const sections = notes.sections
    .filter((s) => s.tokens > caps.sectionTokens)
    .map((s) => ({ heading: s.heading, tokens: s.tokens }))
    .sort((a, b) => b.tokens - a.tokens);
  return { sections, ...(notes.tokens > caps.fileTokens ? { file: { tokens: notes.tokens } } : {}) };
}

export function isOverCap(report: CapReport): boolean {
  return report.sections.length > 0 || report.file !== undefined;
}

/** `_text_` or `*text*` on its own line (not `**bold**`), else undefined. */
function italicText(line: string): string | undefined {
  const m = /^\s*(?:_(?!_)(.+?)_|\*(?!\*)(.+?)\*)\s*$/.exec(line);
  if (!m) return undefined;
  return (m[1] ?? m[2]).trim();
}
