import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createSearchEngine } from '../../../../src/core/host/search';
import { useTempDirs } from '../../support/tempDirs';
import { testRgPath } from './engines';

const tempDir = useTempDirs();

describe('createSearchEngine', () => {
  it('uses ripgrep when the binary runs, and says which one', async () => {
    const logged: string[] = [];
    const logger = { info: (m: string) => logged.push(m), warn: (m: string) => logged.push(m), error() {} };
    const engine = await createSearchEngine({ rgPath: testRgPath(), source: 'test copy', logger });
    assert.equal(engine.name, 'ripgrep');
    assert.match(engine.detail, /^ripgrep \d+\.\d+\.\d+ \(test copy\) at /);
    assert.match(logged.join('\n'), /Search engine: ripgrep/);
  });

  it('does not run rg --version again when the host checked the binary and passes its version', async () => {
    // A path that does not exist: had the binary been run, the engine would be JavaScript.
    const rgPath = path.join(tempDir(), 'rg');
    const engine = await createSearchEngine({ rgPath, source: 'checked copy', version: '15.0.0' });
    assert.equal(engine.name, 'ripgrep');
    assert.equal(engine.detail, `ripgrep 15.0.0 (checked copy) at ${rgPath}`);
  });

  it('falls back to JavaScript with the reason when the binary is missing or is not ripgrep', async () => {
    const missing = await createSearchEngine({ rgPath: path.join(tempDir(), 'rg') });
    assert.equal(missing.name, 'javascript');
    assert.match(missing.detail, /does not run: .*ENOENT/);
    const notRg = await createSearchEngine({ rgPath: process.execPath });
    assert.equal(notRg.name, 'javascript');
    assert.match(notRg.detail, /does not say it is ripgrep/);
    const none = await createSearchEngine({});
    assert.deepEqual([none.name, none.detail], ['javascript', 'JavaScript (no ripgrep found)']);
  });
});
