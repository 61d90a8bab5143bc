import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ApiMessage } from '../../src/core/conversation/types';
import type { MessagesRequestBody, ScriptedReply } from '../../src/testServer/anthropicTestServer';
import { PREVIEW_FILE } from '../../src/vscode/chat/compactionPreview';
import {
  freshChat,
  inspectorInBothThemes,
  openInspector,
  sendFromUi,
  SUMMARY_PREVIEW_SETTINGS,
  useSettings,
  useTestServer,
} from './support';
import { ui, waitUntil } from './ui';
import type { EngramApi } from '../../src/extension';

// What a compaction dropped: a session reads a file, fails to read another, runs a command; `/compact`
// (preview on) lists what the summary would not carry above it, "Add to the summary" (a real click on the
// code lens) writes the command into the summary and takes it off the list, the applied summary carries
// it in the next request, and the inspector's timeline lists the rest with "Carry it", which asks the
// inspector to pin the text. Screenshots of both lists in a light and a dark theme, and in Chinese.

const SUMMARY_MARKER = '<engram-compact-summary>';
const SUMMARY = [
  '1. Request and intent: look at the greeting code.',
  '2. Key concepts: none.',
  '3. Files: none.',
  '4. Errors and fixes: none.',
  '5. Problem solving: none.',
  '6. All user messages: questions.',
  '7. Pending tasks: none.',
  '8. Current work: answering questions.',
  '9. Next step: wait for the next question.',
].join('\n');

const usage = { input_tokens: 2_000, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
const say = (text: string): ScriptedReply => ({ content: [{ type: 'text', text }], usage });
const isSummary = (body: MessagesRequestBody) => JSON.stringify(body.messages).includes(SUMMARY_MARKER);
const textOf = (m: ApiMessage) =>
  typeof m.content === 'string' ? m.content : m.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n');
const FIRST_PROMPT = 'Look at greet, then list the src folder';

function previewDocument(): vscode.TextDocument | undefined {
  return vscode.window.visibleTextEditors.find((e) => e.document.uri.path.endsWith(`/${PREVIEW_FILE}`))?.document;
}

/** The preview's lens titles, once it has any (the provider answers with none until the preview's review is set). */
async function lensTitles(doc: vscode.TextDocument): Promise<string[]> {
  let titles: string[] = [];
  await waitUntil(
    "the preview's lenses",
    async () => {
      const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri);
      titles = lenses.map((l) => l.command?.title ?? '');
      return titles.length > 0;
    },
    20_000,
  );
  return titles;
}

/** The workbench in a light and a dark theme (the preview editor is not a webview: its theme kind is asked). */
async function workbenchInBothThemes(name: string): Promise<void> {
  for (const [theme, kind, want] of [
    ['Default Light Modern', 'light', vscode.ColorThemeKind.Light],
    ['Default Dark Modern', 'dark', vscode.ColorThemeKind.Dark],
  ] as const) {
    await vscode.workspace.getConfiguration('workbench').update('colorTheme', theme, vscode.ConfigurationTarget.Global);
    await waitUntil(`the ${kind} theme`, () => vscode.window.activeColorTheme.kind === want);
    const shot = await ui.screenshot(`${name}-${kind}`);
    assert.ok(shot.bytes > 10_000, `${shot.file} is too small to show anything`);
  }
}

/**
 * Issue 31: at the inspector's narrowest width (a 240 px timeline) each compaction row's badges ("latest:
 * can be undone", "summary edited", "4 not carried") leave its description whole: wide, and not cut.
 */
async function assertTimelineRowsReadable(word: string): Promise<void> {
  await ui.evaluate('inspector', "document.querySelector('.timeline-box').style.width = '240px'");
  const rows = await ui.evaluate<
    Array<{ text: string; width: number; scroll: number; client: number; badges: number }>
  >(
    'inspector',
    `Array.from(document.querySelectorAll('.timeline-compaction .timeline-text')).map((t) => ({
      text: t.textContent, width: t.getBoundingClientRect().width, scroll: t.scrollWidth, client: t.clientWidth,
      badges: t.parentElement.querySelectorAll('.badge').length }))`,
  );
  assert.ok(rows.length > 0, 'a compaction row');
  for (const r of rows) {
    assert.ok(r.text.includes(word), r.text);
    assert.ok(r.badges >= 2, `the row has its badges (${r.badges})`);
    assert.ok(r.width > 100, `the description is ${r.width} px wide: ${r.text}`);
    assert.ok(r.scroll <= r.client + 1, `the description is cut (${r.scroll} > ${r.client}): ${r.text}`);
  }
}

suite('what a compaction dropped', () => {
  const testServer = useTestServer();
  useSettings(SUMMARY_PREVIEW_SETTINGS);
  suiteTeardown(async () => {
    await vscode.workspace
      .getConfiguration('workbench')
      .update('colorTheme', undefined, vscode.ConfigurationTarget.Global);
  });

  /** A session with a read, a failed read and a command, two questions after, then `/compact` in preview. */
  async function compactWithPreview(
    zh: boolean,
  ): Promise<{ api: EngramApi; doc: vscode.TextDocument; turns: () => ApiMessage[] }> {
    // An earlier test's preview left open has the same file name: this test's preview must be the one read.
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const api = await freshChat();
    const server = testServer();
    const main: ScriptedReply[] = [];
    server.setResponder((body) =>
      isSummary(body)
        ? say(`<analysis>Read and listed.</analysis><summary>${SUMMARY}</summary>`)
        : (main.shift() ?? say('(no scripted reply left)')),
    );
    main.push(
      {
        content: [
          { type: 'tool_use', name: 'Read', input: { file_path: 'src/greet.js' } },
          { type: 'tool_use', name: 'Read', input: { file_path: 'src/missing-file.js' } },
          { type: 'tool_use', name: 'Bash', input: { command: 'ls src' } },
        ],
        usage,
      },
      say('greet.js greets; the other file is missing.'),
    );
    await sendFromUi(FIRST_PROMPT);
    // `ls` may run without asking; where the workspace asks, allow it once.
    await waitUntil(
      'the tool turn to end or ask',
      async () => {
        const snap = api.chat().snapshot();
        if (snap.items.some((i) => i.kind === 'permission' && i.answered === undefined))
          await ui.click('chat', '.item-permission [id^="allow-once-"]', 10_000);
        return !snap.busy && snap.items.some((i) => i.kind === 'assistant' && i.text.includes('other file is missing'));
      },
      60_000,
    );
    for (let i = 1; i <= 2; i++) {
      main.push(say(`Answer ${i}: ${'it is fine. '.repeat(30)}`));
      await sendFromUi(`Question ${i}: ${'and then? '.repeat(20)}`);
      await ui.waitForText('chat', '.item-assistant', `Answer ${i}:`, 60_000);
      await waitUntil('the turn to end', () => !api.chat().snapshot().busy, 60_000);
    }
    await sendFromUi('/compact');
    await waitUntil('the preview editor', () => previewDocument() !== undefined, 60_000);
    await waitUntil('the chat to be free', () => !api.chat().snapshot().busy, 20_000);
    const doc = previewDocument()!;
    const head = zh ? '未保留：' : 'Not carried: ';
    await ui.workbenchText(`.codelens-decoration a:has-text("${head}")`, 20_000);
    const turns = () => {
      const last = server.requests.filter((r) => !isSummary(r.body)).at(-1);
      return last ? last.body.messages : [];
    };
    return { api, doc, turns };
  }

  test('[ui] the preview lists what the summary would drop, "Add to the summary" carries it, the timeline lists the rest with "Carry it"', async function () {
    this.timeout(300_000);
    const { api, doc, turns } = await compactWithPreview(false);
    const titles = await lensTitles(doc);
    assert.ok(
      titles.some((t) => /Not carried: 1 path, 1 command, 1 error, 2 of your messages/.test(t)),
      titles.join(' | '),
    );
    // src/greet.js is carried: the compaction re-attaches the file it read last.
    for (const item of ['src/missing-file.js', 'ls src', 'File does not exist', FIRST_PROMPT.slice(0, 30)])
      assert.ok(
        titles.some((t) => t.includes('Add to the summary') && t.includes(item)),
        `${item}: ${titles.join(' | ')}`,
      );
    // Each item is a line of the note at the top, with its lens above it: one lens per line, so a narrow
    // editor shows every one.
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri);
    const lines = new Set<number>();
    for (const item of ['src/missing-file.js', 'ls src', 'File does not exist', FIRST_PROMPT.slice(0, 30)]) {
      const lens = lenses.find(
        (l) => (l.command?.title ?? '').includes('Add to the summary') && l.command?.title.includes(item),
      );
      const line = lens?.range.start.line ?? 0;
      assert.ok(line > 0 && doc.lineAt(line).text.includes(item), `${item} has a line of its own`);
      lines.add(line);
    }
    assert.equal(lines.size, 4, 'one line each');
    await workbenchInBothThemes('dropped-preview');

    // A real click on the command's lens: the line is appended and the command leaves the list.
    await ui.clickWorkbench('.codelens-decoration a:has-text("ls src")');
    await waitUntil('the command in the summary', () => doc.getText().includes('- Command run: ls src'));
    await waitUntil(
      'the list to follow the edit',
      async () => !(await lensTitles(doc)).some((t) => t.includes('ls src')),
    );
    const after = await lensTitles(doc);
    assert.ok(after.some((t) => t.includes('Not carried: 1 path, 1 error, 2 of your messages')));
    assert.ok(
      after.some((t) => t.includes('Now carried')),
      'its line in the note says it is carried now',
    );

    // Issue 31: Apply and Cancel read as words among VS Code's own icons.
    assert.match(
      (await ui.workbenchText('.editor-actions [aria-label*="Apply Compaction Summary"]')) ?? '',
      /Apply Compaction Summary/,
    );
    assert.match(
      (await ui.workbenchText('.editor-actions [aria-label*="Cancel Compaction"]')) ?? '',
      /Cancel Compaction/,
    );
    await ui.clickWorkbench('.editor-actions [aria-label*="Apply Compaction Summary"]');
    const compactions = () =>
      api
        .chat()
        .inspectorContext()
        .timeline.filter((t) => t.kind === 'compaction');
    await waitUntil('the compaction to apply', () => compactions().length === 1, 30_000);
    const applied = compactions()[0];
    assert.ok(applied.kind === 'compaction');
    const dropped = applied.event.dropped;
    assert.ok(dropped, 'the event says what it dropped');
    assert.deepEqual(dropped.commands, [], 'the added command is carried');
    assert.deepEqual(dropped.paths, ['src/missing-file.js']);
    assert.equal(dropped.errors.length, 1);
    assert.equal(dropped.userMessages[0], FIRST_PROMPT);
    assert.equal(dropped.userMessages.length, 2);

    await sendFromUi('What next?');
    await ui.waitForText('chat', '.item-assistant', '(no scripted reply left)', 60_000);
    assert.match(textOf(turns()[0]), /- Command run: ls src/, 'the applied summary carries the added command');

    // The timeline: the compaction's list, and "Carry it" asks the inspector to pin the text.
    await openInspector(api);
    await api.inspector()!.refresh();
    await ui.click('inspector', '.timeline-compaction .timeline-button', 20_000);
    const line = await ui.waitForText('inspector', '#compaction-dropped summary', 'not carried', 20_000);
    assert.match(line, /not carried: 1 path, 1 error, 2 of your messages/);
    // Issue 31: the "in the system prompt after it" line shows only with something after it.
    const kept = await ui.evaluate<string | null>(
      'inspector',
      "document.getElementById('compaction-kept')?.textContent ?? null",
    );
    assert.ok(kept === null || /:\s*\S/.test(kept), `"${kept}" names what was kept`);
    assert.match(await ui.text('inspector', '.timeline-compaction .badge-dropped'), /4 not carried/);
    await ui.click('inspector', '.dropped-paths:has-text("src/missing-file.js") button', 10_000);
    // "Carry it" pins the text: the inspector's pins list shows it.
    await ui.waitForText('inspector', '.pins-list', 'src/missing-file.js', 20_000);
    await inspectorInBothThemes('dropped-timeline', 'compaction-dropped');
    await assertTimelineRowsReadable('Compaction');
    await inspectorInBothThemes('timeline-narrow', 'timeline-list');
  });

  test('[ui] [zh-cn] the dropped lists in Simplified Chinese', async function () {
    this.timeout(300_000);
    assert.equal(vscode.env.language, 'zh-cn');
    const { api, doc } = await compactWithPreview(true);
    const titles = await lensTitles(doc);
    assert.ok(
      titles.some((t) => t.includes('未保留：') && t.includes('条命令')),
      titles.join(' | '),
    );
    assert.ok(titles.some((t) => t.includes('加入摘要')));
    const shot = await ui.screenshot('dropped-preview-zh-cn');
    assert.ok(shot.bytes > 10_000);
    await vscode.commands.executeCommand('engram.applyCompactionPreview');
    await waitUntil(
      'the compaction to apply',
      () =>
        api
          .chat()
          .inspectorContext()
          .timeline.some((t) => t.kind === 'compaction'),
      30_000,
    );
    await openInspector(api);
    await api.inspector()!.refresh();
    await ui.click('inspector', '.timeline-compaction .timeline-button', 20_000);
    await ui.waitForText('inspector', '#compaction-dropped summary', '未保留', 20_000);
    assert.match(await ui.text('inspector', '.dropped-item button'), /保留它/);
    await ui.evaluate('inspector', "document.getElementById('compaction-dropped').scrollIntoView({ block: 'start' })");
    const inspectorShot = await ui.screenshot('dropped-timeline-zh-cn');
    assert.ok(inspectorShot.bytes > 10_000);
    await assertTimelineRowsReadable('压缩');
    await ui.evaluate('inspector', "document.getElementById('timeline-list').scrollIntoView({ block: 'start' })");
    assert.ok((await ui.screenshot('timeline-narrow-zh-cn')).bytes > 10_000);
  });
});
