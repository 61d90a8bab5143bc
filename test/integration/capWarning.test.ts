import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { projectDir } from '../../src/core/conversation/projectKey';
import type { EngramApi } from '../../src/extension';
import type { InspectorController } from '../../src/vscode/inspector/inspectorController';
import {
  engram,
  freshChat,
  inspectorInBothThemes,
  openInspector,
  refreshUntil,
  sendFromUi,
  useTestServer,
} from './support';
import { ui, waitUntil } from './ui';

// The warning before MEMORY.md is full, in the real host: a memory folder of 165 index lines (past 80%
// of the 200-line cap) with use counts, the inspector's banner with its figures and each entry's use
// count, screenshots in a light and a dark theme, "Prune least used…" through VS Code's quick pick (the
// never-used entries come out first, just enough of them to get under the mark) and its Undo, and the
// chat saying it once per session with a button that opens the memory pane.

const LINES = 165;
/** Never recalled or read: what "Prune least used" takes first (six lines get 165 under 160). */
const NEVER_USED = [10, 20, 30, 40, 50, 60];

const workspace = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
const memoryDir = () => path.join(projectDir(process.env.ENGRAM_DATA_DIR!, workspace()), 'memory');
const indexFile = () => path.join(memoryDir(), 'MEMORY.md');
const fileOf = (i: number) => `topic_${String(i).padStart(3, '0')}.md`;

function seed(): void {
  const dir = memoryDir();
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const types = ['user', 'feedback', 'project', 'reference'];
  const lines: string[] = [];
  const entries: Record<string, { recalls: number; reads: number; lastUsed: string }> = {};
  for (let i = 1; i <= LINES; i++) {
    const type = types[i % 4];
    fs.writeFileSync(
      path.join(dir, fileOf(i)),
      `---\nname: Entry ${i}\ndescription: Entry ${i} in one line\ntype: ${type}\n---\n\nEntry ${i}: the rule.\n`,
    );
    lines.push(`- [Entry ${i}](${fileOf(i)}) — hook of entry ${i}`);
    if (!NEVER_USED.includes(i))
      entries[fileOf(i)] = { recalls: i - 1, reads: 1, lastUsed: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString() };
  }
  fs.writeFileSync(indexFile(), `${lines.join('\n')}\n`);
  fs.writeFileSync(path.join(dir, '.usage.json'), JSON.stringify({ version: 1, entries }));
}

/** The banner's figures for MEMORY.md as it is on disk. */
function figures(): string {
  const text = fs.readFileSync(indexFile(), 'utf8');
  const kb = Buffer.byteLength(text) / 1000;
  return `${text.trimEnd().split('\n').length} of 200 lines, ${kb.toFixed(1)} of 25 KB`;
}

/** VS Code shows no notifications while extension tests run: the inspector's Undo offer is declined here. */
function declineUndoNotifications(api: EngramApi): { asked: string[]; restore: () => void } {
  const asked: string[] = [];
  const controller = api.inspector()!.source as InspectorController;
  const restore = controller.replacePromptsForTests({
    confirm: async (message) => {
      asked.push(`confirm: ${message}`);
      return false;
    },
    offerUndo: async (message) => {
      asked.push(`undo: ${message}`);
      return false;
    },
  });
  return { asked, restore };
}

/** Opens the inspector on the seeded folder and clicks a banner button, up to its quick pick; the Undo offers are declined. */
async function openCapPick(
  button: string,
  title: string,
): Promise<{ api: EngramApi; before: Buffer; prompts: ReturnType<typeof declineUndoNotifications> }> {
  const api = await engram();
  await openInspector(api);
  const before = fs.readFileSync(indexFile());
  await refreshUntil(api, '#cap-figures', `${LINES} of 200 lines`);
  const prompts = declineUndoNotifications(api);
  try {
    await ui.click('inspector', button);
    await ui.workbenchText(`.quick-input-widget .quick-input-title:has-text("${title}")`);
  } catch (error) {
    prompts.restore();
    throw error;
  }
  return { api, before, prompts };
}

suite('memory cap warning', () => {
  const server = useTestServer();

  suiteSetup(seed);
  suiteTeardown(async () => {
    await vscode.workspace
      .getConfiguration('workbench')
      .update('colorTheme', undefined, vscode.ConfigurationTarget.Global);
    (await engram()).inspector()?.dispose();
    (await engram()).chat().newChat();
    fs.rmSync(memoryDir(), { recursive: true, force: true });
  });

  test('[ui] cap warning: past 80% the memory pane shows the figures, the use counts, and looks right in light and dark', async () => {
    const api = await engram();
    await openInspector(api);
    const shown = await refreshUntil(api, '#cap-figures', `${LINES} of 200 lines`);
    assert.equal(shown, figures());
    assert.match(await ui.text('inspector', '#cap-banner'), /MEMORY\.md is nearly full.*Past 80% of a cap/);
    assert.equal(await ui.evaluate('inspector', "document.getElementById('cap-banner').dataset.level"), 'near');
    assert.equal(await ui.count('inspector', '#cap-prune'), 1);
    assert.equal(await ui.count('inspector', '#cap-merge'), 1);
    // Each row says how often its memory was used; the tooltip says when last.
    assert.equal(await ui.text('inspector', `[data-file="${fileOf(7)}"] .entry-uses`), 'used 7×');
    assert.match(
      await ui.evaluate<string>('inspector', `document.querySelector('[data-file="${fileOf(7)}"] .entry-uses').title`),
      /^Recalled or read 7 times; last used 20\d\d-\d\d-\d\d /,
    );
    assert.equal(await ui.text('inspector', `[data-file="${fileOf(10)}"] .entry-uses`), 'never used');
    assert.match(
      await ui.evaluate<string>(
        'inspector',
        `document.querySelector('[data-file="${fileOf(7)}"]').getAttribute('aria-label')`,
      ),
      /, used 7×$/,
    );

    await inspectorInBothThemes('cap-warning', 'memory-section');
  });

  test('[ui] cap warning: "Prune least used" prunes the never-used entries until the banner goes, and Undo brings them back', async () => {
    const { api, before, prompts } = await openCapPick('#cap-prune', 'Prune least used memories');
    try {
      // Least used first, with the fewest that get MEMORY.md under the mark already checked: accept them.
      const first = await ui.workbenchText('.quick-input-widget .monaco-list-row');
      assert.match(first ?? '', /Entry 60.*never used/);
      await ui.press('Enter');
      // Each prune takes the line out, then moves the file: the batch is done when the status says so.
      await ui.waitForText('inspector', '#inspector-status', 'Pruned 6 memories, least used first');
      await waitUntil(
        'the never-used entries to leave MEMORY.md',
        () => !fs.readFileSync(indexFile(), 'utf8').includes(fileOf(10)),
      );
      const index = fs.readFileSync(indexFile(), 'utf8');
      for (const i of NEVER_USED) {
        assert.ok(!index.includes(`(${fileOf(i)})`), `${fileOf(i)} is still indexed`);
        assert.ok(!fs.existsSync(path.join(memoryDir(), fileOf(i))), `${fileOf(i)} is still there`);
      }
      assert.equal(index.trimEnd().split('\n').length, LINES - NEVER_USED.length, 'only as many as needed');
      assert.ok(index.includes(`(${fileOf(7)})`));
      await ui.waitForText('inspector', '#inspector-status', 'Pruned 6 memories, least used first');
      assert.deepEqual(prompts.asked, [
        'undo: Pruned 6 memories: their lines left MEMORY.md and the files are in the trash.',
      ]);
      await api.inspector()!.refresh();
      await waitUntil('the banner to go', async () => (await ui.count('inspector', '#cap-banner')) === 0);
      await ui.waitForText('inspector', '#memory-summary', `MEMORY.md ${LINES - 6} of 200 lines`);
      await ui.screenshot('cap-warning-pruned');

      // One Undo puts all six back, byte for byte.
      await ui.click('inspector', '#status-undo');
      await waitUntil('MEMORY.md to be as it was', () => fs.readFileSync(indexFile()).equals(before));
      for (const i of NEVER_USED)
        assert.ok(fs.existsSync(path.join(memoryDir(), fileOf(i))), `${fileOf(i)} is not back`);
      await ui.waitForText('inspector', '#inspector-status', 'Restored 6 memories');
      assert.equal(await refreshUntil(api, '#cap-figures', `${LINES} of 200 lines`), figures());
    } finally {
      prompts.restore();
    }
  });

  test('[ui] cap warning: "Merge…" combines two memories of one type into the first one\'s file, and Undo takes it back', async () => {
    const { before, prompts } = await openCapPick('#cap-merge', 'Merge memories');
    try {
      // Entries 4 and 8 are both of type user. Clicking a row's label checks it; the filter finds each.
      for (const title of ['Entry 4', 'Entry 8']) {
        await ui.fillWorkbench('.quick-input-widget input', title);
        const first = '.quick-input-widget .monaco-list-row[data-index="0"]';
        await waitUntil(`"${title}" first in the list`, async () =>
          new RegExp(`^${title.replace(/\s+/g, '')}user`).test(
            ((await ui.workbenchText(first)) ?? '').replace(/\s+/g, ''),
          ),
        );
        await ui.clickWorkbench(`${first} label.quick-input-list-label`);
      }
      await ui.fillWorkbench('.quick-input-widget input', '');
      await ui.press('Enter');
      // Done when the status says so (the merge writes the first file, then prunes the others).
      await ui.waitForText('inspector', '#inspector-status', 'Merged 2 memories into "Entry 4"');
      await waitUntil(
        'entry 8 to leave MEMORY.md',
        () => !fs.readFileSync(indexFile(), 'utf8').includes(`(${fileOf(8)})`),
      );
      const merged = fs.readFileSync(path.join(memoryDir(), fileOf(4)), 'utf8');
      assert.match(merged, /^---\nname: Entry 4\n/, 'the first keeps its front matter');
      assert.match(merged, /Entry 4: the rule\.[\s\S]*Entry 8: the rule\./);
      assert.ok(!fs.existsSync(path.join(memoryDir(), fileOf(8))));
      assert.equal(fs.readFileSync(indexFile(), 'utf8').trimEnd().split('\n').length, LINES - 1);
      // The merged file opens beside the inspector, whose status line has the Undo.
      await waitUntil(
        'the merged file in an editor',
        () => vscode.window.activeTextEditor?.document.uri.fsPath === path.join(memoryDir(), fileOf(4)),
      );
      await ui.waitForText('inspector', '#inspector-status', 'Merged 2 memories into "Entry 4"');
      await ui.click('inspector', '#status-undo');
      await waitUntil('MEMORY.md to be as it was', () => fs.readFileSync(indexFile()).equals(before));
      assert.ok(fs.existsSync(path.join(memoryDir(), fileOf(8))));
      assert.doesNotMatch(fs.readFileSync(path.join(memoryDir(), fileOf(4)), 'utf8'), /Entry 8/);
    } finally {
      prompts.restore();
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    }
  });

  test('[ui] cap warning: the chat says it once per session, and its button opens the memory pane', async () => {
    const api = await freshChat();
    api.inspector()?.dispose();
    server().setResponder(() => ({ content: [{ type: 'text', text: 'Noted.' }] }));
    for (const prompt of ['first question', 'second question']) {
      const before = api.chat().snapshot().items.length;
      await sendFromUi(prompt);
      await waitUntil(
        `"${prompt}" to be answered`,
        () => api.chat().snapshot().items.length > before && !api.chat().snapshot().busy,
        30_000,
      );
    }
    await api.chat().idleForTests();
    const notices = api
      .chat()
      .snapshot()
      .items.filter((i) => i.kind === 'notice' && i.text.startsWith('MEMORY.md is past 80% of its cap'));
    assert.equal(
      notices.length,
      1,
      JSON.stringify(
        api
          .chat()
          .snapshot()
          .items.filter((i) => i.kind === 'notice'),
      ),
    );
    assert.equal(
      notices[0].kind === 'notice' && notices[0].text,
      `MEMORY.md is past 80% of its cap (${figures()}). Prune or merge memories before entries get cut.`,
    );
    await ui.waitForText('chat', '.item-notice', 'MEMORY.md is past 80% of its cap');
    assert.equal(await ui.count('chat', '.item-notice .notice-action vscode-button'), 1);
    await ui.screenshot('cap-warning-chat');
    await ui.click('chat', '.item-notice .notice-action vscode-button');
    await waitUntil('the inspector to open', () => api.inspector() !== undefined);
    await ui.waitForText('inspector', '#cap-figures', `${LINES} of 200 lines`);
  });

  test('[ui] cap warning: the team\'s MEMORY.md has its own banner, and its "Prune least used" prunes team entries', async () => {
    const api = await engram();
    const team = path.join(memoryDir(), 'team');
    fs.mkdirSync(team, { recursive: true });
    const lines: string[] = [];
    for (let i = 1; i <= 170; i++) {
      fs.writeFileSync(
        path.join(team, `shared_${i}.md`),
        `---\nname: Shared ${i}\ndescription: Shared fact ${i}\ntype: project\n---\n\nShared fact ${i}.\n`,
      );
      lines.push(`- [Shared ${i}](shared_${i}.md) — shared fact ${i}`);
    }
    fs.writeFileSync(path.join(team, 'MEMORY.md'), `${lines.join('\n')}\n`);
    const privateBefore = fs.readFileSync(indexFile());
    await openInspector(api);
    await refreshUntil(api, '#team-cap-figures', '170 of 200 lines');
    assert.match(await ui.text('inspector', '#team-cap-banner'), /The team's MEMORY\.md is nearly full/);
    const prompts = declineUndoNotifications(api);
    try {
      await ui.click('inspector', '#team-cap-prune');
      await ui.workbenchText('.quick-input-widget .quick-input-title:has-text("Prune least used memories")');
      await ui.press('Enter');
      // None was ever used: the later lines go first, just enough to get under 160.
      await ui.waitForText('inspector', '#inspector-status', 'Pruned 11 memories, least used first');
      await waitUntil(
        'team entries to leave the team index',
        () => fs.readFileSync(path.join(team, 'MEMORY.md'), 'utf8').trimEnd().split('\n').length === 159,
      );
      assert.ok(!fs.existsSync(path.join(team, 'shared_170.md')));
      assert.ok(fs.existsSync(path.join(team, 'shared_1.md')));
      assert.ok(fs.readFileSync(indexFile()).equals(privateBefore), 'the private index is untouched');
      await api.inspector()!.refresh();
      await waitUntil('the team banner to go', async () => (await ui.count('inspector', '#team-cap-banner')) === 0);
      assert.equal(await ui.count('inspector', '#cap-banner'), 1, 'the private banner stays');
    } finally {
      prompts.restore();
      fs.rmSync(team, { recursive: true, force: true });
    }
  });
});
