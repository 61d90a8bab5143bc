import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { engram, freshChat, inThemes, openInspector, refreshUntil, sendFromUi } from './support';
import { ui, waitUntil } from './ui';

// The offline demo as a newcomer meets it (issue 31): the README's first hour has them type
// `explain @src/greet.js`, which the demo used to answer with "I did not understand" and its tour; now it
// reads the file with its Read tool and explains it. And the demo is free: its cost line showed dollar
// prices; in the chat header and the inspector it now shows tokens and says "free (offline demo)". Then a
// manual /compact at 1% of the window: the timeline's summary said the conversation "grew too long" and
// quoted the last reply with two full stops ("`tabs indentation`.."); it says the user chose to compact.
// Screenshots in a light and a dark theme, and in the zh-cn phase once more in Simplified Chinese.

const workspace = () => vscode.workspace.workspaceFolders![0].uri.fsPath;

function demoSuite(tag: string, zh: boolean): void {
  suite(`offline demo, explain and free${tag}`, function () {
    this.timeout(180_000);
    const saved: Record<string, string | undefined> = {};

    suiteSetup(async () => {
      // The demo in the settings, as "Keep the offline demo" leaves it; no key (other suites set one).
      for (const key of ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL']) {
        saved[key] = process.env[key];
        delete process.env[key];
      }
      await vscode.workspace.getConfiguration('engram').update('offlineDemo', true, vscode.ConfigurationTarget.Global);
      // /compact applies at once (the preview has tests of its own).
      await vscode.workspace
        .getConfiguration('engram.compaction')
        .update('preview', false, vscode.ConfigurationTarget.Global);
      // The sample workspace's greet.js as it ships (other suites edit it).
      fs.copyFileSync(
        path.join(process.env.ENGRAM_REPO_ROOT!, 'test', 'fixtures', 'workspace', 'src', 'greet.js'),
        path.join(workspace(), 'src', 'greet.js'),
      );
    });

    suiteTeardown(async () => {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
      await vscode.workspace
        .getConfiguration('workbench')
        .update('colorTheme', undefined, vscode.ConfigurationTarget.Global);
      await vscode.workspace
        .getConfiguration('engram')
        .update('offlineDemo', undefined, vscode.ConfigurationTarget.Global);
      await vscode.workspace
        .getConfiguration('engram.compaction')
        .update('preview', undefined, vscode.ConfigurationTarget.Global);
      const api = await engram();
      api.inspector()?.dispose();
      api.chat().newChat();
    });

    test(`[ui]${tag} the demo explains the README's @src/greet.js with its Read tool, and its cost line shows no prices`, async () => {
      const api = await freshChat();
      // As a person types it: the @ list offers the file, Enter takes it, Enter sends.
      const typed = zh ? '解释 @src/greet.js' : 'explain @src/greet.js';
      await ui.fill('chat', '#prompt', typed);
      await ui.waitForText('chat', '#mentions', 'src/greet.js', 20_000);
      await ui.press('Enter');
      await waitUntil(
        'the file taken from the list',
        async () => (await ui.evaluate<string>('chat', "document.getElementById('prompt').value")) === `${typed} `,
      );
      await ui.press('Enter');
      await waitUntil(
        'the demo to answer',
        () =>
          api
            .chat()
            .snapshot()
            .items.some((i) => i.kind === 'assistant') && !api.chat().snapshot().busy,
        60_000,
      );
      const explained = zh
        ? /src\/greet\.js 是一个 JavaScript 文件，共 5 行[\s\S]*greet\(name\)[\s\S]*Hello, \$\{name\}![\s\S]*导出了 greet/
        : /src\/greet\.js is a JavaScript file of 5 lines[\s\S]*one function, greet\(name\), which returns `?Hello, \$\{name\}!`?[\s\S]*exports greet/;
      const lastReply = () =>
        ui.evaluate<string>('chat', "[...document.querySelectorAll('.item-assistant')].pop()?.textContent ?? ''");
      await waitUntil('the explanation in the chat', async () => explained.test(await lastReply()), 30_000).catch(
        async (e: Error) => assert.fail(`${e.message}: ${await lastReply()}`),
      );
      assert.doesNotMatch(await lastReply(), /did not understand|没有理解/);
      const read = api
        .chat()
        .snapshot()
        .items.find((i) => i.kind === 'tool' && i.name === 'Read');
      assert.ok(read && read.kind === 'tool' && read.status === 'done', 'the demo read the file with its Read tool');
      assert.match(read.input, /src\/greet\.js/);

      // The cost line: tokens, "free", and no dollar figure anywhere in it or its tooltip.
      const free = zh ? '免费（离线演示）' : 'free (offline demo)';
      const chatLine = await ui.waitForText('chat', '#chat-cache-cost', free, 20_000);
      assert.match(
        chatLine,
        zh
          ? /有效时 ≈ [\d.]+K? 词元 · 失效时 ≈ [\d.]+K? 词元 · 免费/
          : /warm ≈ [\d.]+K? tokens · cold ≈ [\d.]+K? tokens · free/,
      );
      const tip = await ui.evaluate<string>('chat', "document.getElementById('chat-cache-cost').title");
      for (const text of [chatLine, tip]) assert.doesNotMatch(text, /\$|price unknown|价格未知/);
      await openInspector(api);
      const pane = await ui.waitForText('inspector', '#inspector-cache-cost', free, 20_000);
      assert.doesNotMatch(pane, /\$|price unknown|价格未知/);

      // One picture shows both: the chat beside the inspector, its gauge pane at the top.
      const shoot = async (kind: string): Promise<void> => {
        await ui.evaluate('inspector', "document.getElementById('gauge-section').scrollIntoView({ block: 'start' })");
        const shot = await ui.screenshot(`demo-explain-free-${kind}`);
        assert.ok(shot.bytes > 10_000, `${shot.file} is too small`);
      };
      if (zh) await shoot('zh-cn');
      else await inThemes('chat', shoot);
    });

    test(`[ui]${tag} a manual /compact at 1% says the user chose to compact, and the summary ends its sentences once`, async () => {
      const api = await engram();
      // A search that finds nothing: the reply ends with a full stop, which the summary quotes.
      const before = api.chat().snapshot().items.length;
      await sendFromUi(zh ? '搜索 tabs indentation' : 'search for tabs indentation');
      await waitUntil(
        'the search to be answered',
        () => api.chat().snapshot().items.length > before + 2 && !api.chat().snapshot().busy,
        60_000,
      );
      await api.chat().idleForTests();
      // With a focus, /compact writes a summary (the demo's, from the conversation).
      await sendFromUi('/compact the search');
      await ui.waitForText('chat', '.item-notice', zh ? '上下文已压缩' : 'Context compacted', 60_000);
      await openInspector(api);
      await refreshUntil(api, '#timeline-list', zh ? '压缩' : 'Compaction');
      await ui.evaluate(
        'inspector',
        "[...document.querySelectorAll('.timeline-compaction .timeline-button')].pop().click()",
      );
      const summary = await ui.waitForText('inspector', '#compaction-summary', 'the user chose to compact', 20_000);
      assert.doesNotMatch(summary, /grew too long/);
      assert.match(summary, zh ? /没有匹配 tabs indentation 的行。/ : /no line matches tabs indentation\./);
      assert.doesNotMatch(summary, /[^.]\.\.(?!\.)|。\./, 'one full stop at the end of each sentence');
      await vscode.commands.executeCommand('workbench.action.closeSidebar');
      // The summary scrolls in its own box: its opening line, then its end (the current work).
      const shoot = async (kind: string): Promise<void> => {
        for (const [part, top] of [
          ['opening', '0'],
          ['end', 'box.scrollHeight'],
        ]) {
          await ui.evaluate(
            'inspector',
            `{ const box = document.getElementById('compaction-summary'); box.scrollIntoView({ block: 'center' }); box.scrollTop = ${top}; }`,
          );
          const shot = await ui.screenshot(`demo-manual-compact-${part}-${kind}`);
          assert.ok(shot.bytes > 10_000, `${shot.file} is too small`);
        }
      };
      if (zh) await shoot('zh-cn');
      else await inThemes('inspector', shoot);
      await vscode.commands.executeCommand('workbench.action.toggleSidebarVisibility');
    });
  });
}

demoSuite('', false);
demoSuite(' [zh-cn]', true);
