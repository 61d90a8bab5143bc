// A memory check runs git in the workspace, and a repository's own config can name commands git starts
// (core.fsmonitor). The check must list files and search symbols without starting any of them.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { MemoryHealthIndex } from '../../../../src/core/memory/health/healthIndex';
import { useTempDirs } from '../../support/tempDirs';

const tempDir = useTempDirs('all');

describe('the memory check and a repository config that names a command', () => {
  it('never starts core.fsmonitor while listing files and searching many symbols', async () => {
    const root = tempDir('engram-fsmonitor-');
    const marker = path.join(root, '..', `${path.basename(root)}-fsmonitor-ran`);
    const hook = path.join(root, 'hook.sh');
    fs.writeFileSync(hook, `#!/bin/sh\ntouch '${marker}'\n`, { mode: 0o755 });
    fs.mkdirSync(path.join(root, 'src'));
    fs.writeFileSync(path.join(root, 'src', 'app.ts'), 'export function startServer() {}\n');
    const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'ignore' });
    git('init', '-q');
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'one');
    git('config', 'core.fsmonitor', hook);
    const index = await MemoryHealthIndex.open(root);
    // Few symbols go through git grep, many through the index's own reading: both paths run here.
    const many = Array.from({ length: 30 }, (_, i) => `\`missingThing${i}()\``).join(', ');
    await index.setMemories([
      { file: 'project_app.md', text: 'The server starts in `src/app.ts` with `startServer()`; `stopServer()` too.' },
      { file: 'project_many.md', text: `Helpers: ${many}.` },
    ]);
    assert.deepEqual(
      index.result('project_app.md')?.stale.map((s) => s.ref),
      ['stopServer'],
    );
    assert.equal(fs.existsSync(marker), false, 'git ran the repository’s fsmonitor command');
    fs.rmSync(marker, { force: true });
  });
});
