import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { EngramApi } from '../../src/extension';

// The runner loads the window a second time after the main phase (as "Reload Window" does); these tests
// check that the second load is a genuinely new extension host with the same data on disk.
const marker = () => path.join(process.env.ENGRAM_DATA_DIR ?? '', 'test-host-pid.json');

suite('window reload', () => {
  test("the first extension host uses the runner's data dir, and leaves its process id there", async () => {
    assert.ok(process.env.ENGRAM_DATA_DIR, 'ENGRAM_DATA_DIR is not set by the runner');
    const api = await vscode.extensions.getExtension<EngramApi>('engram-dev.engram')!.activate();
    // Everything the second load is checked against lives here; a wrong folder would make that moot.
    assert.equal(api.chat().inspectorContext().dataDir, path.resolve(process.env.ENGRAM_DATA_DIR));
    fs.writeFileSync(marker(), JSON.stringify({ pid: process.pid, dataDir: api.chat().inspectorContext().dataDir }));
    assert.ok(fs.existsSync(marker()));
  });

  test('[after-reload] Engram activates again in a new extension host with the same data dir', async () => {
    const before = JSON.parse(fs.readFileSync(marker(), 'utf8')) as { pid: number; dataDir: string };
    assert.notEqual(process.pid, before.pid, 'the window was not reloaded: same extension host process');
    const ext = vscode.extensions.getExtension<EngramApi>('engram-dev.engram')!;
    const api = await ext.activate();
    assert.equal(ext.isActive, true);
    assert.equal(api.chat().inspectorContext().dataDir, before.dataDir, 'the second load reads the same data dir');
  });
});
