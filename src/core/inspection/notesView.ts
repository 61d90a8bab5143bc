// The session notes pane's data: each section's body and tokens against its cap, when the notes were
// last updated and the last response they cover (its place among the session's responses). Plain Node.
import { promises as fsp } from 'node:fs';
import { readNotesState } from '../memory/sessionNotes/stateFile';
import { DEFAULT_CAPS, parseNotes, type NotesCaps } from '../memory/sessionNotes/template';
import type { TokenCounter } from '../tokens/accounting';
import type { NotesView } from '../../protocol/messages';
import type { TranscriptFacts } from './transcriptFacts';

export interface NotesViewInput {
  summaryPath: string | undefined;
  statePath: string | undefined;
  caps?: NotesCaps;
  /** The live session's notes state (fresher than the sidecar on disk, which is written once a turn). */
  live?: { lastSummarizedMessageId?: string; updatedAt?: string; lastError?: string; updating: boolean };
  facts?: TranscriptFacts;
  countTokens?: TokenCounter;
}

export async function buildNotesView(input: NotesViewInput): Promise<NotesView> {
  const caps = input.caps ?? DEFAULT_CAPS;
  const empty: NotesView = {
    exists: false,
    sections: [],
    tokens: 0,
    fileCap: caps.fileTokens,
    updating: input.live?.updating ?? false,
  };
  if (!input.summaryPath) return empty;
  let text: string;
  try {
    text = await fsp.readFile(input.summaryPath, 'utf8');
  } catch {
    return { ...empty, path: input.summaryPath };
  }
  const parsed = parseNotes(text, input.countTokens);
  const disk = input.statePath ? await readNotesState(input.statePath, true) : undefined;
  const cursor = input.live?.lastSummarizedMessageId ?? disk?.lastSummarizedMessageId;
  const updatedAt = input.live?.updatedAt ?? disk?.updatedAt;
  const lastError = input.live?.lastError ?? disk?.lastError;
  const updatedMs = updatedAt ? Date.parse(updatedAt) : NaN;
  return {
    path: input.summaryPath,
    exists: true,
    sections: parsed.sections.map((s) => ({
      heading: s.heading,
      markdown: s.body,
      tokens: s.tokens,
      cap: caps.sectionTokens,
    })),
    tokens: parsed.tokens,
    fileCap: caps.fileTokens,
    ...(Number.isFinite(updatedMs) ? { updatedAt: updatedMs } : {}),
    ...(cursor ? { covers: coverOf(cursor, input.facts) } : {}),
    updating: input.live?.updating ?? false,
    ...(lastError ? { lastError } : {}),
  };
}

function coverOf(messageId: string, facts: TranscriptFacts | undefined): NonNullable<NotesView['covers']> {
  const r = facts?.responses.get(messageId);
  if (!r || !facts) return { messageId };
  return {
    messageId,
    response: r.index,
    responses: facts.responseCount,
    ...(r.at !== undefined ? { at: r.at } : {}),
    ...(r.preview !== undefined ? { preview: r.preview } : {}),
  };
}
