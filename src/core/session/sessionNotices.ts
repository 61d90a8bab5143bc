// What a session tells a person, in words (the Chat view's line, the CLI's stderr): each function turns
// one engine event into a notice, English text plus the template and arguments a host translates, or
// undefined when the event is not worth a line.
import type { OrchestratorEvent } from '../compaction/orchestrator';
import type { AutoMemoryEvent } from '../memory/autoMemory/extraction';
import type { SessionNotesEvent } from '../memory/sessionNotes/events';
import { say, type NoticeLevel, type NoticeWords } from './sessionEvents';

export interface Notice {
  level: NoticeLevel;
  text: string;
  words: NoticeWords;
  /** A file the line links to. */
  file?: { label: string; path: string };
}

const STAGE_NAMES: Record<string, string> = {
  micro: 'microcompact',
  'session-memory': 'session notes',
  full: 'full summary',
  reactive: 'recovery',
};

/** What a person is told about a compaction, in words (the Chat view's line, the CLI's stderr). */
export function compactionNotice(event: OrchestratorEvent): Notice | undefined {
  switch (event.type) {
    case 'compacted': {
      const e = event.event;
      const how = `${STAGE_NAMES[e.stage] ?? e.stage}${e.trigger === 'manual' ? '' : `, ${e.trigger}`}`;
      const [before, after] = [e.tokensBefore.toLocaleString('en-US'), e.tokensAfter.toLocaleString('en-US')];
      return {
        level: 'info',
        ...(e.modelCalls === 1
          ? say('Context compacted ({0}): {1} → {2} tokens, 1 model call.', how, before, after)
          : say('Context compacted ({0}): {1} → {2} tokens, {3} model calls.', how, before, after, e.modelCalls)),
      };
    }
    case 'failed':
      return {
        level: 'warning',
        ...say('Compaction ({0}) failed: {1}', STAGE_NAMES[event.stage] ?? event.stage, event.reason),
      };
    case 'autoCompactionStopped':
      return {
        level: 'error',
        ...say(
          'Automatic compaction stopped after {0} failures in a row ({1}). Compact by hand or start a new chat.',
          event.failures,
          event.reason,
        ),
      };
    case 'undone':
      return { level: 'info', ...say('The last compaction was undone: the replaced messages are back.') };
    default:
      return undefined;
  }
}

const RECALLED_ONE = 'Recalled 1 memory for this message.';
const RECALLED_MANY = 'Recalled {0} memories for this message.';

const STALE_CAVEAT = 'Stale memories attached with a caveat (what they name no longer exists): {0}.';
const STALE_SKIPPED = 'Stale memories left out (what they name no longer exists; engram.memory.staleRecall): {0}.';

/** The recall notices' templates: a host that lists the recalled memories itself leaves these lines out. */
export function isRecallNotice(template: string): boolean {
  return [RECALLED_ONE, RECALLED_MANY, STALE_CAVEAT, STALE_SKIPPED].includes(template);
}

/** Recalled memories that name what no longer exists: attached with a caveat, or left out (issue 32). */
export function staleRecallNotices(event: AutoMemoryEvent): Notice[] {
  if (event.type !== 'memoryRecalled') return [];
  const named = (xs: ReadonlyArray<{ file: string; stale?: string[] }>): string =>
    xs.map((x) => `${x.file}: ${(x.stale ?? []).join(', ')}`).join('; ');
  const caveat = (event.matched ?? []).filter((m) => m.stale && m.stale.length > 0);
  const out: Notice[] = [];
  if (caveat.length > 0) out.push({ level: 'warning', ...say(STALE_CAVEAT, named(caveat)) });
  if (event.skipped?.length) out.push({ level: 'warning', ...say(STALE_SKIPPED, named(event.skipped)) });
  return out;
}

/** A saved or recalled memory. */
export function memoryNotice(event: AutoMemoryEvent): Notice | undefined {
  if (event.type === 'memorySaved') {
    const words =
      event.by === 'user'
        ? say('Memory saved: {0}', event.title)
        : say('Memory saved in the background: {0}', event.title);
    return { level: 'info', ...words, file: { label: 'Open', path: event.file } };
  }
  if (event.type === 'memoryRecalled' && event.files.length > 0) {
    return {
      level: 'info',
      ...(event.files.length === 1 ? say(RECALLED_ONE) : say(RECALLED_MANY, event.files.length)),
    };
  }
  return undefined;
}

/** Session notes written, updated, or not. */
export function notesNotice(event: SessionNotesEvent): Notice | undefined {
  const file = { label: 'Open notes', path: event.path };
  if (event.type === 'notesUpdated') {
    const tokens = event.tokens.toLocaleString('en-US');
    const words =
      event.kind === 'init'
        ? event.condensed
          ? say('Session notes written: {0} tokens (condensed to stay under its caps).', tokens)
          : say('Session notes written: {0} tokens.', tokens)
        : event.condensed
          ? say('Session notes updated: {0} tokens (condensed to stay under its caps).', tokens)
          : say('Session notes updated: {0} tokens.', tokens);
    return { level: 'info', ...words, file };
  }
  if (event.type === 'notesUpdateFailed')
    return { level: 'warning', ...say('Session notes could not be updated: {0}', event.error), file };
  return undefined;
}
