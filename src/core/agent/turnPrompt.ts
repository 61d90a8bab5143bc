// How a turn's prompt joins the conversation, and how it is taken back: the prompt with its
// attachments becomes a user message (or joins an unanswered one), and where the turn began is kept
// so a retry or an edit can put the conversation back as it was before it.
import type { ApiMessage, ContentBlock, TextBlock, UserBlock } from '../conversation/types';

/** Where a turn began, so it can be taken back (retry, edit). */
export interface TurnStart {
  /** Where the turn's user message sits in the list. */
  index: number;
  /** The unanswered user message the prompt joined (see appendPrompt), as it was before. */
  merged: ApiMessage | undefined;
  /** The transcript line the prompt's line hangs off. */
  parentUuid: string | null;
  prompt: string;
}

/** The prompt's text, as the UI shows it. */
export function promptText(prompt: string | UserBlock[]): string {
  return typeof prompt === 'string' ? prompt : prompt.map((b) => (b.type === 'text' ? b.text : '')).join('');
}

/** The prompt as stored: its attachments after it, in the same message. */
export function withAttachments(prompt: string | UserBlock[], attachments: TextBlock[]): string | UserBlock[] {
  if (attachments.length === 0) return prompt;
  return [...(typeof prompt === 'string' ? [{ type: 'text' as const, text: prompt }] : prompt), ...attachments];
}

/** Where a turn with `prompt` begins in `history`, taken before its prompt is appended. */
export function turnStartOf(history: readonly ApiMessage[], parentUuid: string | null, prompt: string): TurnStart {
  const last = history[history.length - 1];
  return {
    index: last?.role === 'user' ? history.length - 1 : history.length,
    merged: last?.role === 'user' ? last : undefined,
    parentUuid,
    prompt,
  };
}

/**
 * Adds the prompt as a new user message. After a turn that ended on a user message (cancelled
 * before any answer, failed, or cancelled during tools) the prompt joins that message instead: the
 * API wants roles to alternate, and that message was never sent with an answer, so no cached
 * prefix depends on it.
 */
export function appendPrompt(history: ApiMessage[], prompt: string | UserBlock[]): void {
  const blocks: UserBlock[] = typeof prompt === 'string' ? [{ type: 'text', text: prompt }] : prompt;
  const last = history[history.length - 1];
  if (last?.role === 'user') {
    const prev: ContentBlock[] =
      typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
    history[history.length - 1] = { role: 'user', content: [...prev, ...blocks] };
  } else {
    history.push({ role: 'user', content: typeof prompt === 'string' ? prompt : blocks });
  }
}

/** The conversation as it was before the turn that began at `start`; undefined when that turn is gone. */
export function historyBefore(history: readonly ApiMessage[], start: TurnStart): ApiMessage[] | undefined {
  if (history.length <= start.index) return undefined;
  return [...history.slice(0, start.index), ...(start.merged ? [start.merged] : [])];
}
