// Shared steps of the integration tests that talk to the agent: the extension's API, the Chat view,
// and the project's Anthropic-compatible test server started inside the extension host.
import * as vscode from 'vscode';
import { SUMMARY_REQUEST_MARKER } from '../../src/core/compaction/summaryPrompt';
import { EXTRACTION_MARKER } from '../../src/core/memory/autoMemory/memoryPrompts';
import type { MessagesRequestBody, ScriptedReply } from '../../src/testServer/anthropicTestServer';
import { startTestServer, type TestServer, type TestServerOptions } from '../../src/testServer/anthropicTestServer';
import type { EngramApi } from '../../src/extension';
import { ui, waitUntil } from './ui';

export async function engram(): Promise<EngramApi> {
  return vscode.extensions.getExtension<EngramApi>('engram-dev.engram')!.activate();
}

/** A new chat in a visible Chat view. */
export async function freshChat(): Promise<EngramApi> {
  const api = await engram();
  api.chat().newChat();
  await vscode.commands.executeCommand('engram.focusChat');
  await waitUntil('the chat view', () => api.chatView.view !== undefined);
  return api;
}

/** Types a prompt into the Chat view and presses Enter, as a person would. */
export async function sendFromUi(text: string): Promise<void> {
  await ui.fill('chat', '#prompt', text);
  await ui.press('Enter');
}

/**
 * Starts a test server for a suite (with `options`, e.g. the clouds' credentials it accepts) and points the
 * extension at it (the extension reads ANTHROPIC_BASE_URL / ANTHROPIC_API_KEY when it opens a session, and
 * tests share its process).
 */
export function useTestServer(options: TestServerOptions = {}): () => TestServer {
  let server: TestServer | undefined;
  suiteSetup(async () => {
    server = await startTestServer(options);
    process.env.ANTHROPIC_BASE_URL = server.url;
    process.env.ANTHROPIC_API_KEY = 'test-key';
  });
  suiteTeardown(async () => {
    server?.setResponder(undefined);
    await server?.close();
  });
  return () => {
    if (!server) throw new Error('the test server has not started');
    return server;
  };
}

/** The text of the request's last user message (where forks put their instruction). */
export function lastUserText(body: MessagesRequestBody): string {
  const last = body.messages[body.messages.length - 1];
  if (typeof last.content === 'string') return last.content;
  return last.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
}

/**
 * Plain answers for the background forks (memory extraction, a compaction summary, a notes update), so a
 * responder scripts only the main turn: undefined when `body` is a main turn.
 */
export function answerBackground(body: MessagesRequestBody): ScriptedReply | undefined {
  const text = lastUserText(body);
  if (text.includes(EXTRACTION_MARKER)) return { content: [{ type: 'text', text: 'Nothing new.' }] };
  if (text.includes(SUMMARY_REQUEST_MARKER))
    return { content: [{ type: 'text', text: '<summary>\n## Next step\nNone.\n</summary>' }] };
  if (text.includes('<engram-session-notes-update>')) return { content: [{ type: 'text', text: 'Notes are fine.' }] };
  return undefined;
}

/** Sets `engram.*` settings (user scope) for a suite and puts them back after it. */
export function useSettings(settings: Array<[section: string, key: string, value: unknown]>): void {
  suiteSetup(async () => {
    for (const [section, key, value] of settings)
      await vscode.workspace.getConfiguration(section).update(key, value, vscode.ConfigurationTarget.Global);
  });
  suiteTeardown(async () => {
    for (const [section, key] of settings)
      await vscode.workspace.getConfiguration(section).update(key, undefined, vscode.ConfigurationTarget.Global);
  });
}

/** `/compact` with the preview on, a small recent window kept, and a model-written summary. */
export const SUMMARY_PREVIEW_SETTINGS: Array<[string, string, unknown]> = [
  ['engram.compaction', 'preview', true],
  ['engram.compaction', 'keepMinTokens', 50],
  ['engram.compaction', 'keepMaxTokens', 1_000],
  ['engram.compaction', 'keepMinTextMessages', 2],
  // Without notes `/compact` asks the model for a summary (the stage that takes a while and is worth reading).
  ['engram.sessionNotes', 'enabled', false],
  ['engram.memory', 'extraction.enabled', false],
];

/** Opens the Memory Inspector and waits until its webview has drawn. */
export async function openInspector(api: EngramApi): Promise<void> {
  await vscode.commands.executeCommand('engram.openInspector');
  await waitUntil('the inspector panel', () => api.inspector() !== undefined);
  // The first snapshot draws the sections below the fold a moment later; #app is aria-busy until then.
  await ui.text('inspector', '#app[aria-busy="false"] #gauge-section');
}

/** Asks the host for a fresh snapshot and waits until the inspector shows `text` in `selector`. */
export async function refreshUntil(
  api: EngramApi,
  selector: string,
  text: string,
  timeoutMs = 20_000,
): Promise<string> {
  await api.inspector()!.refresh();
  return ui.waitForText('inspector', selector, text, timeoutMs);
}

/**
 * Screenshots of the inspector with the sidebar closed, in a light and a dark theme: each shot is taken
 * once the webview has the theme and `sectionId` is scrolled to the top, and is named `<name>-<kind>`.
 * The sidebar comes back afterwards; the theme is left for the suite's teardown to reset.
 */
export async function inspectorInBothThemes(name: string, sectionId: string): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.closeSidebar');
  await inThemes('inspector', async (kind) => {
    await ui.evaluate(
      'inspector',
      `document.getElementById(${JSON.stringify(sectionId)}).scrollIntoView({ block: 'start' })`,
    );
    const shot = await ui.screenshot(`${name}-${kind}`);
    if (shot.bytes <= 10_000) throw new Error(`${shot.file} is too small (${shot.bytes} bytes)`);
  });
  await vscode.commands.executeCommand('workbench.action.toggleSidebarVisibility');
}

/**
 * Runs `shot` once in a light and once in a dark theme, after the webview `view` shows the theme; the
 * theme is left for the suite's teardown (or the caller) to reset.
 */
export async function inThemes(
  view: 'chat' | 'inspector',
  shot: (kind: 'light' | 'dark') => Promise<void>,
): Promise<void> {
  for (const [theme, kind] of [
    ['Default Light Modern', 'light'],
    ['Default Dark Modern', 'dark'],
  ] as const) {
    await vscode.workspace.getConfiguration('workbench').update('colorTheme', theme, vscode.ConfigurationTarget.Global);
    await waitUntil(
      `the ${kind} theme`,
      async () => (await ui.evaluate<boolean>(view, `document.body.classList.contains('vscode-${kind}')`)) === true,
    );
    await shot(kind);
  }
}

/**
 * Screenshots of the workbench with the chat view in a light and a dark theme, named `<name>-<kind>`,
 * each taken once the chat webview has the theme; the theme is reset afterwards.
 */
export async function chatInBothThemes(name: string): Promise<void> {
  await inThemes('chat', async (kind) => {
    const shot = await ui.screenshot(`${name}-${kind}`);
    if (shot.bytes <= 10_000) throw new Error(`${shot.file} is too small (${shot.bytes} bytes)`);
  });
  await vscode.workspace
    .getConfiguration('workbench')
    .update('colorTheme', undefined, vscode.ConfigurationTarget.Global);
}
