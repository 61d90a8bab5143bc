import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { CHAT_TO_HOST_SHAPES, type ChatToHost, type HostToChat } from '../../src/protocol/messages';
import { WebviewChannel } from '../../src/vscode/webviewChannel';
import { waitUntil } from './ui';

suite('webview protocol', () => {
  test('messages of unknown type or wrong shape are rejected and logged; the host keeps working', async () => {
    const panel = vscode.window.createWebviewPanel('engram.test.protocol', 'Protocol test', vscode.ViewColumn.Active, {
      enableScripts: true,
    });
    const warnings: string[] = [];
    const pings: string[] = [];
    const logger = { info() {}, warn: (m: string) => warnings.push(m), error: (m: string) => warnings.push(m) };
    const channel = new WebviewChannel<ChatToHost, HostToChat>(
      panel.webview,
      'test',
      CHAT_TO_HOST_SHAPES,
      {
        ready() {},
        send() {
          throw new Error('a malformed send must never reach its handler');
        },
        stop() {},
        newChat() {},
        permission() {},
        listSessions() {},
        resume() {},
        runCommand() {},
        openPath() {},
        notRelevant() {},
        pin() {},
        retry() {},
        editLast() {},
        rewind() {},
        openTurnDiff() {},
        codeAction() {},
        findFiles() {},
        setup() {},
        ping: (m) => {
          pings.push(m.text);
        },
      },
      logger,
    );
    const nonce = randomBytes(16).toString('base64');
    // This page posts what a compromised or buggy webview might: garbage first, then one valid ping.
    panel.webview.html = `<!DOCTYPE html><html><head>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'nonce-${nonce}';"></head><body>
<script nonce="${nonce}">
const api = acquireVsCodeApi();
api.postMessage({ type: 'bogus' });
api.postMessage({ type: 'send', text: 42 });
api.postMessage({ type: 'send', text: 'x', extra: true });
api.postMessage('not an object');
api.postMessage(null);
api.postMessage({ type: 'permission', requestId: 'r', choice: 'sudo' });
api.postMessage({ type: 'ping', requestId: '1', text: 'still alive' });
</script></body></html>`;
    try {
      await waitUntil('the valid ping after the bad messages', () => pings.length === 1);
      assert.equal(channel.rejected, 6);
      assert.equal(warnings.filter((w) => w.includes('rejected a message')).length, 6);
      assert.ok(
        warnings.some((w) => w.includes('unknown message type "bogus"')),
        warnings.join('\n'),
      );
      assert.ok(
        warnings.some((w) => w.includes('send.text: expected a string')),
        warnings.join('\n'),
      );
      assert.deepEqual(pings, ['still alive']);
    } finally {
      channel.dispose();
      panel.dispose();
    }
  });
});
