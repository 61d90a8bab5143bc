import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { engram, inThemes, openInspector } from './support';
import { ui } from './ui';

// Issue 31: a 100 KB line in the session notes made the inspector 54,000 px tall. A notes section's
// blocks are clipped as a tool result is in the chat: a long one scrolls inside a box of its own. The
// section body is drawn with the inspector's own stylesheet, the page as it is in the host.

suite('inspector notes with a very long line', () => {
  suiteTeardown(async () => {
    await vscode.workspace
      .getConfiguration('workbench')
      .update('colorTheme', undefined, vscode.ConfigurationTarget.Global);
  });

  test('[ui] a 100 KB line in a notes section scrolls inside its block instead of stretching the page', async () => {
    const api = await engram();
    await openInspector(api);
    // The section is the test's own, added to the drawn page: a later snapshot (the Health check finishing,
    // a theme change) draws the notes pane again without it, so it is added again before each picture.
    const inject = `(() => {
        const section = document.createElement('article');
        section.className = 'notes-section';
        section.id = 'long-line-notes';
        const body = document.createElement('div');
        body.className = 'markdown notes-section-body';
        const p = document.createElement('p');
        p.textContent = 'x'.repeat(100000);
        const q = document.createElement('p');
        q.textContent = 'A short line stays as it is.';
        body.append(p, q);
        section.append(body);
        document.getElementById('notes-section').append(section);
        return { block: p.getBoundingClientRect().height, body: body.getBoundingClientRect().height,
          scrolls: p.scrollHeight > p.clientHeight };
      })()`;
    const sizes = await ui.evaluate<{ block: number; body: number; scrolls: boolean }>('inspector', inject);
    assert.ok(sizes.block <= 400, `the long line's block is ${sizes.block} px tall`);
    assert.ok(sizes.scrolls, 'the rest of the line is a scroll away');
    assert.ok(sizes.body < 600, `the section is ${sizes.body} px tall`);
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
    await inThemes('inspector', async (kind) => {
      await ui.evaluate(
        'inspector',
        `(() => { if (!document.getElementById('long-line-notes')) ${inject};
          document.getElementById('long-line-notes').scrollIntoView({ block: 'start' }); })()`,
      );
      const shot = await ui.screenshot(`notes-long-line-${kind}`);
      assert.ok(shot.bytes > 10_000, `${shot.file} is too small`);
    });
    await vscode.commands.executeCommand('workbench.action.toggleSidebarVisibility');
  });
});
