import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { ScriptedReply } from '../../src/testServer/anthropicTestServer';
import type { EngramApi } from '../../src/extension';
import { snapshotUri } from '../../src/vscode/checkpoints/checkpointDiff';
import type { RewindPrompts } from '../../src/vscode/checkpoints/rewindPrompts';
import {
  answerBackground,
  chatInBothThemes,
  freshChat,
  inspectorInBothThemes,
  openInspector,
  refreshUntil,
  sendFromUi,
  useSettings,
  useTestServer,
} from './support';
import { ui, waitUntil } from './ui';

// Issue 33, checkpoints: turn 1 Writes a file, turn 2 runs `sed -i` and `rm` through Bash, then the person
// edits a file of their own and one the agent changed. "Rewind both" on the second prompt puts the agent's
// files back as they were before it (right after turn 1), leaves the person's edits (the agent-changed one
// listed as a conflict), shows the conversation as before that message with its text back in the prompt
// box, and the inspector's timeline shows the rewind; Undo puts it all back. The "files changed" line opens
// the turn's multi-file diff. On the first prompt, a message's rewind goes back to before it: turn 0.

const usage = { input_tokens: 2_000, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
const reply = (text: string): ScriptedReply => ({ content: [{ type: 'text', text }], usage });
const tool = (name: string, input: Record<string, unknown>): ScriptedReply => ({
  content: [{ type: 'tool_use', name, input }],
  usage,
});

const DIR = 'rewind-demo';
const root = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
const file = (name: string) => path.join(root(), DIR, name);
const read = (name: string) => (fs.existsSync(file(name)) ? fs.readFileSync(file(name), 'utf8') : undefined);

/** Answers the rewind's modal and notifications (VS Code shows neither while extension tests run). */
function answerRewind(api: EngramApi, answers: { confirm: boolean; outcome?: string; pick?: string[] }) {
  const asked: string[] = [];
  const restore = api.replaceRewindPromptsForTests({
    confirm: async (message, detail) => {
      asked.push(`confirm: ${message} | ${detail}`);
      return answers.confirm;
    },
    tell: async (level, message, actions) => {
      asked.push(`${level}: ${message} [${(actions ?? []).join(', ')}]`);
      const answer = answers.outcome;
      answers.outcome = undefined;
      return answer && actions?.includes(answer) ? answer : undefined;
    },
    pickFiles: async (title, files) => {
      asked.push(`pick: ${title} [${files.join(', ')}]`);
      return answers.pick;
    },
  } satisfies RewindPrompts);
  return { asked, restore };
}

/** What the chat's prompt box holds. */
const promptBox = () => ui.evaluate<string>('chat', "document.querySelector('#prompt').value");

async function twoTurns(api: EngramApi, server: ReturnType<ReturnType<typeof useTestServer>>): Promise<void> {
  fs.rmSync(path.join(root(), DIR), { recursive: true, force: true });
  fs.mkdirSync(path.join(root(), DIR), { recursive: true });
  fs.writeFileSync(file('notes.txt'), 'line one\nline two\n');
  fs.writeFileSync(file('old.txt'), 'an old file\n');
  fs.writeFileSync(file('shared.txt'), 'alpha two\n');
  fs.writeFileSync(file('mine.txt'), 'my own file\n');
  const main: ScriptedReply[] = [
    tool('Write', { file_path: `${DIR}/new.txt`, content: 'written in turn 1\n' }),
    reply('new.txt is written.'),
    tool('Bash', { command: `sed -i 's/two/TWO/' ${DIR}/notes.txt ${DIR}/shared.txt && rm ${DIR}/old.txt` }),
    reply('notes.txt is edited and old.txt removed.'),
  ];
  server.setResponder((body) => answerBackground(body) ?? main.shift() ?? reply('(no scripted reply left)'));
  await sendFromUi('Write the new file');
  await ui.waitForText('chat', '.item-assistant', 'new.txt is written', 60_000);
  await waitUntil('turn 1 to end', () => !api.chat().snapshot().busy, 60_000);
  await sendFromUi('Edit notes and remove the old file');
  await ui.waitForText('chat', '.item-assistant', 'old.txt removed', 60_000);
  await waitUntil('turn 2 to end', () => !api.chat().snapshot().busy, 60_000);
  assert.equal(read('notes.txt'), 'line one\nline TWO\n', 'sed ran');
  assert.equal(read('old.txt'), undefined, 'rm ran');
  // Both turns' lines: "1 file changed" under turn 1, "3 files changed" under turn 2.
  await ui.waitForText('chat', '.item-changes', '1', 20_000);
  await waitUntil('both turns to show their changes', async () => (await ui.count('chat', '.item-changes')) === 2);
}

suite('checkpoints in the chat', () => {
  const testServer = useTestServer();
  useSettings([
    ['engram.sessionNotes', 'enabled', false],
    ['engram.memory', 'extraction.enabled', false],
    ['engram.permissions', 'allow', ['Write', 'Bash']],
  ]);

  test('[ui] rewind code and conversation from the chat: files back, the hand edits kept, the conflict listed, Undo', async function () {
    this.timeout(300_000);
    const api = await freshChat();
    await twoTurns(api, testServer());
    const changes = await ui.evaluate<string[]>(
      'chat',
      "[...document.querySelectorAll('.item-changes')].map((n) => n.textContent.trim())",
    );
    assert.deepEqual(changes, ['1 file changed', '3 files changed']);
    await chatInBothThemes('checkpoints-chat');

    // The "files changed" line of turn 2 opens its diff in the multi-file diff editor.
    const line = api
      .chat()
      .snapshot()
      .items.find((i) => i.kind === 'changes' && i.turn === 2);
    assert.ok(line, 'the changes line of turn 2');
    await ui.click('chat', `[data-item="${line.id}"] .changes-open`);
    const labels = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs.map((t) => t.label));
    await waitUntil('the turn diff to open', () => labels().some((l) => /Turn 2/.test(l))).catch((e: unknown) => {
      throw new Error(`${String(e)}; tabs: ${JSON.stringify(labels())}`);
    });
    // Its sides are the turn's snapshots, served read-only: notes.txt before the sed and after it.
    await ui.workbenchText('.multiDiffEditor .monaco-editor .view-lines', 30_000);
    const turn2 = (await api.chat().checkpoints.turns()).find((t) => t.turn === 2)?.checkpoint;
    assert.ok(turn2?.before && turn2.after, 'turn 2 has both snapshots');
    const side = async (commit: string) =>
      (await vscode.workspace.openTextDocument(snapshotUri(commit, `${DIR}/notes.txt`))).getText();
    assert.equal(await side(turn2.before), 'line one\nline two\n');
    assert.equal(await side(turn2.after), 'line one\nline TWO\n');
    await ui.screenshot('checkpoints-turn-diff');

    // The person's own edits: one file the agent never touched, and one it changed in turn 2 (a conflict).
    fs.writeFileSync(file('mine.txt'), 'my own file, edited by hand\n');
    fs.writeFileSync(file('shared.txt'), 'alpha, edited by hand\n');

    const prompts = answerRewind(api, { confirm: true });
    try {
      await ui.fill('chat', '#prompt', 'a draft the rewind replaces');
      const second = api
        .chat()
        .snapshot()
        .items.find((i) => i.kind === 'user' && i.text === 'Edit notes and remove the old file');
      assert.ok(second?.kind === 'user' && second.turn === 2, `the second prompt is turn 2: ${JSON.stringify(second)}`);
      const title = await ui.evaluate<string>(
        'chat',
        `document.querySelector('[data-item="${second.id}"] .rewind-code').title`,
      );
      assert.match(title, /^Put the files back as they were before this message/);
      // Turn 1's footer (its tokens), which the rewind keeps as it was.
      const footers = () =>
        api
          .chat()
          .snapshot()
          .items.filter((i) => i.kind === 'turn' && i.tokens);
      assert.equal(footers().length, 2, 'both turns show their tokens');
      const footer = footers()[0];
      const footerText = await ui.text('chat', `[data-item="${footer.id}"] .turn-tokens`);
      await ui.click('chat', `[data-item="${second.id}"] .rewind-both`);
      await waitUntil('the rewind to be applied', () => read('old.txt') !== undefined, 30_000);
      await waitUntil('the outcome to be told', () => prompts.asked.some((a) => a.startsWith('info:')));

      assert.equal(read('notes.txt'), 'line one\nline two\n', 'the sed was undone');
      assert.equal(read('old.txt'), 'an old file\n', 'the removed file is back');
      assert.equal(read('new.txt'), 'written in turn 1\n', 'turn 1 is kept');
      assert.equal(read('mine.txt'), 'my own file, edited by hand\n', 'the hand edit is kept');
      assert.equal(read('shared.txt'), 'alpha, edited by hand\n', 'the conflict is left as the person made it');
      const confirm = prompts.asked.find((a) => a.startsWith('confirm:')) ?? '';
      assert.match(confirm, /Rewind 2 files and the conversation to before this message \(turn 2\)\?/);
      assert.match(confirm, /shared\.txt/, `the conflict is listed: ${confirm}`);
      assert.match(confirm, /1 later turn leaves the conversation/);

      const told = prompts.asked.find((a) => a.startsWith('info:')) ?? '';
      assert.match(told, /^info: Rewound to before this message \(turn 2\): .*1 later turns dropped/);
      // The chat shows the conversation as before the message, and the prompt box holds its text to edit.
      await waitUntil('the chat to show turn 1 only', () => {
        const users = api
          .chat()
          .snapshot()
          .items.filter((i) => i.kind === 'user');
        return users.length === 1 && users[0].kind === 'user' && users[0].text === 'Write the new file';
      });
      await waitUntil(
        "the prompt box to hold the message's text",
        async () => (await promptBox()) === 'Edit notes and remove the old file',
      );
      assert.equal(await ui.count('chat', '.item-changes'), 1);
      // The kept turn is drawn as it was: its footer with its tokens, not rebuilt from the messages.
      assert.deepEqual(
        footers().map((i) => i.id),
        [footer.id],
      );
      assert.equal(await ui.text('chat', `[data-item="${footer.id}"] .turn-tokens`), footerText);
      await chatInBothThemes('checkpoints-after-rewind');

      // The inspector's timeline shows the turns' checkpoints and the rewind.
      await openInspector(api);
      await refreshUntil(api, '#timeline-section', 'Rewound to turn 1');
      await ui.click('inspector', '.timeline-checkpoint .timeline-button');
      await ui.waitForText('inspector', '#checkpoint-files', 'new.txt');
      // A file of the checkpoint row opens its diff in that turn.
      await ui.click('inspector', '#checkpoint-files .light-button');
      await waitUntil('the file diff to open', () =>
        vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.label.includes('new.txt: turn 1'))),
      );
      await openInspector(api);
      // The rewind's row names the file it left as the person changed it.
      await ui.click('inspector', '.timeline-rewind .timeline-button');
      await ui.waitForText('inspector', '#rewind-conflicts', 'shared.txt');
      await inspectorInBothThemes('checkpoints-timeline', 'timeline-section');

      // Undo (the command, as the notification's Undo does): the agent's turn-2 changes are back.
      await vscode.commands.executeCommand('engram.undoRewind');
      await waitUntil('the undo', () => read('old.txt') === undefined, 30_000);
      assert.equal(read('notes.txt'), 'line one\nline TWO\n');
      assert.equal(read('shared.txt'), 'alpha, edited by hand\n', 'the hand edit survives the undo too');
      await waitUntil('the chat to show both turns again', () =>
        api
          .chat()
          .snapshot()
          .items.some((i) => i.kind === 'user' && i.text === 'Edit notes and remove the old file'),
      );
      // The turn the rewind dropped comes back as it was drawn, its footer too.
      assert.equal(footers().length, 2, 'both footers are back after the undo');
      assert.equal(
        await ui.text('chat', `[data-item="${footers()[1].id}"] .turn-tokens`),
        footerText,
        'the same usage',
      );
    } finally {
      prompts.restore();
      fs.rmSync(path.join(root(), DIR), { recursive: true, force: true });
    }
  });

  test('[ui] Rewind to a Turn from the palette, code only: Restore anyway on the conflict, and a resumed chat shows the lines', async function () {
    this.timeout(300_000);
    const api = await freshChat();
    await twoTurns(api, testServer());
    fs.writeFileSync(file('shared.txt'), 'alpha, edited by hand\n');
    const prompts = answerRewind(api, { confirm: true, outcome: 'Restore Anyway…', pick: [`${DIR}/shared.txt`] });
    try {
      await ui.palette('Engram: Rewind to a Turn…');
      await ui.quickPick('Turn 1');
      await ui.quickPick('Code only');
      await waitUntil('the rewind', () => read('old.txt') !== undefined, 30_000);
      // The notification's "Restore Anyway…" and the pick of the conflict: the person's edit is overwritten.
      await waitUntil('the conflict restored anyway', () => read('shared.txt') === 'alpha two\n', 30_000);
      assert.ok(
        prompts.asked.some((a) => a.startsWith('pick:') && a.includes(`${DIR}/shared.txt`)),
        prompts.asked.join('\n'),
      );
      assert.equal(read('notes.txt'), 'line one\nline two\n');
      // Code only: the conversation keeps both turns.
      const users = () =>
        api
          .chat()
          .snapshot()
          .items.filter((i) => i.kind === 'user').length;
      assert.equal(users(), 2);
      // A resumed session shows its turns' lines too (from the session's turns).
      const sessionId = api.chat().currentSessionId!;
      await api.chat().resume(sessionId);
      await waitUntil(
        'the resumed chat to show both lines',
        async () => (await ui.count('chat', '.item-changes')) === 2,
      );
      assert.equal(users(), 2);
      // A conversation rewind of the resumed chat (its items read from disk): the chat ends at turn 1.
      const ids = (n: number) =>
        api
          .chat()
          .snapshot()
          .items.slice(0, n)
          .map((i) => i.id);
      const turn1 = api
        .chat()
        .snapshot()
        .items.findIndex((i) => i.kind === 'changes');
      const kept = ids(turn1 + 1);
      await ui.palette('Engram: Rewind to a Turn…');
      await ui.quickPick('Turn 1');
      await ui.quickPick('Conversation only');
      await waitUntil('the resumed chat to end at turn 1', () => users() === 1, 30_000);
      assert.deepEqual(ids(kept.length + 1), kept, 'the chat is turn 1 as it was drawn, and nothing after');
      assert.equal(await ui.count('chat', '.item-changes'), 1);
      // The pick's last entry, before the first prompt (turn 0): the conversation is empty.
      await ui.palette('Engram: Rewind to a Turn…');
      await ui.quickPick('Before the first prompt');
      await ui.quickPick('Conversation only');
      await waitUntil('the chat to have no prompt left', () => users() === 0, 30_000);
      assert.equal(api.chat().currentSessionId, sessionId, 'the same session');
      assert.ok(
        prompts.asked.some((a) => a.startsWith('info: Rewound to before the first prompt: 1 later turns dropped')),
        prompts.asked.join('\n'),
      );
    } finally {
      prompts.restore();
      fs.rmSync(path.join(root(), DIR), { recursive: true, force: true });
    }
  });

  test('[ui] with checkpoints off, Rewind code and Rewind both say why and do nothing; Rewind conversation stays', async function () {
    this.timeout(120_000);
    const setting = vscode.workspace.getConfiguration('engram.checkpoints');
    await setting.update('enabled', false, vscode.ConfigurationTarget.Global);
    try {
      const api = await freshChat();
      testServer().setResponder((body) => answerBackground(body) ?? reply('Nothing to change.'));
      await sendFromUi('Just answer');
      await ui.waitForText('chat', '.item-assistant', 'Nothing to change', 60_000);
      await waitUntil('the turn to end', () => !api.chat().snapshot().busy, 60_000);
      await ui.waitForText('chat', '.item-user .rewind-conversation', 'Rewind conversation');
      const code = await ui.evaluate<{ disabled: string | null; title: string }>(
        'chat',
        `(() => { const b = document.querySelector('.item-user .rewind-code');
          return { disabled: b.getAttribute('aria-disabled'), title: b.title }; })()`,
      );
      assert.equal(code.disabled, 'true');
      assert.match(code.title, /cannot be rewound: Checkpoints are turned off/);
      const prompts = answerRewind(api, { confirm: true });
      try {
        // Playwright will not click an aria-disabled button; a press of Enter on it clicks it all the same.
        await ui.evaluate('chat', "document.querySelector('.item-user .rewind-code').click()");
        await new Promise((r) => setTimeout(r, 500));
        assert.deepEqual(prompts.asked, [], 'a blocked action asks and does nothing');
        // Rewind conversation still works: on the first prompt it goes back to before it (turn 0), the chat
        // empty and the prompt box holding the message to send again.
        await ui.click('chat', '.item-user .rewind-conversation');
        await waitUntil(
          'the rewind',
          () =>
            !api
              .chat()
              .snapshot()
              .items.some((i) => i.kind === 'user'),
          30_000,
        );
        assert.match(prompts.asked[0] ?? '', /^confirm: Rewind the conversation to before this message \(turn 1\)\?/);
        await waitUntil('the prompt box to hold the message', async () => (await promptBox()) === 'Just answer');
      } finally {
        prompts.restore();
      }
    } finally {
      await setting.update('enabled', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  test('[ui] [zh-cn] the rewind actions and the files-changed lines in Simplified Chinese', async function () {
    this.timeout(300_000);
    assert.equal(vscode.env.language, 'zh-cn');
    const api = await freshChat();
    try {
      await twoTurns(api, testServer());
      await ui.waitForText('chat', '.item-changes', '更改了 3 个文件');
      await ui.waitForText('chat', '.item-user .rewind-both', '全部回退');
      const title = await ui.evaluate<string>('chat', "document.querySelector('.item-user .rewind-code').title");
      assert.match(title, /^将文件恢复到这条消息之前的样子/);
      assert.ok((await ui.screenshot('checkpoints-chat-zh-cn')).bytes > 10_000);
      // The inspector's timeline in Chinese too.
      await openInspector(api);
      await refreshUntil(api, '#timeline-section', '第 2 轮：更改了 3 个文件');
      await ui.click('inspector', '.timeline-checkpoint:last-of-type .timeline-button');
      await ui.waitForText('inspector', '#checkpoint-files', '删除');
      await ui.evaluate('inspector', "document.getElementById('timeline-section').scrollIntoView({ block: 'start' })");
      assert.ok((await ui.screenshot('checkpoints-timeline-zh-cn')).bytes > 10_000);
      // Rewind both on the second message, in Chinese: back to before it, its text in the prompt box.
      const second = api
        .chat()
        .snapshot()
        .items.find((i) => i.kind === 'user' && i.turn === 2);
      assert.ok(second?.kind === 'user', 'the second prompt');
      const prompts = answerRewind(api, { confirm: true });
      try {
        await ui.click('chat', `[data-item="${second.id}"] .rewind-both`);
        await waitUntil('the rewind', () => read('old.txt') !== undefined, 30_000);
        assert.match(prompts.asked[0] ?? '', /^confirm: 将 3 个文件和对话回退到这条消息之前（第 2 轮）？/);
        await waitUntil('the outcome', () =>
          prompts.asked.some((a) => a.startsWith('info: 已回退到这条消息之前（第 2 轮）')),
        );
        await waitUntil('the prompt box to hold the message', async () => (await promptBox()) === second.text);
      } finally {
        prompts.restore();
      }
    } finally {
      fs.rmSync(path.join(root(), DIR), { recursive: true, force: true });
    }
  });
});
