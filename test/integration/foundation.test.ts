import assert from 'node:assert/strict';
import fs from 'node:fs';
import * as vscode from 'vscode';
import type { EngramApi } from '../../src/extension';
import { ui, waitUntil } from './ui';

const EXTENSION_ID = 'engram-dev.engram';

async function api(): Promise<EngramApi> {
  const ext = vscode.extensions.getExtension<EngramApi>(EXTENSION_ID);
  assert.ok(ext, `${EXTENSION_ID} is not installed in the host`);
  return ext.activate();
}

suite('foundation', () => {
  test('the extension activates in the real host, lazily and quickly', async () => {
    const ext = vscode.extensions.getExtension<EngramApi>(EXTENSION_ID)!;
    const engram = await ext.activate();
    assert.equal(ext.isActive, true);
    assert.ok(engram.activationMs > 0 && engram.activationMs < 2000, `activation took ${engram.activationMs} ms`);
    const commands = await vscode.commands.getCommands(true);
    for (const id of ['engram.openInspector', 'engram.newChat', 'engram.setApiKey', 'engram.focusChat']) {
      assert.ok(commands.includes(id), `command ${id} is not registered`);
    }
    assert.match(engram.statusBar.text, /\$\(pulse\) \d+%/);
    if (process.env.ENGRAM_BENCH_OUT)
      fs.writeFileSync(process.env.ENGRAM_BENCH_OUT, JSON.stringify({ activationMs: engram.activationMs }));
  });

  test('every command is in the "Engram" category', () => {
    const pkg = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as {
      contributes: { commands: Array<{ command: string; category?: string }> };
    };
    for (const c of pkg.contributes.commands) assert.equal(c.category, 'Engram', `${c.command} has no Engram category`);
  });

  test('[ui] the Chat view opens and its webview renders, read inside the iframe', async () => {
    const engram = await api();
    await vscode.commands.executeCommand('engram.newChat');
    await vscode.commands.executeCommand('engram.focusChat');
    await waitUntil('the chat view to resolve', () => engram.chatView.view !== undefined);
    const title = await ui.text('chat', '.chat-empty h2');
    assert.equal(title.trim(), 'Engram');
    await ui.screenshot('chat');
  });

  test('[ui] a command run from the command palette reaches the host and opens the inspector', async () => {
    const engram = await api();
    engram.inspector()?.dispose();
    await ui.palette('Engram: Open Memory Inspector');
    await waitUntil('the inspector panel to open', () => engram.inspector() !== undefined);
    const heading = await ui.text('inspector', 'h1');
    assert.equal(heading.trim(), 'Memory Inspector');
    assert.match(await ui.text('inspector', '#notes-section'), /Session notes/);
    await ui.screenshot('inspector');
  });

  test('[ui] protocol round trip: a prompt typed in the webview reaches the host and comes back as an item', async () => {
    const engram = await api();
    await vscode.commands.executeCommand('engram.focusChat');
    await waitUntil('the chat view to resolve', () => engram.chatView.view !== undefined);
    await ui.fill('chat', '#prompt', 'round trip 7f3a');
    await ui.press('Enter');
    await ui.waitForText('chat', '.item-user', 'round trip 7f3a');
    const items = engram.chat().snapshot().items;
    assert.ok(
      items.some((i) => i.kind === 'user' && i.text === 'round trip 7f3a'),
      'the host did not record the prompt',
    );
  });
});
