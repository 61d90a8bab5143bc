import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, it } from 'node:test';
import { useTempDirs } from '../support/tempDirs';

// `npm start` for real (the VS Code server of the test host and the demo model), with HOME in a temp
// folder: what it prints, and where it writes.
const root = path.resolve(__dirname, '../../..');
const tempDir = useTempDirs();
// The installer's own marker (scripts/installTestHost.mjs): without it npm start would spend minutes installing.
const hostDir = process.env.ENGRAM_TEST_HOST_DIR || path.join(root, '.vscode-test');
const ready = fs.existsSync(path.join(hostDir, 'host.json')) && fs.existsSync(path.join(root, 'dist', 'testServer.js'));

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

describe('npm start', () => {
  it('prints one URL to open, keeps its data and a sample git workspace outside the clone, never in ~/.engram',
    { skip: ready ? false : 'needs the test host (npm run setup:test-host) and the build (node esbuild.mjs)', timeout: 60_000 }, async () => {
      const home = tempDir('engram-home-');
      const port = await freePort();
      const env: Record<string, string> = { ...process.env as Record<string, string>, HOME: home, PORT: String(port) };
      for (const k of ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'ENGRAM_DATA_DIR', 'ENGRAM_WORKSPACE', 'ENGRAM_DEV_DIR', 'XDG_CACHE_HOME']) delete env[k];
      const child = spawn(process.execPath, [path.join(root, 'scripts', 'start.mjs')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stderr.on('data', (d) => { err += d; });
      try {
        await new Promise<void>((resolve, reject) => {
          child.stdout.on('data', (d) => {
            out += d;
            if (out.includes('Ctrl+C stops')) resolve();
          });
          child.once('exit', (code) => reject(new Error(`npm start exited (${code}):\n${out}\n${err}`)));
        });
      } finally {
        child.kill('SIGTERM');
      }
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
