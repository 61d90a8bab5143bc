import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { ApiMessage } from '../../src/core/conversation/types';
import type { MessagesRequestBody, ScriptedReply } from '../../src/testServer/anthropicTestServer';
import { freshChat, sendFromUi, useSettings, useTestServer } from './support';
import { ui, waitUntil } from './ui';

// A scripted long conversation in a 20,000-token window crosses 60 % (microcompact), 80 % (session-memory
// compaction from the notes), 80 % again with the notes emptied (full, model-written summary), and then
// gets "prompt is too long" (reactive recovery). The conversation goes on after each, and undo restores
// the messages the last compaction replaced. The reported usage drives the context size, as in real use.

const NOTES_MARKER = '<engram-session-notes-update>';
const SUMMARY_MARKER = '<engram-compact-summary>';
const WINDOW = 20_000;

const settings: Array<[string, string, unknown]> = [
  ['engram', 'contextWindow', WINDOW],
  ['engram.compaction', 'keepMinTokens', 300],
  ['engram.compaction', 'keepMaxTokens', 6_000],
  ['engram.compaction', 'keepMinTextMessages', 2],
  // With the notes on, an automatic trim must land at half the microcompact mark (30 %, 6,000 tokens
  // here) or it is held back for the notes: keeping one result whole lets turn 2's trim get there.
  ['engram.compaction', 'keepRecentToolResults', 1],
  ['engram.sessionNotes', 'initTokens', 1_000],
  ['engram.sessionNotes', 'updateGrowthTokens', 500],
  ['engram.sessionNotes', 'updateGrowthPercent', 0],
  ['engram.sessionNotes', 'updateToolCalls', 1],
  ['engram.memory', 'extraction.enabled', false],
  // The `/compact` at the end applies at once (compactionPreview.test.ts covers the preview).
  ['engram.compaction', 'preview', false],
];

const usage = (input: number) => ({
  input_tokens: input,
  output_tokens: 10,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
});
const bash = (n: number): ScriptedReply => ({
  content: [{ type: 'tool_use', name: 'Bash', input: { command: `node -e "console.log('check ${n} '.repeat(700))"` } }],
  usage: usage(3_000 + n * 100),
});
const text = (t: string, input: number): ScriptedReply => ({
  content: [{ type: 'text', text: t }],
  usage: usage(input),
});

function bodyText(body: MessagesRequestBody): string {
  return JSON.stringify(body.messages);
}

/** The notes fork's second call: its Edit was applied and the result is in (a fork that starts while the
 * main turn is between tool calls also opens with tool results, for the main agent's calls). */
function answersNotesEdit(messages: ApiMessage[]): boolean {
  const before = messages[messages.length - 2];
  return Array.isArray(before?.content) && before.content.some((b) => b.type === 'tool_use' && b.name === 'Edit');
}

suite('compaction in a long conversation', () => {
  const testServer = useTestServer();
  useSettings(settings);

  test('[ui] microcompact, session-memory, full and reactive compaction keep the conversation going; undo restores it', async function () {
    this.timeout(300_000);
    const api = await freshChat();
    const server = testServer();

    const main: ScriptedReply[] = [];
    let notesPath = '';
    let notesEdits = true;
    let summaries = 0;
    server.setResponder((body) => {
      const all = bodyText(body);
      if (all.includes(NOTES_MARKER)) {
        notesPath = /\/[^\s`'"\\]*session-memory\/summary\.md/.exec(all)?.[0] ?? notesPath;
        if (!notesEdits || answersNotesEdit(body.messages)) return text('Notes done.', 500);
        const guide = '_What is in progress right now, what is still open, and the very next step_\n';
        return {
          content: [
            {
              type: 'tool_use',
              name: 'Edit',
              input: {
                file_path: notesPath,
                old_string: guide,
                new_string: `${guide}Running the checks; next: fix what fails.\n`,
              },
            },
          ],
        };
      }
      if (all.includes(SUMMARY_MARKER)) {
        summaries++;
        return text(
          '<analysis>Checks were run.</analysis><summary>1. Request: run the checks and fix failures.\n2. Current work: checks ran, nothing failed.</summary>',
          800,
        );
      }
      return main.shift() ?? text('(no scripted reply left)', 1_000);
    });
    const send = async (prompt: string, expect: string, afterSend?: () => Promise<unknown>) => {
      console.log(`  -> ${prompt} (compactions so far: ${stages().join(', ') || 'none'})`);
      await sendFromUi(prompt);
      await afterSend?.();
      await ui.waitForText('chat', '.item-assistant', expect, 60_000);
      await waitUntil('the turn to end', () => !api.chat().snapshot().busy, 60_000);
    };
    const stages = () =>
      api
        .chat()
        .inspectorContext()
        .timeline.filter((t) => t.kind === 'compaction')
        .map((t) => (t.kind === 'compaction' ? `${t.event.stage}/${t.event.trigger}` : ''));

    // Turn 1: seven long tool results; the last answer reports 12,500 tokens (62 %).
    main.push(bash(1), bash(2), bash(3), bash(4), bash(5), bash(6), bash(7), text('All seven checks ran.', 12_500));
    await send('Run the seven checks', 'All seven checks ran.', () => ui.click('chat', '[id^="allow-session-"]'));
    await waitUntil(
      'the notes to be written',
      () => notesPath !== '' && fs.readFileSync(notesPath, 'utf8').includes('Running the checks'),
      60_000,
    );
    assert.deepEqual(stages(), []);

    // Turn 2: past 60 %, microcompact trims the older tool results before the call (no model call), in
    // one batch that lands well below the mark.
    main.push(text('Microcompacted and still here.', 16_500));
    await send('Anything else?', 'Microcompacted and still here.');
    assert.deepEqual(stages(), ['micro/auto']);
    const trimmed = server.requests[server.requests.length - 1].body;
    assert.match(bodyText(trimmed), /check 1 /, 'recent content is still sent');

    // Turn 3: past 80 %, the notes replace the old messages (no model call).
    await api.chat().idleForTests();
    main.push(text('Compacted with the notes.', 16_600));
    await send('Keep going', 'Compacted with the notes.');
    assert.deepEqual(stages().slice(1), ['session-memory/auto']);
    const afterNotes = server.requests[server.requests.length - 1].body;
    assert.match(
      bodyText(afterNotes),
      /Running the checks; next: fix what fails\./,
      'the notes were sent instead of the old messages',
    );
    assert.doesNotMatch(bodyText(afterNotes), /check 2 check 2/, 'the old tool output is gone');

    // Turn 4: the notes are emptied (only the template left): session-memory compaction is unavailable,
    // so a full, model-written summary is made.
    await api.chat().idleForTests();
    notesEdits = false;
    fs.writeFileSync(
      notesPath,
      fs.readFileSync(notesPath, 'utf8').replaceAll('Running the checks; next: fix what fails.\n', ''),
    );
    main.push(text('Summarised and continuing.', 5_000));
    await send('Summarise and continue', 'Summarised and continuing.');
    assert.deepEqual(stages().slice(2), ['full/auto']);
    assert.equal(summaries, 1);
    assert.match(bodyText(server.requests[server.requests.length - 1].body), /checks ran, nothing failed/);

    // Turn 5: the API says the prompt is too long; Engram compacts and retries.
    main.push(
      {
        error: {
          status: 400,
          type: 'invalid_request_error',
          message: 'prompt is too long: 25000 tokens > 20000 maximum',
        },
      },
      text('Recovered after the overflow.', 4_000),
    );
    await send('One more thing', 'Recovered after the overflow.');
    assert.equal(stages().length, 4);
    assert.match(stages()[3], /\/reactive$/);

    // Every request that reached the model was one the API accepts.
    for (const r of server.requests) {
      if (r.status !== 200) assert.match(String(r.error), /prompt is too long/, `unexpected rejection: ${r.error}`);
    }
    await ui.waitForText('chat', '.item-notice', 'Context compacted', 10_000);
    await ui.screenshot('chat-compactions');

    // Undo the last compaction: the messages it replaced come back, and the conversation goes on.
    const before = api.chat().inspectorContext().timeline.length;
    assert.equal(await api.chat().undoLastCompaction(), true);
    assert.equal(api.chat().inspectorContext().timeline.length, before);
    main.push(text('Still fine after the undo.', 9_000));
    await send('After the undo', 'Still fine after the undo.');
    const last = server.requests[server.requests.length - 1];
    assert.equal(last.status, 200, last.error);
    assert.match(
      bodyText(last.body),
      /Summarised and continuing\./,
      'the messages replaced by the last compaction are back',
    );

    // Issue #10, 6: /compact moves the chat gauge and the status bar at once, not at the next turn.
    const label = () => ui.evaluate<string>('chat', "document.querySelector('.gauge-label')?.textContent ?? ''");
    const tokens = (n: number) => String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    const shownBefore = await label();
    const barBefore = api.statusBar.text;
    assert.ok(shownBefore.includes(tokens(api.chat().gauge().usedTokens)), shownBefore);
    await api.chat().idleForTests();
    const turns = () =>
      server.requests.filter(
        (r) => !bodyText(r.body).includes(NOTES_MARKER) && !bodyText(r.body).includes(SUMMARY_MARKER),
      ).length;
    const turnsBefore = turns();
    const [summariesBefore, stagesBefore] = [summaries, stages().length];
    await sendFromUi('/compact');
    await waitUntil(
      'the /compact to finish',
      () => summaries > summariesBefore && stages().length > stagesBefore && !api.chat().snapshot().busy,
      60_000,
    );
    assert.equal(turns(), turnsBefore, 'no turn ran');
    const now = api.chat().gauge();
    assert.ok(now.usedTokens < 9_000, `the new conversation is smaller (${now.usedTokens})`);
    await waitUntil(
      'the chat gauge to show the new size',
      async () => (await label()).includes(tokens(now.usedTokens)),
      10_000,
    );
    assert.notEqual(await label(), shownBefore);
    await waitUntil(
      'the status bar to follow',
      () => api.statusBar.text === `$(pulse) ${Math.round((now.usedTokens / now.window) * 100)}%`,
      10_000,
    );
    assert.notEqual(api.statusBar.text, barBefore);
  });
});
