#!/usr/bin/env node
// `npm start`: serves VS Code (the server bundled in code-server) on 127.0.0.1 with Engram loaded in
// development mode and a sample workspace, and prints the URL to open in a browser.
// Without ANTHROPIC_API_KEY the Chat view opens on its first-run screen (README, "The first hour"): an API
// key, a base URL, or "Keep the offline demo", one click, which runs the project's scripted demo model
// inside the extension, so the chat works on a machine with no network.
// Everything it writes lives outside the clone, in its own folder (ENGRAM_DEV_DIR, default
// ~/.cache/engram-dev): Engram's data dir (never the real ~/.engram), VS Code's profile, and the sample
// workspace, a git repository of its own, so memory (keyed by git root) and transcripts (keyed by folder)
// land under the same project key.
// Env: PORT (default 8730), ENGRAM_WORKSPACE (folder to open), ENGRAM_DATA_DIR, ENGRAM_DEV_DIR,
// ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { installTestHost } from './installTestHost.mjs';
import { writeProfileSettings } from './profileSettings.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Where npm start keeps its state: outside the clone, and apart from the real ~/.engram. */
export function startLayout(env = process.env) {
  const cache = env.XDG_CACHE_HOME || path.join(env.HOME || os.homedir(), '.cache');
  const devDir = path.resolve(env.ENGRAM_DEV_DIR || path.join(cache, 'engram-dev'));
  return {
    devDir,
    dataDir: path.resolve(env.ENGRAM_DATA_DIR || path.join(devDir, 'data')),
    workspace: path.resolve(env.ENGRAM_WORKSPACE || path.join(devDir, 'workspace')),
    sampleWorkspace: !env.ENGRAM_WORKSPACE,
    userData: path.join(devDir, 'user-data'),
    serverData: path.join(devDir, 'server-data'),
    extensions: path.join(devDir, 'extensions'),
  };
}

/** The sample workspace, copied once and made a git repository of its own. */
export function prepareSampleWorkspace(workspace) {
  if (!fs.existsSync(workspace))
    fs.cpSync(path.join(root, 'test', 'fixtures', 'workspace'), workspace, { recursive: true });
  if (!fs.existsSync(path.join(workspace, '.git'))) spawnSync('git', ['init', '-q', workspace], { stdio: 'ignore' });
}

function writeNewcomerProfile(layout) {
  // User and machine settings; a profile the user has changed since is left as it is.
  for (const settingsFile of [
    path.join(layout.userData, 'User', 'settings.json'),
    path.join(layout.serverData, 'data', 'Machine', 'settings.json'),
  ]) {
    if (!fs.existsSync(settingsFile)) writeProfileSettings(settingsFile);
  }
}

async function main() {
  const host = await installTestHost();
  const port = Number(process.env.PORT || 8730);
  const layout = startLayout();
  if (layout.sampleWorkspace) prepareSampleWorkspace(layout.workspace);
  for (const d of [layout.dataDir, layout.userData, layout.serverData, layout.extensions])
    fs.mkdirSync(d, { recursive: true });
  writeNewcomerProfile(layout);

  const children = [];
  const shutdown = (code = 0) => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    process.exit(code);
  };
  process.on('SIGINT', () => shutdown(0));
  process.on('SIGTERM', () => shutdown(0));

  const env = { ...process.env, ENGRAM_DATA_DIR: layout.dataDir };

  const server = spawn(
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
      // VS Code 1.139's server honours the URL payload's extensionDevelopmentPath only with this flag.
      '--enable-smoke-test-driver',
      // The bundled sample workspace is ours, so it is trusted; a folder you name keeps VS Code's trust prompt.
      ...(layout.sampleWorkspace ? ['--disable-workspace-trust'] : []),
      '--user-data-dir',
      layout.userData,
      '--server-data-dir',
      layout.serverData,
      '--extensions-dir',
      layout.extensions,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env },
  );
  children.push(server);
  server.stdout.resume();
  server.stderr.on('data', (d) => process.stderr.write(d));
  server.on('exit', (code) => shutdown(code ?? 0));

  const remote = (p) => `vscode-remote://127.0.0.1:${port}${p}`;
  const payload = [
    ['extensionDevelopmentPath', remote(root)],
    ['skipWelcome', 'true'],
  ];
  const folderParam = encodeURIComponent(layout.workspace);
  const payloadParam = encodeURIComponent(JSON.stringify(payload));
  const url = `http://127.0.0.1:${port}/?folder=${folderParam}&payload=${payloadParam}`;

  const waitForServer = (attempt = 0) => {
    http
      .get(`http://127.0.0.1:${port}/`, (res) => {
        res.resume();
        console.log('\nEngram is running in VS Code. Open this URL in a browser:\n');
        console.log(`  ${url}\n`);
        if (!env.ANTHROPIC_API_KEY?.trim())
          console.log(
            'No ANTHROPIC_API_KEY: the Chat view opens on its first-run screen, where "Keep the offline demo" needs no network.',
          );
        console.log(`Engram's data folder: ${layout.dataDir}. Ctrl+C stops the server.`);
      })
      .on('error', () => {
        if (attempt > 240 || server.exitCode !== null) {
          console.error('The VS Code server did not start.');
          shutdown(1);
          return;
        }
        setTimeout(() => waitForServer(attempt + 1), 250);
      });
  };
  waitForServer();
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(`npm start: ${error.message}`);
    process.exit(1);
  });
}
