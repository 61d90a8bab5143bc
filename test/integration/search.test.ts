import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { chatInBothThemes, engram, freshChat, sendFromUi, useSettings, useTestServer } from './support';
import { ui, waitUntil } from './ui';

// Grep and Glob through ripgrep in the chat (issue 35): the session searches with the copy of ripgrep the
// editor ships (the VS Code server these tests run in has one), /context says so, and a folder the
// workspace's search.exclude hides is left out of the search and named in the result.

const workspace = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
const FOLDER = 'search-demo';

/** The chat session's transcript lines. */
function transcript(
  api: Awaited<ReturnType<typeof engram>>,
): Array<{ toolUseResult?: Record<string, unknown>; message?: { content?: unknown } }> {
  const file = api.chat().inspectorContext().transcriptPath;
  assert.ok(file, 'the session has a transcript');
  return fs
    .readFileSync(file, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
}

suite('search through ripgrep', () => {
  const testServer = useTestServer();
  useSettings([
    ['engram.memory', 'extraction.enabled', false],
    ['engram.sessionNotes', 'enabled', false],
    ['search', 'exclude', { '**/generated': true }],
  ]);

  suiteSetup(() => {
    fs.mkdirSync(path.join(workspace(), FOLDER, 'generated'), { recursive: true });
    fs.writeFileSync(path.join(workspace(), FOLDER, 'notes.txt'), 'the secret word is pineapple\n');
    fs.writeFileSync(path.join(workspace(), FOLDER, 'generated', 'copy.txt'), 'a generated pineapple\n');
  });
  suiteTeardown(() => fs.rmSync(path.join(workspace(), FOLDER), { recursive: true, force: true }));

  /** One turn whose only work is a Grep for "pineapple" in the demo folder; the Grep's transcript line. */
  async function grepTurn(): Promise<{ toolUseResult?: Record<string, unknown>; message?: { content?: unknown } }> {
    const api = await freshChat();
    testServer().enqueue(
      { content: [{ type: 'tool_use', name: 'Grep', input: { pattern: 'pineapple', path: FOLDER } }] },
      { content: [{ type: 'text', text: 'The word is in search-demo/notes.txt.' }] },
    );
    await sendFromUi('Where is the secret word?');
    await ui.waitForText('chat', '.item-assistant', 'The word is in');
    await waitUntil('the turn to end', () => !api.chat().snapshot().busy);
    const line = transcript(api).find((l) => l.toolUseResult?.engine !== undefined);
    assert.ok(line, 'the Grep is in the transcript');
    return line;
  }

  test("[ui] the chat's Grep runs on VS Code's ripgrep, leaves a search.exclude'd folder out, and /context names the engine", async () => {
    const line = await grepTurn();
    assert.equal(line.toolUseResult?.engine, 'ripgrep', JSON.stringify(line.toolUseResult));
    // What the model read: the match, not the one in the excluded folder.
    const text = JSON.stringify(line.message?.content);
    assert.match(text, /notes\.txt/);
    assert.doesNotMatch(text, /copy\.txt/);

    await sendFromUi('/context');
    const said = await ui.waitForText('chat', '.item-context .context-search', 'ripgrep');
    assert.match(said, /^Grep and Glob run on ripgrep \d+\.\d+\.\d+, the copy VS Code ships \(.+rg\)\.$/);
    await chatInBothThemes('chat-context-search');
  });

  test("[ui] a Grep's result names the folder search.exclude left out", async () => {
    const line = await grepTurn();
    const text = JSON.stringify(line.message?.content);
    assert.doesNotMatch(text, /copy\.txt/);
    assert.match(text, /search-demo\/generated/, `the excluded folder is named: ${text}`);
  });

  test('[ui] [zh-cn] /context says which search engine runs, in Simplified Chinese', async () => {
    await freshChat();
    assert.equal(vscode.env.language, 'zh-cn');
    await sendFromUi('/context');
    const line = await ui.waitForText('chat', '.item-context .context-search', 'ripgrep');
    assert.match(line, /^Grep 和 Glob 使用 ripgrep \d+\.\d+\.\d+，即 VS Code 自带的副本（.+rg）。$/);
    const shot = await ui.screenshot('chat-context-search-zh-cn');
    assert.ok(shot.bytes > 10_000, `${shot.file} is too small`);
  });
});
