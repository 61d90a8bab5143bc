// The UI bridge: integration tests in the extension host POST {op, ...} to this server; it acts on the
// workbench page with playwright-core and answers {ok, value} or {ok: false, error}. Only 127.0.0.1.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The frame of an Engram webview: its body carries data-engram-view="<view>". */
export async function findViewFrame(page, view, timeoutMs) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    for (const frame of page.frames()) {
      try {
        if (await frame.evaluate((v) => document.body?.dataset?.engramView === v, view)) return frame;
      } catch { /* frame navigating or detached */ }
    }
    await sleep(150);
  }
  throw new Error(`no webview frame for view '${view}' within ${timeoutMs} ms`);
}

export const ops = {
  async text(page, { view, selector, timeoutMs = 20_000 }) {
    const frame = await findViewFrame(page, view, timeoutMs);
    const loc = frame.locator(selector).first();
    await loc.waitFor({ state: 'attached', timeout: timeoutMs });
    return loc.textContent();
  },
  async waitForText(page, { view, selector, text, timeoutMs = 20_000 }) {
    const frame = await findViewFrame(page, view, timeoutMs);
    const loc = frame.locator(selector).filter({ hasText: text }).first();
    await loc.waitFor({ state: 'visible', timeout: timeoutMs });
    return loc.textContent();
  },
  async count(page, { view, selector, timeoutMs = 20_000 }) {
    const frame = await findViewFrame(page, view, timeoutMs);
    return frame.locator(selector).count();
  },
  async click(page, { view, selector, timeoutMs = 20_000 }) {
    const frame = await findViewFrame(page, view, timeoutMs);
    await frame.locator(selector).first().click({ timeout: timeoutMs });
    return true;
  },
  async fill(page, { view, selector, value, timeoutMs = 20_000 }) {
    const frame = await findViewFrame(page, view, timeoutMs);
    const loc = frame.locator(selector).first();
    await loc.click({ timeout: timeoutMs });
    await page.keyboard.type(value);
    return true;
  },
  async press(page, { key }) {
    await page.keyboard.press(key);
    return true;
  },
  /** Runs an expression inside a webview frame (reads state; the CSP does not apply to the debugger). */
  async evaluate(page, { view, expression, timeoutMs = 20_000 }) {
    const frame = await findViewFrame(page, view, timeoutMs);
    return frame.evaluate(expression);
  },
  async palette(page, { command, dir }) {
    // Focus the workbench itself: keys pressed while a webview has focus go to the webview.
    await page.locator('.part.statusbar').first().click({ position: { x: 5, y: 5 } }).catch(() => {});
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
    await page.locator('.quick-input-widget .monaco-list-row.focused', { hasText: label }).first().waitFor({ state: 'visible', timeout: timeoutMs });
    await page.keyboard.press('Enter');
    return true;
  },
  async workbenchText(page, { selector, timeoutMs = 20_000 }) {
    const loc = page.locator(selector).first();
    await loc.waitFor({ state: 'attached', timeout: timeoutMs });
    return loc.textContent();
  },
  async clickWorkbench(page, { selector, timeoutMs = 20_000 }) {
    await page.locator(selector).first().click({ timeout: timeoutMs });
    return true;
  },
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
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
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
