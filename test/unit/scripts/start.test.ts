import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { useTempDirs } from '../support/tempDirs';

// `npm start` for real (the VS Code server of the test host), with HOME in a temp folder and no API key:
// what it prints, where it writes, and what a newcomer sees in the browser: the first-run screen of the
// README's first hour (npm start used to turn the demo on behind it), then the demo one click away.
// Screenshots of the screen in a dark and a light theme (test-artifacts/screenshots/npm-start-*).
const root = path.resolve(__dirname, '../../..');
const tempDir = useTempDirs();
// The installer's own marker (scripts/installTestHost.mjs): without it npm start would spend minutes installing.
const hostDir = process.env.ENGRAM_TEST_HOST_DIR || path.join(root, '.vscode-test');
const ready = fs.existsSync(path.join(hostDir, 'host.json')) && fs.existsSync(path.join(root, 'dist', 'extension.js'));

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

type Frame = {
  locator(s: string): {
    first(): {
      waitFor(o: object): Promise<void>;
      click(o?: object): Promise<void>;
      textContent(): Promise<string | null>;
    };
  };
  evaluate<T>(e: string): Promise<T>;
};
interface Page {
  goto(url: string): Promise<unknown>;
  locator(s: string): { first(): { click(o?: object): Promise<void> } };
  keyboard: { type(t: string): Promise<void>; press(k: string): Promise<void> };
  mouse: { move(x: number, y: number): Promise<void> };
  screenshot(o: { path: string }): Promise<unknown>;
}

/**
 * Opens npm start's URL in the test host's Chromium: the Engram view, its first-run screen, and the demo
 * chosen there.
 */
async function firstRunInBrowser(url: string, userSettings: string): Promise<void> {
  const require = createRequire(path.join(hostDir, 'cs', 'node_modules', 'noop.js'));
  const { chromium } = require('playwright-core') as {
    chromium: { launch(o: object): Promise<{ newPage(o: object): Promise<Page>; close(): Promise<void> }> };
  };
  const { findViewFrame } = (await import(pathToFileURL(path.join(root, 'test', 'host', 'uiBridge.mjs')).href)) as {
    findViewFrame(page: Page, view: string, ms: number): Promise<Frame>;
  };
  const shots = path.join(root, 'test-artifacts', 'screenshots');
  fs.mkdirSync(shots, { recursive: true });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(url);
    await page.locator('.part.activitybar [aria-label^="Engram"]').first().click({ timeout: 60_000 });
    let chat = await findViewFrame(page, 'chat', 60_000);
    await chat.locator('#setup').first().waitFor({ state: 'visible', timeout: 30_000 });
    await page.mouse.move(900, 450);
    assert.match(
      (await chat.locator('#setup').first().textContent()) ?? '',
      /Welcome to Engram[\s\S]*API key[\s\S]*base URL[\s\S]*offline demo/,
    );
    await page.screenshot({ path: path.join(shots, 'npm-start-first-run-dark.png') });
    // The light theme through the profile's settings file, which VS Code applies as it changes.
    fs.writeFileSync(
      userSettings,
      JSON.stringify(
        { ...JSON.parse(fs.readFileSync(userSettings, 'utf8')), 'workbench.colorTheme': 'Default Light Modern' },
        null,
        2,
      ),
    );
    for (let i = 0; i < 150 && !(await chat.evaluate<boolean>("document.body.classList.contains('vscode-light')")); i++)
      await new Promise((r) => setTimeout(r, 200));
    assert.equal(
      await chat.evaluate<boolean>("document.body.classList.contains('vscode-light')"),
      true,
      'the light theme reached the webview',
    );
    await page.screenshot({ path: path.join(shots, 'npm-start-first-run-light.png') });
    // One click to the demo, which answers without any network.
    await chat.locator('#setup-demo').first().click({ timeout: 20_000 });
    chat = await findViewFrame(page, 'chat', 30_000);
    await chat.locator('.chat-model').first().waitFor({ state: 'visible', timeout: 30_000 });
    assert.match((await chat.locator('.chat-model').first().textContent()) ?? '', /offline demo/);
    await chat.locator('#prompt').first().click({ timeout: 20_000 });
    await page.keyboard.type('what do you remember?');
    await page.keyboard.press('Enter');
    await chat.locator('.item-assistant').first().waitFor({ state: 'visible', timeout: 60_000 });
  } finally {
    await browser.close();
  }
}

describe('npm start', () => {
  it('prints one URL to open, keeps its data and a sample git workspace outside the clone, never in ~/.engram; the page shows the first-run screen, the demo a click away', {
    skip: ready ? false : 'needs the test host (npm run setup:test-host) and the build (node esbuild.mjs)',
    timeout: 180_000,
  }, async () => {
    const home = tempDir('engram-home-');
    const port = await freePort();
    const env: Record<string, string> = { ...(process.env as Record<string, string>), HOME: home, PORT: String(port) };
    for (const k of [
      'ANTHROPIC_API_KEY',
      'ANTHROPIC_BASE_URL',
      'ENGRAM_DATA_DIR',
      'ENGRAM_WORKSPACE',
      'ENGRAM_DEV_DIR',
      'XDG_CACHE_HOME',
    ])
      delete env[k];
    const child = spawn(process.execPath, [path.join(root, 'scripts', 'start.mjs')], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
    });
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d) => {
          out += d;
          if (out.includes('Ctrl+C stops')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`npm start exited (${code}):\n${out}\n${err}`)));
      });
      assert.match(out, /No ANTHROPIC_API_KEY: the Chat view opens on its first-run screen/);
      await firstRunInBrowser(
        /https?:\/\/\S+/.exec(out)![0],
        path.join(home, '.cache', 'engram-dev', 'user-data', 'User', 'settings.json'),
      );
    } finally {
      // Stopped, and waited for: it stops the VS Code server it started, which writes into the data dir
      // until it has gone, and the folder is removed after the test.
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      if (child.exitCode === null) await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
    }
    // The setup log: each step closes with one line naming it, and npm's line per package stays out.
    assert.doesNotMatch(out + err, /npm http /);
    for (const line of out.split('\n').filter((l) => /\bdone\b/.test(l)))
      assert.match(line, /^\[engram test host\] step \d\/\d done in \d+ s/);
    const urls = out.match(/https?:\/\/\S+/g) ?? [];
    assert.equal(urls.length, 1, out);
    assert.ok(urls[0].startsWith(`http://127.0.0.1:${port}/?folder=`), urls[0]);
    assert.doesNotMatch(out + err, /ANTHROPIC_BASE_URL|test server on/);
    const devDir = path.join(home, '.cache', 'engram-dev');
    const workspace = decodeURIComponent(/folder=([^&]+)/.exec(urls[0])![1]);
    assert.equal(workspace, path.join(devDir, 'workspace'));
    assert.ok(path.relative(root, workspace).startsWith('..'), 'the workspace is outside the clone');
    assert.ok(fs.existsSync(path.join(workspace, '.git')), 'the sample workspace is a git repository of its own');
    assert.ok(fs.existsSync(path.join(devDir, 'data')), 'the data folder');
    assert.match(out, new RegExp(`data folder: ${path.join(devDir, 'data').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.equal(fs.existsSync(path.join(home, '.engram')), false, 'nothing in ~/.engram');
  });
});
