import * as vscode from 'vscode';
import type { Logger } from '../../core/host/sessions';
import { InspectorPanel } from './inspectorPanel';
import type { InspectorChat } from './inspectorContext';
import { InspectorController } from './inspectorController';
import { InspectorDocuments } from './inspectorDocuments';

let documents: InspectorDocuments | undefined;

/** `engram.openInspector`: the Memory Inspector on the current session (revealed when already open). */
export function openMemoryInspector(
  context: vscode.ExtensionContext,
  chat: InspectorChat,
  logger: Logger,
): InspectorPanel {
  const open = InspectorPanel.instance;
  if (open) {
    open.panel.reveal();
    return open;
  }
  if (!documents) {
    documents = new InspectorDocuments();
    context.subscriptions.push(documents, {
      dispose: () => {
        documents = undefined;
      },
    });
  }
  const controller = new InspectorController(chat, documents, logger);
  const panel = InspectorPanel.show(context.extensionUri, controller, logger);
  panel.panel.onDidDispose(() => controller.dispose());
  return panel;
}
