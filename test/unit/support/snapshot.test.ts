import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { assertSnapshot } from './snapshot';
import { withTempDir } from './tempDirs';

describe('assertSnapshot', () => {
  it('fails on a missing snapshot instead of writing one, unless asked to update', async () => {
    await withTempDir(async (dir) => {
      const file = path.join(dir, 'snapshots', 'x.md');
      const saved = process.env.UPDATE_SNAPSHOTS;
      delete process.env.UPDATE_SNAPSHOTS;
      try {
        assert.throws(() => assertSnapshot(file, 'text'), /is missing/);
        assert.equal(fs.existsSync(file), false);
        process.env.UPDATE_SNAPSHOTS = '1';
        assertSnapshot(file, 'text');
        delete process.env.UPDATE_SNAPSHOTS;
        assertSnapshot(file, 'text');
        assert.throws(() => assertSnapshot(file, 'other'), /changed/);
      } finally {
        if (saved === undefined) delete process.env.UPDATE_SNAPSHOTS;
        else process.env.UPDATE_SNAPSHOTS = saved;
      }
    }, 'engram-snap-');
  });
});
