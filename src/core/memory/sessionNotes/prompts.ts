// What the notes updater is told. It runs as a fork of the main conversation, so it already sees
// everything the notes should cover; the message only says what to do with it. The current notes are
// inlined so the fork needs no Read (it may not use one), and the file is marked as read for Edit.
import type { CapReport, NotesCaps } from './template';

/**
 * Opens every updater message. Nothing else in a conversation starts with it, so a test server (or a
 * log reader) can tell the updater's requests from the main conversation's.
 */
export const NOTES_UPDATE_MARKER = '<engram-session-notes-update>';
const CLOSE = '</engram-session-notes-update>';

export interface UpdatePromptInput {
  notesPath: string;
  notesText: string;
  caps: NotesCaps;
}

export function buildUpdatePrompt(p: UpdatePromptInput): string {
  return [
    NOTES_UPDATE_MARKER,
    'This message comes from Engram, not from the user. Set the conversation above aside: do not answer it, ' +
      'continue it, or run anything for it. Your only job now is to bring the session notes up to date with ' +
      'everything that happened above.',
    '',
    `The notes file is ${p.notesPath}. Its current content, exactly as it is on disk (you do not need to ` +
      'Read it; Edit works on it right away):',
    '<notes>',
    p.notesText,
    '</notes>',
    '',
    'Rules:',
    '- Use the Edit tool on that one file and nothing else. Every other tool, and Edit on any other path, is refused.',
    '- The lines starting with "# " and the italic line right below each of them are the template. Keep them ' +
      "exactly as they are and where they are. Write below a section's italic line, never inside it.",
    '- Write what someone taking over this session cold would need: where things stand and the next step, what ' +
      'the user asked for, the files and functions involved, the commands that work, errors met and their fixes, ' +
      'results the user asked for, and a terse worklog.',
    '- Be terse and specific: exact file paths, function names, commands and error messages. No filler, no ' +
      'repeating the italic lines, no remarks about the notes themselves.',
    '- Always bring Current State up to date. Replace what is out of date instead of adding lines that ' +
      'contradict it. Leave a section empty when there is nothing to say for it.',
    `- Keep each section under about ${p.caps.sectionTokens} tokens and the whole file under ${p.caps.fileTokens} ` +
      'tokens. When space runs short, shorten older detail first (Worklog, background) and keep Current State ' +
      'and Errors & Corrections complete.',
    '- Make all your edits in one reply if you can, one Edit call per section you change. Copy each old_string ' +
      "exactly from the content above, for example a section's italic line, and repeat it at the start of " +
      'new_string followed by what you add under it.',
    '- When you are done, answer with one short sentence and stop.',
    CLOSE,
  ].join('\n');
}

export interface CondensePromptInput extends UpdatePromptInput {
  over: CapReport;
}

/** The one follow-up run when an update left the notes over a cap. */
export function buildCondensePrompt(p: CondensePromptInput): string {
  const lines = p.over.sections.map(
    (s) => `- section "${s.heading}": ${s.tokens} tokens (limit ${p.caps.sectionTokens})`,
  );
  if (p.over.file) lines.push(`- the whole file: ${p.over.file.tokens} tokens (limit ${p.caps.fileTokens})`);
  return [
    NOTES_UPDATE_MARKER,
    'This message comes from Engram, not from the user. Do not answer or continue the conversation above.',
    '',
    `The session notes file ${p.notesPath} is over its size limits:`,
    ...lines,
    '',
    'Condense it with Edit on that file only, until every section and the whole file fit:',
    '- Keep every "# " heading and the italic line below it exactly as they are.',
    p.over.sections.length > 0
      ? '- Rewrite the sections named above first: merge related lines, drop detail that no longer matters, ' +
        'keep the exact names, paths and commands that still do.'
      : '- Shorten the longest sections: merge related lines, drop detail that no longer matters.',
    '- Current State and Errors & Corrections matter most: ' +
      'keep them complete and cut Worklog and older background before them.',
    '',
    'Current content (no need to Read it):',
    '<notes>',
    p.notesText,
    '</notes>',
    '',
    'When you are done, answer with one short sentence and stop.',
    CLOSE,
  ].join('\n');
}
