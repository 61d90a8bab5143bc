import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { autoMemoryDir } from '../../src/core/memory/autoMemory/memoryPaths';
import { recallForPrompt } from '../../src/core/memory/autoMemory/recall';
import { engram, inspectorInBothThemes, openInspector } from './support';
import { ui } from './ui';

// Engram's memory as language model tools in the real host: both tools are in vscode.lm.tools with the
// schema package.json declares, and engram_search_memory, invoked as Copilot Chat's agent mode would
// (vscode.lm.invokeTool), answers from the workspace's memory folder with what Engram's own recall
// attaches, the memory's text and the words it matched. engram_remember asks the person first
// (prepareInvocation's confirmation), which a test cannot answer: its registration is checked here, and
// the write itself in the unit tests of `engram mcp`, which run the same core function.

const workspace = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
const QUESTION = 'How does the quokka pipeline release to the zephyr cluster?';

suite('Language model tools', () => {
  let memoryDir: string;

  suiteSetup(async () => {
    await engram();
    memoryDir = await autoMemoryDir(process.env.ENGRAM_DATA_DIR!, workspace());
    fs.rmSync(memoryDir, { recursive: true, force: true });
    fs.mkdirSync(memoryDir, { recursive: true });
    fs.writeFileSync(
      path.join(memoryDir, 'project_quokka_release.md'),
      '---\nname: Quokka pipeline release\ndescription: the quokka pipeline releases to the zephyr cluster\n' +
        'type: project\n---\n\nThe quokka pipeline releases to the zephyr cluster every Tuesday, after the canary passes.\n',
    );
    fs.writeFileSync(
      path.join(memoryDir, 'feedback_tabs.md'),
      '---\nname: Tabs\ndescription: indent with tabs\ntype: feedback\n---\n\nIndent with tabs in Go files.\n',
    );
    fs.writeFileSync(
      path.join(memoryDir, 'MEMORY.md'),
      '- [Quokka pipeline release](project_quokka_release.md) — releases to the zephyr cluster on Tuesdays\n' +
        '- [Tabs](feedback_tabs.md) — indent with tabs in Go\n',
    );
  });

  suiteTeardown(() => fs.rmSync(memoryDir, { recursive: true, force: true }));

  test('lists engram_search_memory and engram_remember with their schemas', () => {
    const byName = new Map(vscode.lm.tools.map((t) => [t.name, t]));
    const search = byName.get('engram_search_memory');
    const remember = byName.get('engram_remember');
    assert.ok(search, `lm.tools: ${[...byName.keys()].join(', ')}`);
    assert.ok(remember);
    assert.deepEqual((search.inputSchema as { required: string[] }).required, ['query']);
    assert.deepEqual((remember.inputSchema as { required: string[] }).required, ['text']);
    assert.ok(search.tags.includes('memory'));
  });

  test('search through vscode.lm.invokeTool answers with what recall attaches, its text and why', async () => {
    const expected = (await recallForPrompt(memoryDir, QUESTION, [])).files.map((f) => f.file);
    assert.deepEqual(expected, ['project_quokka_release.md']);
    const result = await vscode.lm.invokeTool('engram_search_memory', {
      input: { query: QUESTION },
      toolInvocationToken: undefined,
    });
    const text = result.content
      .map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : ''))
      .join('');
    assert.match(text, /## Quokka pipeline release \(project_quokka_release\.md, project\)/);
    assert.match(text, /every Tuesday, after the canary passes/);
    assert.match(text, /Matched the words "/);
    assert.ok(!text.includes('feedback_tabs.md'), text);
    const none = await vscode.lm.invokeTool('engram_search_memory', {
      input: { query: 'What is the capital of Mongolia?' },
      toolInvocationToken: undefined,
    });
    const noneText = none.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
    assert.match(noneText, /No memory bears clearly/);
  });

  test('[ui] the inspector says which agent wrote a memory saved through MCP', async () => {
    fs.writeFileSync(
      path.join(memoryDir, 'project_deploy_window.md'),
      '---\nname: Deploy window\ndescription: deploys happen between 10:00 and 16:00 UTC\ntype: project\n' +
        'originClient: claude-code\noriginVia: mcp\n---\n\nDeploy only between 10:00 and 16:00 UTC, never on Fridays.\n',
    );
    fs.appendFileSync(
      path.join(memoryDir, 'MEMORY.md'),
      '- [Deploy window](project_deploy_window.md) — deploys between 10:00 and 16:00 UTC, never on Fridays\n',
    );
    const api = await engram();
    await openInspector(api);
    await ui.waitForText('inspector', '#memory-section', 'Deploy window', 30_000);
    await ui.click('inspector', '[data-file="project_deploy_window.md"] > .tree-row');
    const origin = await ui.waitForText('inspector', '#entry-written-by', 'claude-code', 30_000);
    assert.match(origin, /written by claude-code via MCP/);
    await inspectorInBothThemes('mcp-written-by', 'memory-section');
    api.inspector()?.panel.dispose();
  });
});
