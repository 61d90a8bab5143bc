// The timeline's compaction actions: the messages a compaction replaced (for the details pane and the
// diff editor) and undoing the newest one. Only compactions the last snapshot listed are acted on; the
// replaced messages come from the transcript, by the live event's ids or the boundary's line range.
import * as vscode from 'vscode';
import type { CompactionEvent } from '../../core/host/inspector';
import type { InspectorSnapshot, TimelineView } from '../../protocol/messages';
import { loadEngine } from '../loadEngine';
import { canUndoCompactions } from './compactionControl';
import type { InspectorChat } from './inspectorContext';
import type { InspectorDocuments } from './inspectorDocuments';
import type { InspectorSourceState } from './sourcePicker';

type CompactionView = Extract<TimelineView, { kind: 'compaction' }>;
type Report = { text: string; level: 'info' | 'warning' | 'error' };

export interface CompactionsHost {
  readonly chat: InspectorChat;
  readonly docs: InspectorDocuments;
  source(): InspectorSourceState;
  last(): InspectorSnapshot | undefined;
  refreshNow(): void;
}

export class InspectorCompactions {
  constructor(private readonly host: CompactionsHost) {}

  /** The replaced messages as text (the transcript keeps them; the conversation no longer does). */
  async replaced(id: string): Promise<Array<{ role: string; text: string }>> {
    const transcript = this.transcriptPath();
    const item = this.compaction(id);
    if (!transcript || !item) return [];
    return loadEngine().inspector.replacedMessages(transcript, id, this.liveEvent(id));
  }

  async openDiff(id: string): Promise<void> {
    const item = this.compaction(id);
    if (!item) return;
    const engine = loadEngine().inspector;
    const messages = await this.replaced(id);
    const left = this.host.docs.text(`compaction/${id}/replaced.md`, engine.replacedDocument(messages));
    const right = this.host.docs.text(
      `compaction/${id}/summary.md`,
      item.summary ??
        vscode.l10n.t('(this compaction wrote no summary: {0} tool results were trimmed in place)', item.trimmed),
    );
    const title = vscode.l10n.t('Compaction ({0}, {1}): replaced messages ↔ summary', item.stage, item.trigger);
    await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: true });
  }

  async undo(id: string): Promise<Report> {
    const item = this.compaction(id);
    const chat = this.host.chat;
    if (!item?.undoable || this.host.source().kind !== 'current' || !canUndoCompactions(chat)) {
      return {
        text: vscode.l10n.t('Only the newest compaction of the current session can be undone.'),
        level: 'warning',
      };
    }
    try {
      const ok = await chat.undoLastCompaction();
      this.host.refreshNow();
      return ok
        ? {
            text: vscode.l10n.t('Compaction undone: the replaced messages are back in the conversation.'),
            level: 'info',
          }
        : { text: vscode.l10n.t('This compaction can no longer be undone.'), level: 'warning' };
    } catch (error) {
      return { text: String(error instanceof Error ? error.message : error), level: 'error' };
    }
  }

  private compaction(id: string): CompactionView | undefined {
    const item = this.host.last()?.timeline.find((t) => t.kind === 'compaction' && t.id === id);
    return item?.kind === 'compaction' ? item : undefined;
  }

  private liveEvent(id: string): CompactionEvent | undefined {
    if (this.host.source().kind !== 'current') return undefined;
    const hit = this.host.chat.inspectorContext().timeline.find((t) => t.kind === 'compaction' && t.event.id === id);
    return hit?.kind === 'compaction' ? hit.event : undefined;
  }

  private transcriptPath(): string | undefined {
    const source = this.host.source();
    if (source.kind === 'current') return this.host.chat.inspectorContext().transcriptPath;
    if (!source.sessionId) return undefined;
    const engine = loadEngine().inspector;
    return engine.sessionPaths(engine.sourceProjectDir(source), source.sessionId).transcript;
  }
}
