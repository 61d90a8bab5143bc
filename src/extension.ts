import * as vscode from 'vscode';
import { ChatViewProvider, CHAT_VIEW_ID } from './vscode/chat/chatView';
import { ChatSession } from './vscode/chat/chatSession';
import { InspectorPanel } from './vscode/inspector/inspectorPanel';
import { openMemoryInspector } from './vscode/inspector/openInspector';
import { createOutputLogger } from './vscode/outputLogger';
import { ContextStatusBar } from './vscode/statusBar';
import { registerApiKeyCommands } from './vscode/apiKey';
import { TeamMemoryCommands } from './vscode/teamMemory';
import { disposeOfflineDemo, registerModelCommands } from './vscode/modelSetup';
import { settingsStore, watchSettings } from './vscode/settings';
import { registerLmTools } from './vscode/lmTools';
import { closeMcpHubs } from './vscode/mcp/mcpServers';
import { disposeMemoryHealthWatch, memoryHealthWatch } from './vscode/memoryHealthWatch';
import { replaceMcpPromptsForTests, type McpPrompts } from './vscode/mcp/mcpPrompts';
import { MemoryTidy } from './vscode/memoryTidy';
import { registerRewindCommands } from './vscode/checkpoints/rewindCommands';
import { replaceRewindPromptsForTests, type RewindPrompts } from './vscode/checkpoints/rewindPrompts';

/** Set by the bundle's first and last lines (see esbuild.mjs), so activation time includes loading the bundle. */
declare const __engramLoadStart: number | undefined;
declare const __engramLoadEnd: number | undefined;

/** What activate() returns: a small surface for integration tests and other extensions. */
export interface EngramApi {
  readonly activationMs: number;
  readonly chatView: ChatViewProvider;
  readonly statusBar: ContextStatusBar;
  chat(): ChatSession;
  inspector(): InspectorPanel | undefined;
  /** TEST-ONLY HOOK: answers the MCP approval modal and input boxes (VS Code refuses modals in tests). */
  replaceMcpPromptsForTests(prompts: McpPrompts): () => void;
  /** TEST-ONLY HOOK: answers a rewind's modal, notifications and pick of conflict files (issue 33). */
  replaceRewindPromptsForTests(prompts: RewindPrompts): () => void;
}

export function activate(context: vscode.ExtensionContext): EngramApi {
  const started = performance.now();
  const loadMs =
    typeof __engramLoadStart === 'number' && typeof __engramLoadEnd === 'number'
      ? __engramLoadEnd - __engramLoadStart
      : 0;
  const logger = createOutputLogger();
  const statusBar = new ContextStatusBar();
  // The session (and with it the model client and tokenizer) is built on first use, not at activation.
  let session: ChatSession | undefined;
  const chat = (): ChatSession => {
    if (!session) {
      session = new ChatSession(context, logger);
      session.onEvent((m) => {
        if (m.type === 'gauge' || m.type === 'snapshot') statusBar.update(session?.gauge());
      });
      session.onTeamSync((report) => team.announce(report));
      context.subscriptions.push(session);
      // With engram.memory.tidyCadence "daily": counts this session, prepares a tidy for review when due.
      void tidy.prepareInBackground().catch((e: unknown) => logger.warn(`Memory tidy: ${String(e)}`));
    }
    return session;
  };
  // Built after chat(), which only runs later (the session tells it of every team sync).
  const team = new TeamMemoryCommands(context, chat, statusBar, logger);
  const tidy = new MemoryTidy(context, logger);
  const chatView = new ChatViewProvider(context.extensionUri, chat, logger);
  // A changed window or mark moves the status bar at once, with or without a chat open.
  const showLastTeamSync = () =>
    void team
      .showLastSync()
      .catch((e: unknown) => logger.warn(`Team memory: could not read the last sync: ${String(e)}`));
  const offSettings = settingsStore().onChange(() => {
    statusBar.update(session?.gauge());
    showLastTeamSync();
  });
  // After activation (it loads the engine chunk): the tooltip tells the last team sync of this workspace.
  const lastSyncTimer = setTimeout(showLastTeamSync, 0);
  const openInspector = () => openMemoryInspector(context, chat(), logger);

  context.subscriptions.push(
    logger,
    statusBar,
    tidy,
    watchSettings(logger),
    { dispose: offSettings },
    { dispose: () => clearTimeout(lastSyncTimer) },
    chatView,
    vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, chatView, {
      webviewOptions: { retainContextWhenHidden: true },
    }),
    // The chat's `/memory` names a pane to show.
    vscode.commands.registerCommand('engram.openInspector', (pane?: unknown) => {
      const panel = openInspector();
      if (['gauge', 'notes', 'memory', 'timeline', 'health'].includes(pane as string))
        panel.revealPane(pane as 'gauge' | 'notes' | 'memory' | 'timeline' | 'health');
    }),
    // The inspector's Health view, checked again now (the chat's stale-memory line opens it too).
    vscode.commands.registerCommand('engram.checkMemoryHealth', () => {
      openInspector().revealPane('health');
      return memoryHealthWatch(logger).recheck();
    }),
    { dispose: disposeMemoryHealthWatch },
    // The MCP servers a session may use: each with its status, tools and cost, approved or turned off there.
    vscode.commands.registerCommand('engram.manageMcpServers', () => openInspector().revealPane('mcp')),
    // The chat's "memories wait for review" line: the inspector at its review queue.
    vscode.commands.registerCommand('engram.reviewMemories', () => openInspector().revealPane('review')),
    vscode.commands.registerCommand('engram.focusChat', () => vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`)),
    vscode.commands.registerCommand('engram.newChat', () => chat().newChat()),
    vscode.commands.registerCommand('engram.remember', async (text?: unknown) => {
      const what =
        typeof text === 'string'
          ? text
          : await vscode.window.showInputBox({
              title: vscode.l10n.t('Engram: Remember'),
              prompt: vscode.l10n.t('What should Engram remember in this project? It is saved as a memory file.'),
              ignoreFocusOut: true,
            });
      if (!what?.trim()) return;
      await vscode.commands.executeCommand('engram.focusChat');
      await chat().remember(what);
    }),
    vscode.commands.registerCommand('engram.showLog', () => logger.show()),
    vscode.commands.registerCommand('engram.compactNow', () => chat().compact('auto')),
    vscode.commands.registerCommand('engram.microcompact', () => chat().compact('micro')),
    vscode.commands.registerCommand('engram.compactWithNotes', () => chat().compact('session-memory')),
    vscode.commands.registerCommand('engram.fullCompact', async (focus?: unknown) => {
      const text =
        typeof focus === 'string'
          ? focus
          : await vscode.window.showInputBox({
              title: vscode.l10n.t('Engram: Full Compact'),
              prompt: vscode.l10n.t('Optional: what the summary should focus on. Leave empty for a general summary.'),
              ignoreFocusOut: true,
            });
      if (text === undefined) return false;
      return chat().compact('full', text.trim() || undefined);
    }),
    vscode.commands.registerCommand('engram.undoCompaction', () => chat().undoLastCompaction()),
    vscode.commands.registerCommand('engram.applyCompactionPreview', () => chat().compactions.apply()),
    vscode.commands.registerCommand('engram.cancelCompactionPreview', () => chat().compactions.cancel()),
    ...registerApiKeyCommands(context),
    ...registerModelCommands(),
    ...team.register(),
    ...registerLmTools(),
    ...registerRewindCommands(chat),
  );

  const activateMs = performance.now() - started;
  const activationMs = loadMs + activateMs;
  logger.info(
    `Engram activated in ${activationMs.toFixed(1)} ms ` +
      `(bundle ${loadMs.toFixed(1)} ms, activate() ${activateMs.toFixed(1)} ms)`,
  );
  return {
    activationMs,
    chatView,
    statusBar,
    chat,
    inspector: () => InspectorPanel.instance,
    replaceMcpPromptsForTests,
    replaceRewindPromptsForTests,
  };
}

/**
 * Everything else is disposed through context.subscriptions; the demo server is a module-level one, and
 * every MCP server child of an open session is ended here too (the window may close mid-session).
 */
export async function deactivate(): Promise<void> {
  await Promise.all([disposeOfflineDemo(), closeMcpHubs()]);
}
