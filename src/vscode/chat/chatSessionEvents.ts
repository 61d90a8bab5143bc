// How the open session's events show in a chat window: agent events become chat items and the busy line,
// engine notices are said in the user's language, compaction events reach the feedback, and whatever the
// inspector or the team view shows is told it changed. Apart from ChatSession so that a new event kind
// changes this file only.
import * as vscode from 'vscode';
import type { SessionEvent } from '../../core/host/sessions';
import { isRecallNotice } from '../../core/host/conversationDisplay';
import { recalledMemories } from './chatItems';
import { showPinMarks } from './chatPins';
import type { ChatWindow } from './chatWindow';
import { SESSION_MCP_NOTICES, showMcpEvent } from './mcpNotices';

/** The parts of a chat window the session's events reach. */
export type SessionEventView = Pick<
  ChatWindow,
  'items' | 'feedback' | 'setBusy' | 'postGauge' | 'postSnapshot' | 'inspectorChanged' | 'teamSynced'
>;

export function showSessionEvent(event: SessionEvent, view: SessionEventView): void {
  switch (event.type) {
    case 'agent': {
      const e = event.event;
      view.items.onAgentEvent(e);
      // A wait for another process's turn is over once this one starts.
      if (e.type === 'turnStart') view.setBusy(true);
      if (e.type === 'retrying')
        view.setBusy(
          true,
          vscode.l10n.t(
            '{0} Retrying in {1} s (attempt {2} of {3}).',
            e.reason,
            Math.ceil(e.delayMs / 1000),
            e.attempt,
            e.maxRetries,
          ),
        );
      break;
    }
    case 'notice': {
      // The engine says it in English and hands over the template; the bundle says it in the user's
      // language. Recalled memories show as their own line under the prompt (the 'memory' event).
      if (event.words && isRecallNotice(event.words.template)) break;
      // The chat says the session's MCP events its own way (mcpNotices.ts), once.
      if (event.words && SESSION_MCP_NOTICES.has(event.words.template)) break;
      const text = event.words ? vscode.l10n.t(event.words.template, ...event.words.args) : event.text;
      const file = event.file ? { ...event.file, label: vscode.l10n.t(event.file.label) } : undefined;
      view.items.notice(event.level, text, event.action, file);
      break;
    }
    case 'compaction':
      view.feedback.onEvent(event.event);
      if (event.event.type === 'undone') view.inspectorChanged();
      break;
    case 'context':
      view.postGauge();
      break;
    case 'memory':
      if (event.event.type === 'memoryRecalled') view.items.recall(recalledMemories(event.event));
      if (event.event.type === 'memoryPending') {
        if (view.items.reviewWaiting(event.event.waiting)) view.postSnapshot();
        view.inspectorChanged();
      }
      break;
    case 'timeline':
    case 'settings':
      view.inspectorChanged();
      break;
    case 'pins':
      showPinMarks(view.items, event.pins);
      view.inspectorChanged();
      break;
    case 'mcp':
      showMcpEvent(event.event, view);
      break;
    case 'teamSync':
      view.teamSynced(event.report);
      view.inspectorChanged();
      break;
    default:
      break;
  }
}
