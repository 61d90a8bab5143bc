import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { freshChat, sendFromUi, useSettings, useTestServer } from './support';
import { ui, waitUntil } from './ui';

// One settings owner: changing the window or a mark in VS Code's settings moves the status bar, the
// chat's gauge, the inspector's gauge and the orchestrator's next decision together, at once (no turn
// in between). The reported usage drives the context size, as in real use.

const usage = { input_tokens: 9_000, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };

suite('settings', () => {
  const testServer = useTestServer();
  useSettings([
    ['engram.memory', 'extraction.enabled', false],
    ['engram.sessionNotes', 'enabled', false],
  ]);

  teardown(async () => {
    const config = vscode.workspace.getConfiguration('engram');
    await config.update('contextWindow', undefined, vscode.ConfigurationTarget.Global);
    await config.update('compaction.microcompactPercent', undefined, vscode.ConfigurationTarget.Global);
  });

  test('[ui] a changed window or mark moves the status bar, chat gauge, inspector and next compaction together', async function () {
    this.timeout(120_000);
    const api = await freshChat();
    testServer().setResponder(() => ({ content: [{ type: 'text', text: 'Nine thousand tokens in.' }], usage }));
    await sendFromUi('How full is the context?');
    await ui.waitForText('chat', '.item-assistant', 'Nine thousand tokens in.', 20_000);
    await waitUntil('the gauge to count the reply', () => api.chat().gauge().usedTokens >= 9_010);
    assert.equal(api.statusBar.text, '$(pulse) 5%');
    assert.equal(api.chat().nextCompaction(), 'none');
    await vscode.commands.executeCommand('engram.openInspector');
    await ui.waitForText('inspector', '#gauge-percent', '5%', 20_000);

    const config = vscode.workspace.getConfiguration('engram');
    await config.update('contextWindow', 12_000, vscode.ConfigurationTarget.Global);
    await waitUntil('the status bar to follow the window', () => api.statusBar.text === '$(pulse) 75%');
    assert.equal(api.chat().snapshot().gauge.window, 12_000);
    assert.notEqual(api.chat().nextCompaction(), 'none', '75% is past the 60% mark');
    await waitUntil('the chat gauge to follow', async () =>
      (
        await ui.evaluate<string>('chat', "document.querySelector('.gauge-bar')?.getAttribute('aria-label') ?? ''")
      ).includes('75%'),
    );
    await ui.waitForText('inspector', '#gauge-percent', '75%', 20_000);

    // Raising the microcompact mark past the usage: no stage is due, and the mark moves in every view.
    await config.update('compaction.microcompactPercent', 78, vscode.ConfigurationTarget.Global);
    await waitUntil('the orchestrator to take the new mark', () => api.chat().nextCompaction() === 'none');
    assert.deepEqual(api.chat().snapshot().gauge.marks, [78, 80, 100]);
    await waitUntil(
      'the inspector marks',
      async () =>
        JSON.stringify(
          await ui.evaluate(
            'inspector',
            "[...document.querySelectorAll('#gauge-section .gauge-mark')].map((m) => m.dataset.mark)",
          ),
        ) === '["78","80","100"]',
    );
    await waitUntil(
      'the chat marks',
      async () =>
        JSON.stringify(
          await ui.evaluate('chat', "[...document.querySelectorAll('.gauge-mark')].map((m) => m.dataset.mark)"),
        ) === '["78","80","100"]',
    );

    // A mark out of order is not taken as is: the marks stay rising, in the gauge and for compaction alike.
    await config.update('compaction.microcompactPercent', 95, vscode.ConfigurationTarget.Global);
    await waitUntil(
      'the out-of-order mark to fall back',
      () => JSON.stringify(api.chat().snapshot().gauge.marks) === '[60,80,100]',
    );
    assert.notEqual(api.chat().nextCompaction(), 'none');
  });
});
