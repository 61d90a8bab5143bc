import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';

// The runner loads the window a second time after the main phase (as "Reload Window" does); these tests
// check that the second load is a genuinely new extension host with the same data on disk.
const marker = () => path.join(process.env.ENGRAM_DATA_DIR ?? '', 'test-host-pid.json');

suite('window reload', () => {
  test('the first extension host leaves its process id behind', () => {
    assert.ok(process.env.ENGRAM_DATA_DIR, 'ENGRAM_DATA_DIR is not set by the runner');
    fs.writeFileSync(marker(), JSON.stringify({ pid: process.pid }));
  });

  test('[after-reload] Engram activates again in a new extension host with the same data dir', async () => {
    const before = JSON.parse(fs.readFileSync(marker(), 'utf8')) as { pid: number };
    assert.notEqual(process.pid, before.pid, 'the window was not reloaded: same extension host process');
    const ext = vscode.extensions.getExtension('engram-dev.engram')!;
    await ext.activate();
    assert.equal(ext.isActive, true);
  });
});
