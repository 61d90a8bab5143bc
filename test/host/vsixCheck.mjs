#!/usr/bin/env node
// Does the packaged extension work for someone who installs the .vsix? Packs a copy of this tree exactly
// as `npm run package` does (production build, the same vsce flags), installs the .vsix with the VS Code
// server's own --install-extension into an empty extensions folder, then starts a SECOND VS Code server
// (the one the host tests use, from .vscode-test/) with only that folder: no development extension path,
// fresh user, server, home and Engram data folders. Headless Chromium then opens the Engram view container
// and waits for the Chat view's first-run screen, runs "Engram: Open Memory Inspector" from the palette and
// waits for the inspector, and finds Engram with its own icon in the Extensions view.
//
// Exit 0 when every step passed; otherwise the step that failed, why, and the extension host's log lines
// about Engram. The server is killed at the end in every case. Screenshot:
// test-artifacts/screenshots/vsix-installed.png (vsix-failure.png when a step fails).
// Env: ENGRAM_VSIX_TIMEOUT_MS (whole check, default 10 min), KEEP_TMP=1.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { installTestHost } from '../../scripts/installTestHost.mjs';
import { writeProfileSettings } from '../../scripts/profileSettings.mjs';
import { findViewFrame, ops } from './uiBridge.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const t0 = Date.now();
const log = (...args) => console.log(`[vsix ${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...args);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const timeoutMs = Number(process.env.ENGRAM_VSIX_TIMEOUT_MS || 10 * 60_000);
// CI machines have two cores: a cold VS Code server and its first webview take a while there.
const UI_WAIT_MS = 120_000;
const EXTENSION_ID = 'engram-dev.engram';
// What the installed copy must hold besides its manifest: the entry point is checked from the manifest.
const SHIPPED_FILES = [
  'dist/engine.js',
  'dist/webview/chat.js',
  'dist/webview/inspector.js',
  'dist/webview/codicon.css',
  'l10n/bundle.l10n.zh-cn.json',
  'package.nls.zh-cn.json',
  'docs/memory.md',
];
// The parts of the tree `npm run package` reads; node_modules is linked, not copied.
const PACKAGE_INPUTS = [
  'package.json',
  'package.nls.json',
  'package.nls.zh-cn.json',
  'l10n',
  'media',
  'README.md',
  'docs',
  'LICENSE',
  '.vscodeignore',
  'esbuild.mjs',
  'tsconfig.json',
  'src',
  'webview',
];

const screenshots = path.join(root, 'test-artifacts', 'screenshots');
const artifacts = path.join(root, 'test-artifacts', 'vsix');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-vsix-check-'));
const dirs = Object.fromEntries(
  ['src', 'home', 'tmp', 'user-data', 'server-data', 'extensions', 'chrome', 'engram-data', 'workspace'].map((d) => [
    d,
    path.join(tmp, d),
  ]),
);

let server;
let context;
let page;

/** Runs one step; a failure names the step. */
async function step(name, fn) {
  const started = Date.now();
  try {
    const value = await fn();
    log(`ok   ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    return value;
  } catch (error) {
    throw new Error(`step "${name}" failed: ${error?.message ?? error}`, { cause: error });
  }
}

function run(cmd, args, opts) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...opts });
  if (r.status !== 0)
    throw new Error(
      `'${cmd} ${args.join(' ')}' exited ${r.status ?? r.signal}\n${r.stdout ?? ''}${r.stderr ?? ''}${r.error ?? ''}`,
    );
  return r.stdout;
}

function packageVsix() {
  for (const f of PACKAGE_INPUTS) fs.cpSync(path.join(root, f), path.join(dirs.src, f), { recursive: true });
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(dirs.src, 'node_modules'), 'dir');
  // npm of an enclosing `npm test` must not hand its own npm_* settings to this one.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  run('npm', ['run', '-s', 'package'], { cwd: dirs.src, env });
  const vsix = path.join(dirs.src, 'engram.vsix');
  if (!fs.existsSync(vsix)) throw new Error(`npm run package wrote no ${vsix}`);
  return vsix;
}

function installVsix(host, vsix) {
  const out = run(
    host.node,
    [
      path.join(host.serverDir, 'out', 'server-main.js'),
      '--install-extension',
      vsix,
      '--extensions-dir',
      dirs.extensions,
      '--server-data-dir',
      dirs['server-data'],
      '--accept-server-license-terms',
    ],
    { env: serverEnv() },
  );
  if (!/successfully installed/i.test(out)) throw new Error(`the server did not say it installed the .vsix:\n${out}`);
  const installed = fs.readdirSync(dirs.extensions).filter((d) => !d.startsWith('.') && d !== 'extensions.json');
  if (installed.length !== 1 || !installed[0].startsWith(`${EXTENSION_ID}-`)) {
    throw new Error(`the extensions folder should hold only Engram, holds: ${installed.join(', ')}`);
  }
  const dir = path.join(dirs.extensions, installed[0]);
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  if (manifest.icon !== 'media/icon.png') throw new Error(`the installed manifest's icon is ${manifest.icon}`);
  const missing = [manifest.icon, manifest.main, ...SHIPPED_FILES].filter((f) => !fs.existsSync(path.join(dir, f)));
  if (missing.length > 0) throw new Error(`missing from the installed extension: ${missing.join(', ')}`);
  return dir;
}

function serverEnv() {
  return {
    ...process.env,
    HOME: dirs.home,
    TMPDIR: dirs.tmp,
    ENGRAM_DATA_DIR: dirs['engram-data'],
    ANTHROPIC_API_KEY: '',
    ANTHROPIC_BASE_URL: '',
    ENGRAM_UI_BRIDGE: '',
    ENGRAM_TEST_PHASE_FILE: '',
  };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer().once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function isUp(url) {
  return new Promise((resolve) => {
    http
      .get(url, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      })
      .on('error', () => resolve(false));
  });
}

async function startServer(host) {
  const port = await freePort();
  const serverLog = fs.openSync(path.join(artifacts, 'server.log'), 'w');
  server = spawn(
    host.node,
    [
      path.join(host.serverDir, 'out', 'server-main.js'),
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--without-connection-token',
      '--accept-server-license-terms',
      '--disable-telemetry',
      '--disable-workspace-trust',
      '--user-data-dir',
      dirs['user-data'],
      '--server-data-dir',
      dirs['server-data'],
      '--extensions-dir',
      dirs.extensions,
      '--logsPath',
      path.join(artifacts, 'vscode-logs'),
    ],
    { detached: true, stdio: ['ignore', serverLog, serverLog], env: serverEnv() },
  );
  const base = `http://127.0.0.1:${port}`;
  const end = Date.now() + UI_WAIT_MS;
  while (!(await isUp(`${base}/`))) {
    if (server.exitCode !== null)
      throw new Error(`the VS Code server exited (${server.exitCode}); see ${artifacts}/server.log`);
    if (Date.now() > end)
      throw new Error(`the VS Code server did not answer within ${UI_WAIT_MS / 1000} s; see ${artifacts}/server.log`);
    await sleep(250);
  }
  return base;
}

async function openWorkbench(host, base) {
  const { chromium } = createRequire(path.join(host.nodeModules, 'noop.js'))('playwright-core');
  context = await chromium.launchPersistentContext(dirs.chrome, {
    executablePath: host.chromium,
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  page = context.pages()[0] ?? (await context.newPage());
  const browserLog = fs.createWriteStream(path.join(artifacts, 'browser-console.log'));
  page.on('console', (m) => browserLog.write(`[${m.type()}] ${m.text()}\n`));
  await page.goto(`${base}/?folder=${encodeURIComponent(dirs.workspace)}`);
  await page.locator('.part.activitybar').first().waitFor({ state: 'visible', timeout: UI_WAIT_MS });
}

/** Text of `selector` in an Engram webview once it shows `text`. */
async function webviewText(view, selector, text) {
  const frame = await findViewFrame(page, view, UI_WAIT_MS);
  const loc = frame.locator(selector).filter({ hasText: text }).first();
  await loc.waitFor({ state: 'visible', timeout: UI_WAIT_MS });
  return loc.textContent();
}

async function checkExtensionsView() {
  await ops.palette(page, { command: 'Extensions: Show Installed Extensions', dir: screenshots });
  const row = page.locator('.extensions-viewlet .extension-list-item', { hasText: 'Engram' }).first();
  await row.waitFor({ state: 'visible', timeout: UI_WAIT_MS });
  const icon = row.locator('.icon-container img.icon');
  // The image is shown only once it has loaded; without an icon VS Code shows a codicon placeholder instead.
  const end = Date.now() + UI_WAIT_MS;
  let seen;
  while (Date.now() < end) {
    seen = await icon
      .evaluate((img) => ({
        src: img.src,
        width: img.naturalWidth,
        shown: getComputedStyle(img).display !== 'none' && getComputedStyle(img).visibility !== 'hidden',
      }))
      .catch((e) => ({ error: String(e.message ?? e) }));
    if (seen.shown && seen.width > 0) break;
    await sleep(250);
  }
  if (!seen?.shown || !(seen.width > 0) || !/icon\.png/.test(seen.src))
    throw new Error(`Engram's row shows no icon of its own: ${JSON.stringify(seen)}`);
  return seen;
}

/** The extension host's own words when Engram failed to activate (its error and stack), or undefined. */
function activationError() {
  const logs = path.join(artifacts, 'vscode-logs');
  if (!fs.existsSync(logs)) return undefined;
  for (const f of fs
    .readdirSync(logs, { recursive: true })
    .map(String)
    .filter((f) => /exthost\.log$/i.test(f))) {
    const lines = fs.readFileSync(path.join(logs, f), 'utf8').split('\n');
    const at = lines.findIndex((l) => l.includes(`Activating extension ${EXTENSION_ID} failed`));
    if (at >= 0) return `${f}:\n${lines.slice(at, at + 8).join('\n')}`;
  }
  return undefined;
}

/** Rejects as soon as the extension host logs a failed activation, instead of waiting out the UI's timeouts. */
function watchActivation() {
  let timer;
  const failed = new Promise((_, reject) => {
    timer = setInterval(() => {
      const error = activationError();
      if (error) reject(new Error(`Engram failed to activate:\n${error}`));
    }, 500);
  });
  return { failed, stop: () => clearInterval(timer) };
}

async function check() {
  const host = await step('test host is installed', () => installTestHost());
  const vsix = await step('npm run package makes the .vsix', () => packageVsix());
  log(`  ${path.basename(vsix)}: ${(fs.statSync(vsix).size / 1024).toFixed(0)} KB`);
  await step('the server installs it into an empty extensions folder, icon and files included', () =>
    installVsix(host, vsix),
  );
  const base = await step('a second VS Code server starts with only that extension', () => startServer(host));
  await step('the workbench loads', () => openWorkbench(host, base));
  await step('the Engram view container opens from the activity bar', async () => {
    await page.locator('.part.activitybar .action-item [aria-label^="Engram"]').first().click({ timeout: UI_WAIT_MS });
  });
  const welcome = await step('the Chat view shows its first-run screen', () =>
    webviewText('chat', '#setup h2', 'Welcome to Engram'),
  );
  log(`  chat: "${welcome}"`);
  await step('"Engram: Open Memory Inspector" opens the inspector', async () => {
    await ops.palette(page, { command: 'Engram: Open Memory Inspector', dir: screenshots });
    const folder = await webviewText('inspector', '#data-folder', 'Data folder');
    if (!folder.includes(dirs['engram-data'])) throw new Error(`the inspector names another data folder: ${folder}`);
  });
  const icon = await step('the Extensions view lists Engram with its own icon', () => checkExtensionsView());
  log(`  icon: ${icon.src} (${icon.width} px)`);
  await page.screenshot({ path: path.join(screenshots, 'vsix-installed.png') });
}

async function cleanup() {
  await context?.close().catch(() => {});
  if (server && server.exitCode === null) {
    try {
      process.kill(-server.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
    for (let i = 0; i < 50 && server.exitCode === null; i++) await sleep(100);
    if (server.exitCode === null)
      try {
        process.kill(-server.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
  }
  if (!process.env.KEEP_TMP) fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
  else log(`kept ${tmp}`);
}

async function main() {
  fs.rmSync(artifacts, { recursive: true, force: true });
  for (const d of [artifacts, screenshots, ...Object.values(dirs)]) fs.mkdirSync(d, { recursive: true });
  writeProfileSettings(path.join(dirs['server-data'], 'data', 'Machine', 'settings.json'));
  writeProfileSettings(path.join(dirs['user-data'], 'User', 'settings.json'));
  fs.writeFileSync(path.join(dirs.workspace, 'README.md'), '# A project\n');
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the check took longer than ${timeoutMs / 1000} s`)), timeoutMs);
  });
  const activation = watchActivation();
  try {
    await Promise.race([check(), timeout, activation.failed]);
    log(`the installed .vsix activates and works (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    return 0;
  } catch (error) {
    console.error(`[vsix] FAILED: ${error.message}`);
    await page?.screenshot({ path: path.join(screenshots, 'vsix-failure.png') }).catch(() => {});
    const reason = activationError();
    if (reason && !error.message.includes(reason)) console.error(`[vsix] Engram failed to activate:\n${reason}`);
    console.error(`[vsix] logs: ${artifacts}`);
    return 1;
  } finally {
    clearTimeout(timer);
    activation.stop();
    await cleanup();
  }
}

process.exit(await main());
