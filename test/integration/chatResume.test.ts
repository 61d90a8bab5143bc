import assert from 'node:assert/strict';
import fs from 'node:fs';
import * as vscode from 'vscode';
import { chatInBothThemes, freshChat, useSettings, useTestServer } from './support';
import { type LongSession, writeLongSession } from './longSession';
import { ui, waitUntil } from './ui';

// Issue 31, "a chat that stays light": a 2,000-message session resumed from Earlier sessions draws only
// what is near the view. The DOM stays bounded, the last message shows, scrolling to the top reaches the
// first, the chat's find (Ctrl+F) finds a message from the middle and brings it into view, and the keyboard
// moves from message to message through all of them. The [bench] test measures the same resume for
// `npm run bench` (test/bench/chatResume.ts); it runs only when ENGRAM_BENCH_OUT names its output.

const workspace = () => vscode.workspace.workspaceFolders![0].uri.fsPath;

/** Opens Earlier sessions and waits for the row of `sessionId`. */
async function openSessionList(sessionId: string): Promise<void> {
  await ui.click('chat', '#history');
  await ui.count('chat', `.chat-session[data-session="${sessionId}"]`);
  await waitUntil('the session in Earlier sessions', async () => {
    return (await ui.count('chat', `.chat-session[data-session="${sessionId}"]`)) === 1;
  });
}

/** Whether the element `selector` (the first match) is inside the chat list's visible box. */
function inView(selector: string): Promise<boolean> {
  return ui.evaluate<boolean>(
    'chat',
    `(() => { const el = document.querySelector(${JSON.stringify(selector)}); if (!el) return false;
      const l = document.querySelector('.chat-items').getBoundingClientRect(); const r = el.getBoundingClientRect();
      return r.height > 0 && r.bottom > l.top + 2 && r.top < l.bottom - 2; })()`,
  );
}

const domNodes = () => ui.evaluate<number>('chat', `document.querySelectorAll('*').length`);

/** The position in the feed (aria-posinset) of the focused message, or 0. */
const focusedPosition = () =>
  ui.evaluate<number>(
    'chat',
    `Number(document.activeElement?.closest('[aria-posinset]')?.getAttribute('aria-posinset') ?? 0)`,
  );

/** Resumes `long` from Earlier sessions and waits until its last reply is drawn. */
async function resume(long: LongSession): Promise<void> {
  await openSessionList(long.sessionId);
  await ui.click('chat', `.chat-session[data-session="${long.sessionId}"]`);
  await ui.waitForText('chat', '.item-assistant', long.lastReply, 60_000);
}

suite('a long resumed session in the chat', () => {
  useTestServer();
  useSettings([
    ['engram.sessionNotes', 'enabled', false],
    ['engram.memory', 'extraction.enabled', false],
  ]);

  /** The whole walk: bounded DOM, the end, the top, find (screenshots `shot`), keys. */
  async function walk(shot: string): Promise<void> {
    const api = await freshChat();
    const long = writeLongSession(process.env.ENGRAM_DATA_DIR!, workspace(), 2_000);
    await resume(long);
    await waitUntil('the resume to end', () => !api.chat().snapshot().busy, 30_000);
    const total = api.chat().snapshot().items.length;
    assert.ok(total > 1_500, `${total} items`);

    // Only what is near the view is drawn: without windowing this was over 30,000 nodes.
    const nodes = await domNodes();
    assert.ok(nodes < 3_000, `${nodes} DOM nodes in the chat for ${total} items`);
    const diag = () =>
      ui.evaluate<string>(
        'chat',
        `(() => { const l = document.querySelector('.chat-items'); const all = document.querySelectorAll('.item-assistant');
          const last = all[all.length - 1]; const r = last.getBoundingClientRect(); const b = l.getBoundingClientRect();
          return JSON.stringify({ top: l.scrollTop, h: l.scrollHeight, ch: l.clientHeight, lb: [b.top, b.bottom], r: [r.top, r.bottom],
            rows: l.querySelectorAll('.chat-row').length, lastRow: l.lastElementChild.previousElementSibling?.getAttribute('aria-posinset'),
            text: last.textContent.slice(0, 60) }); })()`,
      );
    await waitUntil('the last reply in view', async () => {
      return ui.evaluate<boolean>(
        'chat',
        `(() => { const all = document.querySelectorAll('.item-assistant'); const last = all[all.length - 1];
          const l = document.querySelector('.chat-items').getBoundingClientRect(); const r = last.getBoundingClientRect();
          return last.textContent.includes(${JSON.stringify(long.lastReply)}) && r.bottom <= l.bottom + 2 && r.bottom > l.top; })()`,
      );
    }).catch(async (e) => {
      throw new Error(`${e.message}: ${await diag()}`);
    });
    // Rows say where they are in the whole conversation, for screen readers (once the earlier items, sent
    // after the newest, are in).
    await waitUntil('the earlier items', async () => {
      const size = await ui.evaluate<string>(
        'chat',
        `document.querySelector('.chat-row')?.getAttribute('aria-setsize')`,
      );
      return size === String(total);
    });
    const feed = await ui.evaluate<{ role: string | null; size: string | null; pos: string | null }>(
      'chat',
      `(() => { const rows = document.querySelectorAll('.chat-items [aria-posinset]'); const last = rows[rows.length - 1];
        return { role: document.querySelector('.chat-items').getAttribute('role'), size: last?.getAttribute('aria-setsize'),
          pos: last?.getAttribute('aria-posinset') }; })()`,
    );
    assert.deepEqual(feed, { role: 'feed', size: String(total), pos: String(total) });

    // To the top, as far as the scroll bar goes: the first prompt shows, and the DOM is still bounded.
    await waitUntil('the first prompt', async () => {
      await ui.evaluate('chat', `document.querySelector('.chat-items').scrollTop = 0`);
      return ui.evaluate<boolean>(
        'chat',
        `[...document.querySelectorAll('.item-user')].some((el) => el.textContent.includes(${JSON.stringify(long.word(0))}))`,
      );
    });
    assert.ok(await inView('[aria-posinset="1"]'), 'the first message is in view');
    assert.ok((await domNodes()) < 3_000, 'the DOM stays bounded at the top');

    // Find: a word from the middle of the session, which is not drawn until found.
    const middle = long.word(Math.floor(long.turns / 2));
    assert.equal(await ui.evaluate<boolean>('chat', `document.body.textContent.includes('${middle}')`), false);
    await ui.click('chat', '#prompt');
    await ui.press('Control+f');
    await ui.fill('chat', '#chat-find-input', middle);
    await ui.press('Enter');
    await waitUntil('the found message in view', async () => {
      return ui.evaluate<boolean>(
        'chat',
        `(() => { const el = [...document.querySelectorAll('.item-user')].find((e) => e.textContent.includes('${middle}'));
          if (!el) return false; const l = document.querySelector('.chat-items').getBoundingClientRect();
          const r = el.getBoundingClientRect(); return r.top >= l.top - 2 && r.bottom <= l.bottom + 2; })()`,
      );
    });
    assert.match(await ui.text('chat', '#chat-find-count'), /1/);
    // The find box and its match, in both themes (in Chinese for the zh-cn phase).
    if (shot.endsWith('zh-cn')) assert.ok((await ui.screenshot(shot)).bytes > 10_000);
    else await chatInBothThemes(shot);
    await ui.click('chat', '#chat-find-input');
    await ui.press('Escape');
    assert.equal(await ui.count('chat', '.chat-find:not([hidden])'), 0, 'Escape closes the find box');

    // Keys: Home, then End reach the first and the last message; Page Up walks back one at a time.
    // A click gives the chat's frame the browser's focus (focus() from a script does not move it into the
    // frame when the page has it elsewhere); then the message takes it, and the keys go to the message.
    await ui.click('chat', '#prompt');
    await waitUntil('the chat frame focused', () => ui.evaluate<boolean>('chat', 'document.hasFocus()'));
    // A row drawn for the find may still be replaced while the list settles after Escape: focus a row that
    // is in the list now, then Home, until a message holds the focus when the key arrives.
    for (let attempt = 1; ; attempt++) {
      await ui.evaluate('chat', `document.querySelector('.chat-items [aria-posinset]').focus()`);
      if ((await focusedPosition()) > 0) await ui.press('Home');
      const reached = await waitUntil('the first message focused', async () => (await focusedPosition()) === 1, 5_000)
        .then(() => true)
        .catch(() => false);
      if (reached) break;
      if (attempt === 3) {
        const where = await ui.evaluate<string>(
          'chat',
          `document.hasFocus() + ' ' + (document.activeElement?.outerHTML ?? 'none').slice(0, 300)`,
        );
        throw new Error(`Home did not reach the first message in 3 tries; focus: ${where}`);
      }
    }
    await ui.press('End');
    await waitUntil('the last message focused', async () => (await focusedPosition()) === total);
    for (let i = 1; i <= 3; i++) {
      await ui.press('PageUp');
      await waitUntil(`message ${total - i} focused`, async () => (await focusedPosition()) === total - i);
    }
    assert.ok(await inView(`[aria-posinset="${total - 3}"]`), 'the focused message is in view');
    assert.ok((await domNodes()) < 3_000, 'the DOM stays bounded after the keys');
  }

  test('[ui] a resumed 2,000-message session draws a bounded DOM; top, find and keys reach every message', async function () {
    this.timeout(300_000);
    await walk('chat-long-session');
  });

  test('[ui] [zh-cn] a resumed 2,000-message session in Simplified Chinese: top, find and keys', async function () {
    this.timeout(300_000);
    assert.equal(vscode.env.language, 'zh-cn');
    await walk('chat-long-session-zh-cn');
  });

  test('[bench] chat resume of a 2,000-message session', async function () {
    const out = process.env.ENGRAM_BENCH_OUT;
    if (!out) this.skip();
    this.timeout(300_000);
    await freshChat();
    const long = writeLongSession(process.env.ENGRAM_DATA_DIR!, workspace(), 2_000);
    await openSessionList(long.sessionId);
    const before = await ui.memory('chat');
    // Timed inside the page: from the click on the session to the first frame where the last reply's end
    // is inside the list and the prompt takes text (the chat is no longer busy loading).
    await ui.evaluate('chat', probeScript(long.lastReply));
    await ui.click('chat', `.chat-session[data-session="${long.sessionId}"]`);
    await waitUntil('the resumed session', () => ui.evaluate<boolean>('chat', 'window.__resumeProbe.ms > 0'), 60_000);
    // A moment for what the resume leaves to do after it shows (late measurements, idle callbacks).
    await new Promise((r) => setTimeout(r, 1_000));
    const probe = await ui.evaluate<{ ms: number; nodes: number; snapshotMs: number }>('chat', 'window.__resumeProbe');
    const settled = await domNodes();
    const after = await ui.memory('chat');

    // 60 wheel steps up from the end, timing every frame the webview draws meanwhile.
    await ui.evaluate('chat', frameRecorder);
    await ui.wheel('chat', '.chat-items', 60, -120, 16);
    const frames = await ui.evaluate<number[]>('chat', 'window.__frames.stop()');
    // The DOM figure is the largest seen: once the resume showed, a second later, and after the scrolling.
    const nodes = Math.max(probe.nodes, settled, await domNodes());
    assert.ok(frames.length >= 20, `${frames.length} frames while scrolling`);
    const sorted = frames.slice().sort((a, b) => a - b);
    const p95 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))];
    fs.writeFileSync(
      out!,
      JSON.stringify({
        resumeMs: probe.ms,
        snapshotMs: probe.snapshotMs,
        domNodes: nodes,
        rendererMb: after.rendererRssMb - before.rendererRssMb,
        jsHeapMb: after.jsHeapMb - before.jsHeapMb,
        frameP95Ms: p95,
      }),
    );
  });
});

/** Sets window.__resumeProbe.ms once the resumed session's last reply shows and the prompt takes text. */
function probeScript(lastReply: string): string {
  return `(() => {
    const probe = (window.__resumeProbe = { t0: 0, ms: 0, nodes: 0, snapshotMs: 0 });
    window.addEventListener('message', (e) => {
      if (probe.t0 && e.data?.type === 'snapshot' && e.data.state.items.length > 0) probe.snapshotMs = performance.now() - probe.t0;
    });
    document.addEventListener('click', () => { probe.t0 = performance.now(); }, { capture: true, once: true });
    const check = () => {
      const all = probe.t0 ? document.querySelectorAll('.item-assistant') : [];
      const last = all[all.length - 1];
      const list = document.querySelector('.chat-items').getBoundingClientRect();
      const prompt = document.getElementById('prompt');
      if (last && last.textContent.includes(${JSON.stringify(lastReply)}) && !document.getElementById('app').classList.contains('busy')
          && !prompt.disabled && last.getBoundingClientRect().bottom <= list.bottom + 2) {
        probe.ms = performance.now() - probe.t0;
        probe.nodes = document.querySelectorAll('*').length;
        return;
      }
      requestAnimationFrame(check);
    };
    requestAnimationFrame(check);
    return true;
  })()`;
}

/** Records the time between animation frames until window.__frames.stop() returns them. */
const frameRecorder = `(() => {
  const deltas = []; let last = 0; let on = true;
  const tick = (t) => { if (last) deltas.push(t - last); last = t; if (on) requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  window.__frames = { stop: () => { on = false; return deltas; } };
  return true;
})()`;
