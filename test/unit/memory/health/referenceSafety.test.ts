// A reference check never reads outside the workspace and never follows a symbolic link out, whatever
// a memory names (generated paths with `..`, absolute paths, links) and whatever file events say; a
// hostile memory (a regex bomb, 10,000 references, `..` paths) gets a clear result quickly.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { MemoryHealthIndex } from '../../../../src/core/memory/health/healthIndex';
import { useTempDirs } from '../../support/tempDirs';

const tempDir = useTempDirs('all');

function git(root: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', ...args], { cwd: root, stdio: 'ignore' });
}

/** A workspace with a link to a folder outside it, as a git repository or a plain folder. */
function workspaceWithLinkOut(withGit: boolean): { root: string; outside: string } {
  const base = tempDir('engram-safety-');
  const root = path.join(base, 'ws');
  const outside = path.join(base, 'outside');
  fs.mkdirSync(path.join(root, 'src'), { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'secret.ts'), 'export function outsideOnlySymbol() {}\n');
  fs.writeFileSync(path.join(root, 'src/a.ts'), 'export function insideSymbol() {}\n');
  fs.symlinkSync(outside, path.join(root, 'link'));
  fs.symlinkSync(path.join(outside, 'secret.ts'), path.join(root, 'src/linked.ts'));
  if (withGit) {
    git(root, 'init', '-q');
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'first');
  }
  return { root, outside };
}

/** Every file path this process reads while `run` runs (the index reads through fs.promises). */
async function readsDuring(run: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const original = fs.promises.readFile;
  const spy = ((file: fs.PathLike | fs.promises.FileHandle, ...rest: unknown[]) => {
    if (typeof file === 'string') seen.push(file);
    return (original as (...a: unknown[]) => Promise<unknown>)(file, ...rest);
  }) as typeof fs.promises.readFile;
  fs.promises.readFile = spy;
  try {
    await run();
  } finally {
    fs.promises.readFile = original;
  }
  return seen;
}

const segment = fc.constantFrom('..', '.', 'src', 'a.ts', 'link', 'secret.ts', 'outside', 'linked.ts', 'ws', '');

for (const withGit of [true, false]) {
  describe(`reference checks stay inside the workspace (${withGit ? 'git' : 'no git'})`, () => {
    let root: string;
    let outside: string;
    let index: MemoryHealthIndex;
    let reads: string[];
    before(async () => {
      ({ root, outside } = workspaceWithLinkOut(withGit));
      reads = await readsDuring(async () => {
        index = await MemoryHealthIndex.open(root);
        await index.setMemories([{ file: 'm.md', text: '`insideSymbol()` and `outsideOnlySymbol()`' }]);
      });
    });
    after(() => fs.rmSync(path.dirname(root), { recursive: true, force: true }));

    it('a symbol defined only behind a link out is not found', () => {
      assert.deepEqual(
        index.result('m.md')?.stale.map((s) => s.ref),
        ['outsideOnlySymbol'],
      );
    });

    it('no generated path (.., absolute, through links) is found outside, and nothing outside is read', async () => {
      const real = fs.realpathSync(root);
      await fc.assert(
        fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 6 }), fc.boolean(), async (segs, absolute) => {
          const rel = segs.join('/');
          const ref = absolute ? path.join(path.dirname(root), rel) : rel;
          const text = `See \`${ref}\` and \`node ${ref}\`.`;
          const during = await readsDuring(async () => {
            await index.onMemoryChanged('p.md', text);
            await index.onFileEvents([{ kind: 'change', path: ref }]);
          });
          for (const f of during) assert.ok(fs.realpathSync(f).startsWith(real + path.sep), `read ${f}`);
          const check = index.result('p.md');
          const ok = (check?.refs ?? []).filter(
            (r) => !check?.stale.some((s) => s.ref === r.ref) && !check?.unchecked.some((u) => u.ref === r.ref),
          );
          for (const r of ok) {
            const target = r.kind === 'command' ? r.ref.split(' ').slice(1).join(' ') : r.ref;
            const resolved = path.resolve(root, target);
            assert.ok(!resolved.startsWith(outside), `${r.ref} counted as present`);
            const segsOf = path.relative(root, resolved).split(path.sep);
            assert.ok(!segsOf.includes('..'), `${r.ref} leaves the workspace`);
            assert.ok(!segsOf.slice(0, -1).includes('link'), `${r.ref} goes through the link`);
          }
        }),
        { numRuns: 150, seed: 32 },
      );
    });

    it('the index read only files inside the workspace', () => {
      const real = fs.realpathSync(root);
      for (const f of reads) assert.ok(fs.realpathSync(f).startsWith(real + path.sep), `read ${f}`);
    });
  });
}

describe('hostile memories', () => {
  it('a regex bomb, a 10,000-reference file and .. paths get a clear result, quickly', async () => {
    const root = tempDir('engram-hostile-');
    fs.writeFileSync(path.join(root, 'a.ts'), `${'a'.repeat(50_000)}!\nexport function real() {}\n`);
    const index = await MemoryHealthIndex.open(root);
    const bomb = '`(a+)+$` `^(a|aa)+$` `aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!` `.*.*.*=.*`';
    const many = Array.from({ length: 10_000 }, (_, i) => `\`src/file${i}.ts\``).join('\n');
    const started = Date.now();
    await index.setMemories([
      { file: 'bomb.md', text: bomb },
      { file: 'many.md', text: many },
      { file: 'dots.md', text: '`../../../../etc/passwd` and ../../x/y.ts and `/etc/hosts`' },
    ]);
    assert.ok(Date.now() - started < 20_000, 'the check finished');
    assert.deepEqual(index.result('bomb.md')?.stale, []);
    const capped = index.result('many.md');
    assert.equal(capped?.stale.length, 500);
    assert.deepEqual(capped?.notes, ['only the first 500 of its 10000 references were checked']);
    const dots = index.result('dots.md');
    assert.deepEqual(dots?.stale, []);
    assert.deepEqual(
      dots?.unchecked.map((u) => u.reason).sort(),
      [
        'a path that leads outside the workspace with ".." (not checked)',
        'a path that leads outside the workspace with ".." (not checked)',
        'an absolute path outside the workspace (not checked)',
      ].sort(),
    );
  });
});
