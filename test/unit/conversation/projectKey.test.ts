import assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import {
  findGitRoot,
  historyPath,
  projectKey,
  sessionTranscriptPath,
  subagentTranscriptPath,
} from '../../../src/core/conversation/projectKey';
import { withTempDir } from '../support/tempDirs';

test('projectKey replaces every character outside [a-zA-Z0-9] with a dash (DESIGN 3 examples)', () => {
  assert.equal(projectKey('/Users/me/code/demo'), '-Users-me-code-demo');
  assert.equal(projectKey('c:\\Users\\x\\IDAHO-VAULT'), 'c--Users-x-IDAHO-VAULT');
  assert.equal(projectKey('/home/dev/demo-int'), '-home-dev-demo-int'); // as in the fixtures' summary lines
  assert.equal(projectKey('/a b/ü_c.d'), '-a-b---c-d');
});

test('transcript paths follow the Claude Code layout', () => {
  const data = '/data';
  assert.equal(sessionTranscriptPath(data, '/w/p', 's1'), path.join('/data/projects/-w-p/s1.jsonl'));
  assert.equal(
    subagentTranscriptPath(data, '/w/p', 's1', 'a7'),
    path.join('/data/projects/-w-p/s1/subagents/agent-a7.jsonl'),
  );
  assert.equal(historyPath(data), path.join('/data/history.jsonl'));
});

test('findGitRoot walks up to a .git directory or file, and gives undefined outside a repository', () =>
  withTempDir(async (root) => {
    const repo = path.join(root, 'repo');
    const deep = path.join(repo, 'a', 'b');
    await fsp.mkdir(deep, { recursive: true });
    await fsp.mkdir(path.join(repo, '.git'));
    assert.equal(await findGitRoot(deep), repo);
    assert.equal(await findGitRoot(repo), repo);

    const worktree = path.join(root, 'wt');
    await fsp.mkdir(path.join(worktree, 'src'), { recursive: true });
    await fsp.writeFile(path.join(worktree, '.git'), 'gitdir: /elsewhere\n');
    assert.equal(await findGitRoot(path.join(worktree, 'src')), worktree);

    const plain = path.join(root, 'plain');
    await fsp.mkdir(plain);
    const found = await findGitRoot(plain);
    // The temp dir itself may sit inside a repository on some machines; it must not be `plain`.
    assert.notEqual(found, plain);
    if (found !== undefined) assert.ok(!found.startsWith(root));
  }, 'engram-git-'));
