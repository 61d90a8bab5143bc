#!/usr/bin/env node
// Runs the integration tests (dist/test/integration/index.js) inside a REAL VS Code extension host:
// the VS Code server bundled in the npm package code-server, opened in headless Debian Chromium through
// playwright-core. The tests run in the Node extension host; when they need the UI (read text inside a
// webview iframe, click, run a palette command, take a screenshot) they ask this process over a small
// HTTP "UI bridge" on 127.0.0.1, because only this side holds the browser.
//
// Env: ENGRAM_TEST_GREP (mocha grep), ENGRAM_TEST_PHASES (default main,after-reload,zh-cn,untrusted),
// ENGRAM_HOST_TIMEOUT_MS (whole run, default 15 min), KEEP_TMP=1.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { installTestHost } from '../../scripts/installTestHost.mjs';
import { writeProfileSettings } from '../../scripts/profileSettings.mjs';
import { createUiBridge } from './uiBridge.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const host = await installTestHost();
const require = createRequire(path.join(host.nodeModules, 'noop.js'));
const { chromium } = require('playwright-core');

const t0 = Date.now();
const log = (...args) => console.log(`[host ${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...args);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const timeoutMs = Number(process.env.ENGRAM_HOST_TIMEOUT_MS || 15 * 60_000);

const runsDir = path.join(root, '.vscode-test', 'runs');
fs.mkdirSync(runsDir, { recursive: true });
const tmp = fs.mkdtempSync(path.join(runsDir, 'run-'));
const artifacts = path.join(root, 'test-artifacts', 'integration');
const screenshots = path.join(root, 'test-artifacts', 'screenshots');
fs.rmSync(artifacts, { recursive: true, force: true });
for (const d of [artifacts, screenshots]) fs.mkdirSync(d, { recursive: true });

// A sample workspace the tests may change, and dirs so that nothing leaks into ~ or /tmp.
const ws = path.join(tmp, 'workspace');
fs.cpSync(path.join(root, 'test', 'fixtures', 'workspace'), ws, { recursive: true });
// Its own git repository, as most projects are (and so it is not taken for part of this repository).
spawnSync('git', ['init', '-q', ws]);
const dirs = Object.fromEntries(
  ['home', 'tmp', 'user-data', 'server-data', 'extensions', 'chrome', 'engram-data'].map((d) => [d, path.join(tmp, d)]),
);
for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true });
// The tests open their workspace trusted, with workspace trust off; the [untrusted] phase turns it on and
// opens a folder nobody trusted, which VS Code opens in Restricted Mode without asking.
const profileSettings = [
  path.join(dirs['server-data'], 'data', 'Machine', 'settings.json'),
  path.join(dirs['user-data'], 'User', 'settings.json'),
];
function setWorkspaceTrust(on) {
  const trust = on
    ? { 'security.workspace.trust.enabled': true, 'security.workspace.trust.startupPrompt': 'never' }
    : { 'security.workspace.trust.enabled': false };
  for (const file of profileSettings) writeProfileSettings(file, trust);
}
setWorkspaceTrust(false);
// The untrusted phase's folder: the same sample workspace, in a git repository of its own.
const untrustedWs = path.join(tmp, 'untrusted-workspace');
fs.cpSync(path.join(root, 'test', 'fixtures', 'workspace'), untrustedWs, { recursive: true });
spawnSync('git', ['init', '-q', untrustedWs]);

const phaseFile = path.join(tmp, 'phase.json');
let server;
let context;
let bridge;

async function main() {
  const port = await freePort();
  bridge = await createUiBridge({ getPage: () => page, screenshots, log });
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
      '--enable-smoke-test-driver', // without it VS Code 1.139 ignores the payload's extensionTestsPath
      '--user-data-dir',
      dirs['user-data'],
      '--server-data-dir',
      dirs['server-data'],
      '--extensions-dir',
      dirs.extensions,
      '--logsPath',
      path.join(artifacts, 'vscode-logs'),
    ],
    {
      detached: true,
      stdio: ['ignore', serverLog, serverLog],
      env: {
        ...process.env,
        HOME: dirs.home,
        TMPDIR: dirs.tmp,
        ENGRAM_DATA_DIR: dirs['engram-data'],
        ENGRAM_UI_BRIDGE: bridge.url,
        ENGRAM_TEST_PHASE_FILE: phaseFile,
        ENGRAM_TEST_WORKSPACE: ws,
        ENGRAM_REPO_ROOT: root,
        // The system Node (the host runs on its own Node 24): for child processes with native addons, the team server's SQLite.
        ENGRAM_TEST_NODE: process.execPath,
        ANTHROPIC_API_KEY: '',
        ANTHROPIC_BASE_URL: '',
      },
    },
  );
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; (await httpStatus(`${base}/`)) !== 200; i++) {
    if (i > 480 || server.exitCode !== null)
      throw new Error(`VS Code server did not start; see ${artifacts}/server.log`);
    await sleep(250);
  }
  log('VS Code server up on', base);
  const remote = (p) => `vscode-remote://127.0.0.1:${port}${p}`;
  const payload = [
    ['extensionDevelopmentPath', remote(root)],
    ['extensionTestsPath', remote(path.join(root, 'dist', 'test', 'integration', 'index'))],
    ['skipWelcome', 'true'],
  ];
  const browserLog = fs.createWriteStream(path.join(artifacts, 'browser-console.log'));
  let exit;
  const openBrowser = async (profile) => {
    await context?.close();
    context = await chromium.launchPersistentContext(profile, {
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
    page.on('console', (m) => browserLog.write(`[${m.type()}] ${m.text()}\n`));
    await page.exposeFunction('codeAutomationLog', (type, args) => {
      if (type !== 'trace' && type !== 'debug') console.log(...(args ?? []));
    });
    await page.exposeFunction('codeAutomationExit', (code) => exit?.(code));
  };
  await openBrowser(dirs.chrome);
  const urlOf = (folder) =>
    `${base}/?folder=${encodeURIComponent(folder)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  // Phase "main" runs every suite; then the window is loaded again (what a user's "Reload Window" does:
  // a new workbench and extension host on the same server and data) and the [after-reload] tests run;
  // then once more with the display language Simplified Chinese, for the [zh-cn] tests; last with workspace
  // trust on, in a folder nobody trusted, for the [untrusted] tests.
  const phases = (process.env.ENGRAM_TEST_PHASES || 'main,after-reload,zh-cn,untrusted').split(',');
  let worst = 0;
  for (const phase of phases) {
    setDisplayLanguage(phase === 'zh-cn' ? 'zh-cn' : undefined);
    setWorkspaceTrust(phase === 'untrusted');
    // A newcomer's browser: the workbench's own state (extensions' globalState among it) lives in the
    // browser profile, so the zh-cn and untrusted phases start from a fresh one, on the same server and data.
    if (phase === 'zh-cn' || phase === 'untrusted') await openBrowser(`${dirs.chrome}-${phase}`);
    const url = urlOf(phase === 'untrusted' ? untrustedWs : ws);
    fs.writeFileSync(phaseFile, JSON.stringify({ phase, results: path.join(tmp, `results-${phase}.json`) }));
    log(`phase ${phase}: loading the workbench`);
    const exitCode = new Promise((resolve) => {
      exit = resolve;
    });
    await page.goto(url);
    const code = await Promise.race([exitCode, sleep(timeoutMs).then(() => 'timeout')]);
    await page.screenshot({ path: path.join(artifacts, `final-${phase}.png`) }).catch(() => {});
    log(`phase ${phase}: exit code ${code}`);
    if (code === 'timeout') return code;
    if (Number(code) !== 0) worst = Number(code) || 1;
  }
  return worst;
}

let page;

/**
 * The display language of the next workbench load. The VS Code server reads `locale` from argv.json on
 * each load, and uses it only when a language pack for it is installed; Microsoft's Chinese pack cannot
 * be fetched offline, so a stand-in pack with no translations of its own is registered: VS Code's own
 * UI stays English while vscode.env.language, and with it Engram's strings, are zh-cn.
 */
function setDisplayLanguage(locale) {
  const argv = path.join(dirs['user-data'], 'User', 'argv.json');
  if (!locale) {
    fs.rmSync(argv, { force: true });
    return;
  }
  const translations = path.join(tmp, 'language-pack', `${locale}.i18n.json`);
  fs.mkdirSync(path.dirname(translations), { recursive: true });
  fs.writeFileSync(translations, JSON.stringify({ contents: {} }));
  fs.writeFileSync(
    path.join(dirs['user-data'], 'languagepacks.json'),
    JSON.stringify({
      [locale]: {
        hash: `engram-test-${locale}`,
        extensions: [{ extensionIdentifier: { id: `engram-test.language-pack-${locale}` }, version: '0.0.0' }],
        translations: { vscode: translations },
        label: locale,
      },
    }),
  );
  fs.mkdirSync(path.dirname(argv), { recursive: true });
  fs.writeFileSync(argv, JSON.stringify({ locale }));
}

function httpStatus(url) {
  return new Promise((resolve) => {
    http
      .get(url, (res) => {
        res.resume();
        resolve(res.statusCode);
      })
      .on('error', () => resolve(0));
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = http.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

async function cleanup() {
  await context?.close().catch(() => {});
  await bridge?.close();
  if (server && server.exitCode === null) {
    try {
      process.kill(-server.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
    for (let i = 0; i < 40 && server.exitCode === null; i++) await sleep(100);
    if (server.exitCode === null)
      try {
        process.kill(-server.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
  }
  if (!process.env.KEEP_TMP) fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
}

function report(code) {
  const counts = { passed: 0, failed: 0, skipped: 0, failures: [] };
  for (const f of fs.readdirSync(tmp).filter((n) => /^results-.*\.json$/.test(n))) {
    const c = JSON.parse(fs.readFileSync(path.join(tmp, f), 'utf8'));
    counts.passed += c.passed;
    counts.failed += c.failed;
    counts.skipped += c.skipped;
    counts.failures.push(...c.failures);
  }
  // A host that died before its suite reported still counts as a failure.
  if (code !== 0 && counts.failed === 0) counts.failed = 1;
  fs.writeFileSync(
    process.env.ENGRAM_INTEGRATION_COUNTS || path.join(root, 'test-artifacts', 'integration-counts.json'),
    JSON.stringify(counts),
  );
  log(`integration: ${counts.passed} passed, ${counts.failed} failed (exit ${code})`);
  return counts;
}

main().then(
  async (code) => {
    report(code);
    await cleanup();
    process.exit(code === 'timeout' ? 124 : Number(code) || 0);
  },
  async (error) => {
    console.error('[host] runner failed:', error);
    report(2);
    await cleanup();
    process.exit(2);
  },
);
