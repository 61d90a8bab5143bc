#!/usr/bin/env node
// `npm start`: serves VS Code (the server bundled in code-server) on 127.0.0.1 with Engram loaded in
// development mode and a sample workspace, and prints the URL to open in a browser.
// Without ANTHROPIC_API_KEY it also starts the project's Anthropic-compatible test server as the
// "offline demo model", so the chat works on a machine with no network.
// Env: PORT (default 8730), ENGRAM_WORKSPACE (folder to open), ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { installTestHost } from './installTestHost.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const host = installTestHost();
const port = Number(process.env.PORT || 8730);
const devDir = path.join(root, '.engram-dev');
const workspace = path.resolve(process.env.ENGRAM_WORKSPACE || path.join(devDir, 'workspace'));
if (!process.env.ENGRAM_WORKSPACE && !fs.existsSync(workspace)) {
  fs.cpSync(path.join(root, 'test', 'fixtures', 'workspace'), workspace, { recursive: true });
}
const dirs = { userData: path.join(devDir, 'user-data'), serverData: path.join(devDir, 'server-data'), extensions: path.join(devDir, 'extensions') };
for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true });
// What people see should be Engram, not VS Code's own chat or a walkthrough (user and machine settings).
for (const settingsFile of [path.join(dirs.userData, 'User', 'settings.json'), path.join(dirs.serverData, 'data', 'Machine', 'settings.json')]) {
  if (fs.existsSync(settingsFile)) continue;
  fs.mkdirSync(path.dirname(settingsFile), { recursive: true });
  fs.writeFileSync(settingsFile, JSON.stringify({
    'chat.disableAIFeatures': true,
    'workbench.startupEditor': 'none',
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'workbench.welcomePage.walkthroughs.openOnInstall': false,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
  }, null, 2));
}

const children = [];
const env = { ...process.env };
if (!env.ANTHROPIC_API_KEY) {
  const demoPort = port + 1;
  const demo = spawn(process.execPath, [path.join(root, 'dist', 'testServer.js'), '--port', String(demoPort)], { stdio: 'inherit' });
  children.push(demo);
  env.ANTHROPIC_BASE_URL = `http://127.0.0.1:${demoPort}`;
  env.ANTHROPIC_API_KEY = 'offline-demo';
  env.ENGRAM_OFFLINE_DEMO = '1';
  console.log(`No ANTHROPIC_API_KEY: the chat uses the offline demo model on ${env.ANTHROPIC_BASE_URL}.`);
}

const server = spawn(host.node, [path.join(host.serverDir, 'out', 'server-main.js'),
  '--host', '127.0.0.1', '--port', String(port), '--without-connection-token', '--accept-server-license-terms',
  '--disable-telemetry',
  // VS Code 1.139's server honours the URL payload's extensionDevelopmentPath only with this flag.
  '--enable-smoke-test-driver',
  // The bundled sample workspace is ours, so it is trusted; a folder you name keeps VS Code's trust prompt.
  ...(process.env.ENGRAM_WORKSPACE ? [] : ['--disable-workspace-trust']),
  '--user-data-dir', dirs.userData, '--server-data-dir', dirs.serverData,
  '--extensions-dir', dirs.extensions], { stdio: ['ignore', 'pipe', 'pipe'], env });
children.push(server);
server.stderr.on('data', (d) => process.stderr.write(d));

const remote = (p) => `vscode-remote://127.0.0.1:${port}${p}`;
const payload = [['extensionDevelopmentPath', remote(root)], ['skipWelcome', 'true']];
const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;

function waitForServer(attempt = 0) {
  http.get(`http://127.0.0.1:${port}/`, (res) => {
    res.resume();
    console.log('\nEngram is running in VS Code. Open this URL in a browser:\n');
    console.log(`  ${url}\n`);
    console.log('Click the Engram icon in the activity bar to chat. Ctrl+C stops the server.');
  }).on('error', () => {
    if (attempt > 240 || server.exitCode !== null) {
      console.error('The VS Code server did not start.');
      shutdown(1);
      return;
    }
    setTimeout(() => waitForServer(attempt + 1), 250);
  });
}
waitForServer();

function shutdown(code = 0) {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  process.exit(code);
}
process.on('SIGINT', () => shutdown(0));
process.on('SIGTERM', () => shutdown(0));
server.on('exit', (code) => shutdown(code ?? 0));
