// Snapshot checks for prompts and compaction output. A missing snapshot fails like a changed one: a
// test that wrote its own expectation would pass on anything (and in CI a clean clone has them all).
// Accept an intended change, or create a new snapshot, with UPDATE_SNAPSHOTS=1.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

export function assertSnapshot(file: string, actual: string): void {
  if (process.env.UPDATE_SNAPSHOTS === '1') {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, actual);
    return;
  }
  if (!fs.existsSync(file))
    assert.fail(`The snapshot ${file} is missing: run the tests with UPDATE_SNAPSHOTS=1 to create it, and commit it.`);
  assert.equal(
    actual,
    fs.readFileSync(file, 'utf8'),
    `${path.basename(file)} changed: if intended, run with UPDATE_SNAPSHOTS=1 and commit it.`,
  );
}
