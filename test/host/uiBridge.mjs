// The UI bridge: integration tests in the extension host POST {op, ...} to this server; it acts on the
// workbench page with playwright-core and answers {ok, value} or {ok: false, error}. Only 127.0.0.1.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The frame of an Engram webview: its body carries data-engram-view="<view>". */
export async function findViewFrame(page, view, timeoutMs) {
  const end = Date.now() + timeoutMs;
  let seen = [];
  while (Date.now() < end) {
    seen = [];
    for (const frame of page.frames()) {
      if (frame.isDetached()) continue;
      try {
        const found = await frame.evaluate(() => document.body?.dataset?.engramView ?? null);
        if (found === view) return frame;
        if (found) seen.push(found);
      } catch (error) {
        seen.push(
          `(${String(error?.message ?? error)
            .split('\n')[0]
            .slice(0, 80)})`,
        );
      }
    }
    await sleep(150);
  }
  throw new Error(
    `no webview frame for view '${view}' within ${timeoutMs} ms (frames with a view: ${seen.join(', ') || 'none'})`,
  );
}

/** What playwright says when a frame went away under it: a webview reloading, or moved to another part. */
const DETACHED =
  /Frame was detached|Execution context was destroyed|frame got detached|Target (page, context or browser )?(has been )?closed/i;

/**
 * Runs `act` in the view's frame. A webview that reloads or moves (Reload Webviews, a panel reopened, a
 * sidebar toggled) replaces its frame; an action caught in the old one is run again in the new one,
 * within the same time limit, instead of failing on "Frame was detached".
 */
async function inViewFrame(page, view, timeoutMs, act) {
  const end = Date.now() + timeoutMs;
  let detached;
  for (;;) {
    let frame;
    try {
      frame = await findViewFrame(page, view, Math.max(1, end - Date.now()));
    } catch (error) {
      throw detached ? new Error(`${error.message}; before that, in its old frame: ${detached}`) : error;
    }
    try {
      return await act(frame, Math.max(1, end - Date.now()));
    } catch (error) {
      const message = String(error?.message ?? error);
      if (!DETACHED.test(message) || Date.now() >= end) throw error;
      detached = message.split('\n')[0];
      await sleep(150);
    }
  }
}

export const ops = {
  text: (page, { view, selector, timeoutMs = 20_000 }) =>
    inViewFrame(page, view, timeoutMs, async (frame, left) => {
      const loc = frame.locator(selector).first();
      await loc.waitFor({ state: 'attached', timeout: left });
      return loc.textContent();
    }),
  waitForText: (page, { view, selector, text, timeoutMs = 20_000 }) =>
    inViewFrame(page, view, timeoutMs, async (frame, left) => {
      const loc = frame.locator(selector).filter({ hasText: text }).first();
      await loc.waitFor({ state: 'visible', timeout: left });
      return loc.textContent();
    }),
  count: (page, { view, selector, timeoutMs = 20_000 }) =>
    inViewFrame(page, view, timeoutMs, (frame) => frame.locator(selector).count()),
  click: (page, { view, selector, timeoutMs = 20_000 }) =>
    inViewFrame(page, view, timeoutMs, async (frame, left) => {
      await frame.locator(selector).first().click({ timeout: left });
      return true;
    }),
  fill: (page, { view, selector, value, timeoutMs = 20_000 }) =>
    inViewFrame(page, view, timeoutMs, async (frame, left) => {
      await frame.locator(selector).first().click({ timeout: left });
      await page.keyboard.type(value);
      return true;
    }),
  async press(page, { key }) {
    await page.keyboard.press(key);
    return true;
  },
  /** Runs an expression inside a webview frame (reads state; the CSP does not apply to the debugger). */
  evaluate: (page, { view, expression, timeoutMs = 20_000 }) =>
    inViewFrame(page, view, timeoutMs, (frame) => frame.evaluate(expression)),
  async palette(page, { command, dir }) {
    // Focus the workbench itself: keys pressed while a webview has focus go to the webview.
    await page
      .locator('.part.statusbar')
      .first()
      .click({ position: { x: 5, y: 5 } })
      .catch(() => {});
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 20_000 });
    await input.fill(`>${command}`);
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: command }).first();
    try {
      await row.waitFor({ timeout: 20_000 });
    } catch (error) {
      await page.screenshot({ path: path.join(dir, '..', 'integration', 'palette-failure.png') }).catch(() => {});
      throw error;
    }
    await page.keyboard.press('Enter');
    return true;
  },
  /**
   * Picks an item of the open quick pick by typing its label and pressing Enter: steadier than a click
   * while one quick pick follows another and the list is still re-rendering.
   */
  async quickPick(page, { label, timeoutMs = 20_000 }) {
    const rows = page.locator('.quick-input-widget .monaco-list-row', { hasText: label });
    await rows.first().waitFor({ state: 'visible', timeout: timeoutMs });
    await page.locator('.quick-input-widget input').first().fill(label);
    await page
      .locator('.quick-input-widget .monaco-list-row.focused', { hasText: label })
      .first()
      .waitFor({ state: 'visible', timeout: timeoutMs });
    await page.keyboard.press('Enter');
    return true;
  },
  /**
   * Waits until the input box titled `title` is shown, then gives its field the focus, so keys pressed
   * next go to it. The widget stays in the page, hidden, after an earlier box: being attached proves nothing.
   */
  async focusInputBox(page, { title, timeoutMs = 20_000 }) {
    const widget = page
      .locator('.quick-input-widget', { has: page.locator('.quick-input-title', { hasText: title }) })
      .first();
    await widget.waitFor({ state: 'visible', timeout: timeoutMs });
    const input = widget.locator('.quick-input-box input').first();
    await input.waitFor({ state: 'visible', timeout: timeoutMs });
    await input.focus();
    return true;
  },
  /** Accepts the input box titled `title` as it stands (Enter), once it is shown and focused. */
  async acceptInputBox(page, { title, timeoutMs = 20_000 }) {
    await ops.focusInputBox(page, { title, timeoutMs });
    await page.keyboard.press('Enter');
    return true;
  },
  async workbenchText(page, { selector, timeoutMs = 20_000 }) {
    const loc = page.locator(selector).first();
    await loc.waitFor({ state: 'attached', timeout: timeoutMs });
    return loc.textContent();
  },
  /** Types into a workbench input (the quick pick's filter), replacing what it holds. */
  async fillWorkbench(page, { selector, value, timeoutMs = 20_000 }) {
    await page.locator(selector).first().fill(value, { timeout: timeoutMs });
    return true;
  },
  async clickWorkbench(page, { selector, timeoutMs = 20_000 }) {
    await page.locator(selector).first().click({ timeout: timeoutMs });
    return true;
  },
  /**
   * Turns the mouse wheel over an element of a webview, `steps` times by `dy` pixels, `intervalMs` apart
   * (what a person's wheel sends), with the pointer over the element's middle.
   */
  wheel: (page, { view, selector, steps, dy, intervalMs = 16, timeoutMs = 20_000 }) =>
    inViewFrame(page, view, timeoutMs, async (frame, left) => {
      const box = await frame.locator(selector).first().boundingBox({ timeout: left });
      if (!box) throw new Error(`${selector} has no box to turn the wheel over`);
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      for (let i = 0; i < steps; i++) {
        await page.mouse.wheel(0, dy);
        await sleep(intervalMs);
      }
      return true;
    }),
  /**
   * The memory of the renderer that runs a webview, after a garbage collection (HeapProfiler.collectGarbage
   * over the Chrome DevTools Protocol): `jsHeapMb`, Performance.getMetrics' JSHeapUsedSize of the nearest
   * frame (itself or an ancestor) with a target of its own (a webview's iframe runs out of process), and
   * `rendererRssMb`, the resident memory of this browser's renderer processes (Linux /proc), which also
   * counts the DOM (Blink's heap is not the JS heap).
   */
  memory: (page, { view, timeoutMs = 20_000 }) =>
    inViewFrame(page, view, timeoutMs, async (frame) => {
      let session;
      for (let f = frame; f && !session; f = f.parentFrame()) {
        session = await page
          .context()
          .newCDPSession(f)
          .catch(() => undefined);
      }
      session ??= await page.context().newCDPSession(page);
      try {
        await session.send('HeapProfiler.collectGarbage');
        await session.send('Performance.enable');
        const { metrics } = await session.send('Performance.getMetrics');
        const used = metrics.find((m) => m.name === 'JSHeapUsedSize');
        if (!used) throw new Error('Performance.getMetrics gave no JSHeapUsedSize');
        return { jsHeapMb: used.value / 2 ** 20, rendererRssMb: rendererRssKb() / 1024 };
      } finally {
        await session.detach().catch(() => {});
      }
    }),
  async screenshot(page, { name, dir }) {
    // A name may start with one folder ("walkthrough/01-first-run-light") to keep a set together.
    if (!/^(?:[\w-]+\/)?[\w.-]+$/.test(name)) throw new Error(`bad screenshot name ${name}`);
    const file = path.join(dir, `${name}.png`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    await page.screenshot({ path: file });
    return { file, bytes: fs.statSync(file).size };
  },
};

export async function createUiBridge({ getPage, screenshots, log }) {
  let failures = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', async () => {
      let reply;
      try {
        const request = JSON.parse(body);
        const op = ops[request.op];
        if (!op) throw new Error(`unknown op ${request.op}`);
        const page = getPage();
        if (!page) throw new Error('the workbench page is not open yet');
        reply = { ok: true, value: await op(page, { ...request, dir: screenshots }) };
      } catch (error) {
        reply = { ok: false, error: String(error?.message ?? error) };
        log('ui bridge:', reply.error.split('\n')[0]);
        // What the workbench looked like when an action failed, for the failing test's diagnosis.
        failures++;
        await getPage()
          ?.screenshot({ path: path.join(screenshots, '..', 'integration', `ui-failure-${failures}.png`) })
          .catch(() => {});
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The resident kB of the Chromium renderer processes started under this process (0 off Linux). */
function rendererRssKb() {
  if (!fs.existsSync('/proc/self/stat')) return 0;
  const parentOf = (pid) => {
    try {
      // The second field (the command) may hold spaces; the parent pid is the second field after it.
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      return 0;
    }
  };
  let total = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline;
    try {
      cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!cmdline.includes('--type=renderer')) continue;
    let pid = Number(entry);
    while (pid > 1 && pid !== process.pid) pid = parentOf(pid);
    if (pid !== process.pid) continue;
    const rss = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${entry}/status`, 'utf8'));
    total += rss ? Number(rss[1]) : 0;
  }
  return total;
}
