// The part of a summarising stage a person reviews before a manual compaction applies, and the stage
// rebuilt around what they edited. Only the body changes: the model's summary (inside <summary>) or
// the session notes (inside <session-notes>); the wording around it, the re-attached files and the cut
// (which messages are replaced, which stay) are the ones the stage computed. Pure, so the rules are
// unit-tested without a model.
import { assembleCompacted } from './compactedConversation';
import { withDropped } from './droppedFacts';
import { SUMMARY_SECTIONS } from './summaryPrompt';
import type { CompactionEntry, CompactionResult, CompactionStage, TokensOf } from './types';

/** What the person sees and may edit: the summary the model wrote, or the notes that replace the history. */
export interface ReviewText {
  kind: 'summary' | 'notes';
  text: string;
}

const WRAPS: Partial<Record<CompactionStage, { kind: ReviewText['kind']; open: string; close: string }>> = {
  full: { kind: 'summary', open: '<summary>\n', close: '\n</summary>' },
  'session-memory': { kind: 'notes', open: '<session-notes>\n', close: '\n</session-notes>' },
};

/** The editable body of a stage's result; undefined for a stage that writes no summary. */
export function reviewTextOf(result: CompactionResult): ReviewText | undefined {
  const wrap = WRAPS[result.stage];
  if (!wrap || result.summaryText === undefined || result.summaryBody === undefined) return undefined;
  if (!result.summaryText.includes(wrap.open + result.summaryBody + wrap.close)) return undefined;
  return { kind: wrap.kind, text: result.summaryBody };
}

export type EditOutcome = { ok: true; result: CompactionResult; edited: boolean } | { ok: false; reason: string };

/**
 * The result with `edited` in place of its body: same cut, same wording around it, tokens after
 * counted again. `before` is the conversation the stage was computed on. Refused, saying why, when
 * the text is empty, would close its tag early, or lost a section the original had.
 */
export function withEditedBody(
  result: CompactionResult,
  before: readonly CompactionEntry[],
  edited: string,
  tokensOf: TokensOf,
): EditOutcome {
  const wrap = WRAPS[result.stage];
  const review = reviewTextOf(result);
  if (!wrap || !review || result.summaryText === undefined)
    return { ok: false, reason: 'This compaction has no summary to edit.' };
  const body = edited.trim();
  const what = review.kind === 'summary' ? 'summary' : 'notes';
  if (body === '')
    return { ok: false, reason: `The edited ${what} is empty. Write the ${what} back, or cancel the compaction.` };
  if (body === review.text) return { ok: true, result, edited: false };
  const closing = wrap.close.trim();
  if (body.toLowerCase().includes(closing))
    return { ok: false, reason: `The edited ${what} contains ${closing}, which would end it early. Remove that tag.` };
  const lost = sectionsOf(review).filter((s) => !hasSection(body, s, review.kind));
  if (lost.length > 0) {
    return {
      ok: false,
      reason:
        `The edited ${what} lost ${lost.length === 1 ? 'the section' : 'the sections'} ${lost.join(', ')}. ` +
        'Keep each section title (a section may be left empty), or cancel the compaction.',
    };
  }
  const at = result.summaryText.indexOf(wrap.open + review.text + wrap.close) + wrap.open.length;
  const summaryText = result.summaryText.slice(0, at) + body + result.summaryText.slice(at + review.text.length);
  const entries = assembleCompacted(summaryText, before, result.keptFrom);
  const tokensAfter = result.tokensAfter - tokensOf(result.entries[0].message) + tokensOf(entries[0].message);
  const next = withDropped({ ...result, entries, summaryText, summaryBody: body, tokensAfter });
  return { ok: true, edited: true, result: next };
}

/** The sections a body must keep: the summary's titles it has, or the notes' Markdown headings. */
function sectionsOf(review: ReviewText): string[] {
  if (review.kind === 'summary') return SUMMARY_SECTIONS.filter((s) => hasSection(review.text, s, 'summary'));
  return [
    ...new Set(
      review.text
        .split('\n')
        .filter((l) => /^#{1,6}\s+\S/.test(l))
        .map((l) => l.trim()),
    ),
  ];
}

function hasSection(body: string, section: string, kind: ReviewText['kind']): boolean {
  if (kind === 'summary') return body.toLowerCase().includes(section.toLowerCase());
  return body.split('\n').some((l) => l.trim() === section);
}

/**
 * The text of a preview document without the note the host put at its top (an HTML comment, which
 * Markdown does not show): what the person wrote is everything after it.
 */
export function withoutPreviewHeader(document: string): string {
  return document.replace(/^\s*<!--[\s\S]*?-->[ \t]*\r?\n?/, '').replace(/\r\n/g, '\n');
}
