import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { projectDir } from '../../src/core/conversation/projectKey';
import type { ScriptedReply } from '../../src/testServer/anthropicTestServer';
import { answerBackground, engram, freshChat, sendFromUi, useTestServer } from './support';
import { ui, waitUntil } from './ui';

// Text that was cut (issue: "what a newcomer still trips on", item 3), in the Chat view at the default
// sidebar width: underscores in inline code, long unbroken paths and lines (they wrap), the end of the
// chat after a reply (the token line in view), the model button's label, and the Earlier sessions row
// (its date whole, and the time of the last message rather than the file's). Screenshots in both themes.

const THEMES = [
  ['Default Light Modern', 'light'],
  ['Default Dark Modern', 'dark'],
] as const;
const FILE = 'feedback_prefer_tabs_spaces.md';
const LONG_PATH = `/home/someone/projects/${'a-very-long-folder-name-without-spaces/'.repeat(5)}${FILE}`;
const LONG_LINE = `const table = [${Array.from({ length: 40 }, (_, i) => `'entry_${i}'`).join(',')}];`;
const REPLY = `Saved \`${FILE}\` in the memory folder.\n\nIt lives at ${LONG_PATH} and \`${LONG_PATH}\`.\n\n\`\`\`js\n${LONG_LINE}\n\`\`\`\n\nDone.`;

const workspace = () => vscode.workspace.workspaceFolders![0].uri.fsPath;

interface Layout {
  overflowing: string[];
  scrollWidth: number;
  clientWidth: number;
  bottomGap: number;
  turnVisible: boolean;
}

/** What sticks out of the chat column, how far the list is from its end, and whether the token line shows. */
async function layout(): Promise<Layout> {
  return ui.evaluate<Layout>(
    'chat',
    `(() => {
    const list = document.querySelector('.chat-items');
    const right = list.getBoundingClientRect().right;
    const overflowing = [...list.querySelectorAll('*')].filter((el) => el.getBoundingClientRect().right > right + 0.5 && !el.closest('pre'))
      .map((el) => el.tagName.toLowerCase() + '.' + el.className);
    const turns = list.querySelectorAll('.item-turn');
    const turn = turns[turns.length - 1].getBoundingClientRect();
    const box = list.getBoundingClientRect();
    return { overflowing, scrollWidth: list.scrollWidth, clientWidth: list.clientWidth,
      bottomGap: Math.round(list.scrollHeight - list.scrollTop - list.clientHeight), turnVisible: turn.bottom <= box.bottom + 0.5 && turn.top >= box.top };
  })()`,
  );
}

/** Whether an element's text is cut (by an ellipsis or overflow): inside a toolkit button, its shadow part. */
async function cut(selector: string, shadowPart?: string): Promise<{ text: string; cut: boolean }> {
  return ui.evaluate(
    'chat',
    `(() => {
    const host = document.querySelector(${JSON.stringify(selector)});
    const el = ${shadowPart ? `host.shadowRoot.querySelector(${JSON.stringify(shadowPart)})` : 'host'};
    const r = el.getBoundingClientRect();
    const parent = (host.closest('.chat-session') ?? host.parentElement).getBoundingClientRect();
    return { text: host.textContent.trim(), cut: el.scrollWidth > el.clientWidth + 0.5 || r.right > parent.right + 0.5 };
  })()`,
  );
}

suite('clipped text', () => {
  const server = useTestServer();

  suiteTeardown(async () => {
    await vscode.workspace
      .getConfiguration('workbench')
      .update('colorTheme', undefined, vscode.ConfigurationTarget.Global);
    server().setResponder(undefined);
    (await engram()).chat().newChat();
  });

  test('[ui] clipped text: inline code keeps its underscores, long paths and lines wrap, the token line shows, the model and the session date are whole', async () => {
    const api = await freshChat();
    server().setResponder((body): ScriptedReply => {
      const background = answerBackground(body);
      if (background) return background;
      return { content: [{ type: 'text', text: REPLY }] };
    });
    await sendFromUi(`remember that I prefer tabs over spaces, see ${LONG_PATH}`);
    await ui.waitForText('chat', '.item-assistant', 'Done.', 45_000);
    await waitUntil('the turn to end', () => !api.chat().snapshot().busy, 30_000);
    await api.chat().idleForTests();
    await ui.waitForText('chat', '.item-turn', ' in ');

    // Underscores: the text keeps them, and no code background (painted line by line) reaches into the line
    // above it, where it covered the underscores, which hang below the text.
    const code = await ui.evaluate<{ texts: string[]; covering: string[] }>(
      'chat',
      `(() => {
      const reply = document.querySelectorAll('.item-assistant .markdown');
      const md = reply[reply.length - 1];
      const covering = [];
      const texts = [...md.querySelectorAll('code')].map((c) => c.textContent);
      for (const c of md.querySelectorAll('code')) {
        if (/^(transparent|rgba\\(0, 0, 0, 0\\))$/.test(getComputedStyle(c).backgroundColor)) continue;
        const block = c.closest('p, pre, li');
        const walker = document.createTreeWalker(block, NodeFilter.SHOW_TEXT);
        const lines = [];
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          const range = document.createRange();
          range.selectNodeContents(n);
          lines.push(...range.getClientRects());
        }
        for (const f of c.getClientRects()) {
          for (const t of lines) {
            const above = t.top < f.top - 2 && t.left < f.right && t.right > f.left;
            if (above && t.bottom > f.top + 0.5) covering.push(c.textContent.slice(0, 30) + ': ' + (t.bottom - f.top).toFixed(1) + ' px');
          }
        }
      }
      return { texts, covering };
    })()`,
    );
    assert.ok(code.texts.includes(FILE), code.texts.join(' | '));
    assert.deepEqual(code.covering, [], 'a code background covers the line above');

    await waitUntil('the list to settle at its end', async () => (await layout()).bottomGap <= 1, 5_000).catch(
      () => undefined,
    );
    const shown = await layout();
    assert.deepEqual(shown.overflowing, [], 'nothing sticks out of the chat column');
    assert.ok(
      shown.scrollWidth <= shown.clientWidth,
      `no sideways scroll: ${shown.scrollWidth} > ${shown.clientWidth}`,
    );
    assert.equal(shown.bottomGap <= 1, true, `the chat ends at its bottom, not ${shown.bottomGap} px short`);
    assert.equal(shown.turnVisible, true, 'the token line is in view');

    const model = await cut('#model-picker', '.content');
    assert.equal(model.cut, false, `the model button reads "${model.text}" in full`);

    for (const [, kind] of THEMES) {
      await vscode.workspace
        .getConfiguration('workbench')
        .update('colorTheme', THEMES.find(([, k]) => k === kind)![0], vscode.ConfigurationTarget.Global);
      await waitUntil(
        `the ${kind} theme`,
        async () => (await ui.evaluate<boolean>('chat', `document.body.classList.contains('vscode-${kind}')`)) === true,
      );
      await ui.screenshot(`clipped-chat-${kind}`);
    }

    // Earlier sessions: the file's mtime moved (a copy, a backup) does not change the date shown.
    const sessionId = api.chat().snapshot().sessionId!;
    const transcript = path.join(projectDir(process.env.ENGRAM_DATA_DIR!, workspace()), `${sessionId}.jsonl`);
    const lines = fs
      .readFileSync(transcript, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; timestamp?: string });
    const last = [...lines].reverse().find((l) => (l.type === 'user' || l.type === 'assistant') && l.timestamp)!;
    const past = new Date('2020-01-02T03:04:05Z');
    fs.utimesSync(transcript, past, past);
    await freshChat();
    await ui.click('chat', 'vscode-button[title="Resume an earlier session"]');
    const row = `.chat-session[data-session="${sessionId}"]`;
    await ui.waitForText('chat', row, 'remember');
    assert.equal(
      await ui.evaluate<string>('chat', `document.querySelector('${row} time').getAttribute('datetime')`),
      new Date(last.timestamp!).toISOString(),
    );
    const date = await cut(`${row} .chat-session-date`);
    assert.equal(date.cut, false, `the date reads "${date.text}" in full`);
    for (const [theme, kind] of THEMES) {
      await vscode.workspace
        .getConfiguration('workbench')
        .update('colorTheme', theme, vscode.ConfigurationTarget.Global);
      await waitUntil(
        `the ${kind} theme`,
        async () => (await ui.evaluate<boolean>('chat', `document.body.classList.contains('vscode-${kind}')`)) === true,
      );
      await ui.screenshot(`clipped-sessions-${kind}`);
    }
  });
});
