import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { projectDir } from '../../src/core/conversation/projectKey';
import { sessionNotesPaths } from '../../src/core/memory/sessionNotes/paths';
import type { ScriptedReply } from '../../src/testServer/anthropicTestServer';
import { topicText, writeFile } from '../unit/inspection/inspectorFixtures';
import {
  answerBackground,
  engram,
  freshChat,
  inThemes,
  openInspector,
  refreshUntil,
  sendFromUi,
  useTestServer,
} from './support';
import { ui, waitUntil } from './ui';

// Spoofed names (issue: "what a newcomer still trips on", item 2): a right-to-left override makes
// `file<RLO>gpj.exe` read "fileexe.jpg", and a zero-width space hides in a title. Memories come from the
// model and from teammates, so every surface shows such characters as a visible `<U+202E>`: the user's
// message, a Glob result, the reply, Earlier sessions, the session notes, and the memory tree, whose row
// and details flag the entry. Screenshots of the chat and the inspector in a light and a dark theme.

const RLO = '\u202E';
const ZWSP = '\u200B';
const SPOOFED = `file${RLO}gpj.exe`;

const workspace = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
const memoryDir = () => path.join(projectDir(process.env.ENGRAM_DATA_DIR!, workspace()), 'memory');

/** The raw characters still in a view's text (none may be left), and how many marks show them. */
async function hiddenIn(
  view: 'chat' | 'inspector',
  selector: string,
): Promise<{ raw: boolean; marks: string[] } | null> {
  return ui.evaluate(
    view,
    `(() => {
    const el = document.querySelector(${JSON.stringify(selector)});
    if (!el) return null;
    return { raw: /[\\u061C\\u200B-\\u200F\\u202A-\\u202E\\u2060\\u2066-\\u2069\\uFEFF]/.test(el.textContent), marks: [...el.querySelectorAll('.hidden-char')].map((m) => m.textContent) };
  })()`,
  );
}

suite('spoofed names', () => {
  const server = useTestServer();

  suiteSetup(() => {
    fs.rmSync(memoryDir(), { recursive: true, force: true });
    writeFile(
      path.join(memoryDir(), 'MEMORY.md'),
      `- [Invoice ${SPOOFED}](invoice.md) — open${ZWSP} the attachment first\n`,
    );
    writeFile(path.join(memoryDir(), 'invoice.md'), topicText(`Invoice ${SPOOFED}`, 'reference'));
    fs.writeFileSync(path.join(workspace(), SPOOFED), 'not a picture\n');
  });

  suiteTeardown(async () => {
    await vscode.workspace
      .getConfiguration('workbench')
      .update('colorTheme', undefined, vscode.ConfigurationTarget.Global);
    server().setResponder(undefined);
    (await engram()).inspector()?.dispose();
    (await engram()).chat().newChat();
    fs.rmSync(memoryDir(), { recursive: true, force: true });
    fs.rmSync(path.join(workspace(), SPOOFED), { force: true });
  });

  test('[ui] spoofed names: bidi controls and zero-width characters show as <U+XXXX> in the chat, the notes and the memory tree, which flags the entry', async () => {
    const api = await freshChat();
    server().setResponder((body): ScriptedReply => {
      const background = answerBackground(body);
      if (background) return background;
      const answered = body.messages.some(
        (m) => Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_result'),
      );
      return answered
        ? { content: [{ type: 'text', text: `Found \`${SPOOFED}\`: an executable, whatever its name says.` }] }
        : { content: [{ type: 'tool_use', name: 'Glob', input: { pattern: '*.exe' } }] };
    });
    await sendFromUi(`Is ${SPOOFED} a picture?`);
    await ui.waitForText('chat', '.item-assistant', 'an executable', 45_000);
    await waitUntil('the turn to end', () => !api.chat().snapshot().busy, 30_000);
    await api.chat().idleForTests();
    for (const selector of ['.item-user .item-text', '.item-tool .tool-result', '.item-assistant .markdown']) {
      assert.deepEqual(
        await hiddenIn('chat', selector),
        { raw: false, marks: ['<U+202E>'] },
        `${selector}: ${await ui.evaluate<string>('chat', `document.querySelector('${selector}')?.outerHTML`)}`,
      );
    }
    await ui.evaluate('chat', "document.querySelector('.item-tool').setAttribute('open', '')");
    await inThemes('chat', async (kind) => {
      await ui.screenshot(`spoofed-chat-${kind}`);
    });

    // The session notes: the override would reverse the rest of the paragraph.
    const sessionId = api.chat().snapshot().sessionId!;
    const notes = sessionNotesPaths(process.env.ENGRAM_DATA_DIR!, workspace(), sessionId).summary;
    writeFile(
      notes,
      `# Current State\n_What is in progress right now_\nRenamed ${SPOOFED} and this sentence must still read left to right.\n`,
    );
    await openInspector(api);
    await refreshUntil(api, '#notes-section', 'must still read');
    assert.deepEqual(await hiddenIn('inspector', '.notes-section[aria-label="Current State"]'), {
      raw: false,
      marks: ['<U+202E>'],
    });

    // The memory tree: title and hook written out, the row flagged, the details say why.
    await refreshUntil(api, '#memory-tree', 'Invoice');
    const row = '[data-file="invoice.md"]';
    assert.deepEqual(await hiddenIn('inspector', `${row} .entry-title`), { raw: false, marks: ['<U+202E>'] });
    assert.deepEqual(await hiddenIn('inspector', `${row} .entry-hook`), { raw: false, marks: ['<U+200B>'] });
    assert.equal(await ui.text('inspector', `${row} .badge-hidden`), 'hidden characters');
    assert.match(
      await ui.evaluate<string>('inspector', `document.querySelector('${row} .badge-hidden').title`),
      /<U\+202E> <U\+200B>/,
    );
    assert.match(
      await ui.evaluate<string>('inspector', `document.querySelector('${row}').getAttribute('aria-label')`),
      /<U\+202E>.*hidden characters/,
    );
    await ui.click('inspector', `${row} > .tree-row`);
    assert.match(
      await ui.text('inspector', '#entry-hidden-chars'),
      /holds <U\+202E> <U\+200B>: characters that reverse or hide text/,
    );
    assert.deepEqual(await hiddenIn('inspector', '#entry-details'), { raw: false, marks: ['<U+202E>', '<U+200B>'] });
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
    await inThemes('inspector', async (kind) => {
      // The notes and the memory pane, one above the other.
      await ui.evaluate('inspector', "document.getElementById('notes-section').scrollIntoView({ block: 'start' })");
      await ui.screenshot(`spoofed-notes-memory-${kind}`);
    });
    await vscode.commands.executeCommand('workbench.action.toggleSidebarVisibility');

    // Earlier sessions, from a new chat: the first prompt is the session's title.
    await freshChat();
    await ui.click('chat', 'vscode-button[title="Resume an earlier session"]');
    await ui.waitForText('chat', '.chat-sessions', 'a picture');
    assert.deepEqual(await hiddenIn('chat', `.chat-session[data-session="${sessionId}"] .chat-session-title`), {
      raw: false,
      marks: ['<U+202E>'],
    });
  });
});
