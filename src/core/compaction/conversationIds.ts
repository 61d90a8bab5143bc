// The transcript ids behind the messages an agent holds (it keeps API messages only): assistant
// message ids as they stream in, and line uuids read back from the transcript when a compaction needs
// them (to name what it replaced, to reference kept lines, and for the notes' cursor).
import type { TranscriptWriter } from '../conversation/transcriptWriter';
import type { ApiMessage } from '../conversation/types';
import type { Logger } from '../ports';
import { alignEntries, loadTranscriptView, type TranscriptView } from './transcriptView';
import type { CompactionEntry } from './types';

export class ConversationIds {
  private readonly messageIds = new WeakMap<ApiMessage, string>();

  constructor(private readonly logger: Logger) {}

  /** The response with this id is `message`. */
  noteResponse(message: ApiMessage, id: string): void {
    if (id) this.messageIds.set(message, id);
  }

  /** Entries with the ids known without reading anything (message ids seen live). */
  known(messages: readonly ApiMessage[]): CompactionEntry[] {
    return messages.map((message) => {
      const id = this.messageIds.get(message);
      return { message, uuids: [], messageIds: id ? [id] : [] };
    });
  }

  /** Entries with line uuids from the transcript; without them when it cannot be read or does not match. */
  async withLines(
    messages: readonly ApiMessage[],
    writer: TranscriptWriter | undefined,
  ): Promise<{ entries: CompactionEntry[]; view: TranscriptView | undefined }> {
    const known = this.known(messages);
    if (!writer) return { entries: known, view: undefined };
    try {
      await writer.flush();
      const view = await loadTranscriptView(writer.file);
      const aligned = alignEntries(messages, view.entries);
      if (!aligned) {
        this.logger.warn(
          'The transcript does not match the conversation in memory; compaction goes on without line ids.',
        );
        return { entries: known, view: undefined };
      }
      const entries = aligned.map((e, i) =>
        e.messageIds.length > 0 || known[i].messageIds.length === 0 ? e : { ...e, messageIds: known[i].messageIds },
      );
      return { entries, view };
    } catch (e) {
      this.logger.error('Could not read the transcript for compaction', e);
      return { entries: known, view: undefined };
    }
  }

  /** The view's lines, read again when lines were written since (e.g. a microcompact line just before). */
  async linesUpTo(
    writer: TranscriptWriter,
    view: TranscriptView | undefined,
    tail: string,
  ): Promise<TranscriptView['lines'] | undefined> {
    if (view?.lines.some((l) => l.uuid === tail)) return view.lines;
    try {
      await writer.flush();
      return (await loadTranscriptView(writer.file)).lines;
    } catch {
      return undefined;
    }
  }
}
