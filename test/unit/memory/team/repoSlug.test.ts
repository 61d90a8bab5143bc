// owner/repo from remote URLs of every form git accepts, and from a real repository's origin (git
// itself, and the .git/config reader used when git is not on PATH).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parseRemoteUrl, repoSlugOf } from '../../../../src/core/memory/team/repoSlug';
import { useTempDirs } from '../../support/tempDirs';

const tempDir = useTempDirs();

describe('parseRemoteUrl', () => {
  const cases: Array<[string, string | null]> = [
    ['git@github.com:acme/widgets.git', 'acme/widgets'],
    ['git@github.com:acme/widgets', 'acme/widgets'],
    ['github.com:acme/widgets.git', 'acme/widgets'],
    ['git@github.com:acme/widgets.git/', 'acme/widgets'],
    ['ssh://git@github.com/acme/widgets.git', 'acme/widgets'],
    ['ssh://git@github.example.com:2222/acme/widgets', 'acme/widgets'],
    ['https://github.com/acme/widgets', 'acme/widgets'],
    ['https://github.com/acme/widgets.git', 'acme/widgets'],
    ['https://github.com/acme/widgets/', 'acme/widgets'],
    ['https://user:pw@github.com/acme/widgets.git', 'acme/widgets'],
    ['http://git.internal:8080/acme/my.repo.git', 'acme/my.repo'],
    ['git://github.com/acme/widgets.git', 'acme/widgets'],
    ['https://gitlab.com/group/sub/widgets.git', 'sub/widgets'],
    ['  git@github.com:Acme-Co/Widgets_2.GIT  ', 'Acme-Co/Widgets_2'],
    ['https://github.com/acme', null],
    ['https://github.com/', null],
    ['file:///srv/git/acme/widgets.git', null],
    ['/srv/git/widgets.git', null],
    ['../widgets', null],
    ['C:\\repos\\acme\\widgets', null],
    ['', null],
    ['git@github.com:acme/wid gets.git', null],
  ];
  for (const [url, slug] of cases) {
    it(`${JSON.stringify(url)} -> ${slug}`, () => assert.equal(parseRemoteUrl(url), slug));
  }
});

describe('repoSlugOf', () => {
  function gitRepo(origin?: string): string {
    const dir = tempDir('engram-repo-');
    execFileSync('git', ['init', '-q', dir]);
    if (origin) execFileSync('git', ['-C', dir, 'remote', 'add', 'origin', origin]);
    return dir;
  }

  it('reads the origin remote from a subfolder of the repository', async () => {
    const dir = gitRepo('git@github.com:acme/widgets.git');
    fs.mkdirSync(path.join(dir, 'src', 'deep'), { recursive: true });
    assert.equal(await repoSlugOf(path.join(dir, 'src', 'deep')), 'acme/widgets');
  });

  it('is null without a repository or without an origin', async () => {
    assert.equal(await repoSlugOf(tempDir()), null);
    const dir = gitRepo();
    execFileSync('git', ['-C', dir, 'remote', 'add', 'upstream', 'https://github.com/other/thing']);
    assert.equal(await repoSlugOf(dir), null);
  });

  it('reads .git/config itself when git is not on PATH', async () => {
    const dir = gitRepo('https://github.com/acme/gadgets.git');
    const saved = process.env.PATH;
    process.env.PATH = tempDir(); // an empty folder: no git
    try {
      assert.equal(await repoSlugOf(dir), 'acme/gadgets');
    } finally {
      process.env.PATH = saved;
    }
  });
});
