// Writing auto memory: topic file + index line, updates in place, refused names (nothing is written
// outside the folder), and prune/restore that gives back the very bytes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, it } from 'node:test';
import { loadMemoryIndex } from '../../../../src/core/memory/autoMemory/memoryIndex';
import { MemoryPathError, autoMemoryDir, memoryWriteTarget } from '../../../../src/core/memory/autoMemory/memoryPaths';
import { listTrash, pruneEntry, restoreEntry } from '../../../../src/core/memory/autoMemory/memoryTrash';
import {
  changeType,
  ensureIndexed,
  removeEntry,
  renameEntry,
  setIndexEntry,
  stampProvenance,
  writeMemory,
  type WriteMemoryInput,
} from '../../../../src/core/memory/autoMemory/memoryWriter';
import { parseTopicFile } from '../../../../src/core/memory/autoMemory/topicFile';
import { useTempDirs } from '../../support/tempDirs';

const tempDir = useTempDirs();
let root: string;
let dir: string;
let outside: string;
beforeEach(() => {
  root = tempDir('engram-memw-');
  dir = path.join(root, 'memory');
  outside = path.join(root, 'outside');
  fs.mkdirSync(dir);
  fs.mkdirSync(outside);
});

const provenance = { originSessionId: 'sess-1', originMessageId: 'msg-1' };
const input = (file: string, over: Partial<WriteMemoryInput> = {}): WriteMemoryInput => ({
  file,
  title: 'Testing',
  hook: 'integration tests hit a real database',
  description: 'Integration tests use a real database',
  type: 'feedback',
  body: 'Use the real database.\n\n**Why:** mocks hid a broken migration.\n\n**How to apply:** database tests.',
  provenance,
  ...over,
});
const read = (name: string): string => fs.readFileSync(path.join(dir, name), 'utf8');

describe('writeMemory', () => {
  it('writes the topic file with provenance and its index line, and updates instead of duplicating', async () => {
    const first = await writeMemory(dir, input('feedback_testing.md'));
    assert.equal(first.created, true);
    const parsed = parseTopicFile(fs.readFileSync(first.path));
    assert.ok(!parsed.binary);
    if (parsed.binary) return;
    assert.equal(parsed.type, 'feedback');
    assert.equal(parsed.description, 'Integration tests use a real database');
    assert.equal(parsed.data.originSessionId, 'sess-1');
    assert.equal(parsed.data.originMessageId, 'msg-1');
    assert.match(parsed.body, /\*\*Why:\*\*/);
    assert.equal(read('MEMORY.md'), '- [Testing](feedback_testing.md) — integration tests hit a real database\n');

    fs.appendFileSync(path.join(dir, 'MEMORY.md'), '- [Other](other.md) — kept\n');
    const second = await writeMemory(
      dir,
      input('./feedback_testing.md', { title: 'Testing v2', hook: 'still real db' }),
    );
    assert.equal(second.created, false);
    assert.equal(
      read('MEMORY.md'),
      '- [Testing v2](feedback_testing.md) — still real db\n- [Other](other.md) — kept\n',
    );
    assert.deepEqual(fs.readdirSync(dir).sort(), ['MEMORY.md', 'feedback_testing.md'], 'no temp files left');
  });

  it('keeps CRLF index files CRLF and writes into nested folders', async () => {
    fs.writeFileSync(path.join(dir, 'MEMORY.md'), '# Memory\r\n- [A](a.md) — first\r\n');
    await writeMemory(dir, input('refs/grafana.md', { type: 'reference', title: 'Grafana', hook: 'dashboards' }));
    assert.equal(read('MEMORY.md'), '# Memory\r\n- [A](a.md) — first\r\n- [Grafana](refs/grafana.md) — dashboards\r\n');
    assert.ok(fs.existsSync(path.join(dir, 'refs', 'grafana.md')));
  });

  it('refuses names that escape the folder, and writes nothing outside', async () => {
    fs.symlinkSync(outside, path.join(dir, 'link'));
    fs.symlinkSync(path.join(outside, 'target.md'), path.join(dir, 'dangling.md'));
    const bad = [
      '../x.md',
      '../outside/x.md',
      path.join(outside, 'abs.md'),
      '/etc/x.md',
      'C:\\x.md',
      'sub/../../x.md',
      'link/x.md',
      'dangling.md',
      'nul\0.md',
      'ctl\u0007.md',
      'new\nline.md',
      '.trash/x.md',
      'MEMORY.md',
      'notes.txt',
      '',
    ];
    for (const name of bad) {
      await assert.rejects(writeMemory(dir, input(name)), MemoryPathError, `refused: ${JSON.stringify(name)}`);
      await assert.rejects(
        setIndexEntry(dir, { title: 't', file: name, hook: '' }).then(() => undefined),
        MemoryPathError,
      );
    }
    await assert.rejects(renameEntry(dir, 'a.md', { file: '../x.md' }), MemoryPathError);
    assert.deepEqual(fs.readdirSync(outside), [], 'the outside folder stays empty');
    assert.equal(fs.existsSync(path.join(dir, 'MEMORY.md')), false, 'no index line was written');
    assert.equal(fs.existsSync(path.join(root, 'x.md')), false);
  });

  it('judges tool paths where they really lead', () => {
    fs.symlinkSync(outside, path.join(dir, 'link'));
    assert.deepEqual(memoryWriteTarget(dir, path.join(dir, 'a.md')), { name: 'a.md' });
    assert.deepEqual(memoryWriteTarget(dir, path.join(dir, 'MEMORY.md')), { name: 'MEMORY.md' });
    assert.ok('problem' in memoryWriteTarget(dir, path.join(dir, 'link', 'a.md')));
    assert.ok('problem' in memoryWriteTarget(dir, `${dir}/link/../../outside/a.md`));
    assert.ok('problem' in memoryWriteTarget(dir, `${dir}/../outside/a.md`));
    assert.ok('problem' in memoryWriteTarget(dir, path.join(dir, 'a\0.md')));
    assert.ok('problem' in memoryWriteTarget(dir, path.join(dir, 'script.sh')));
    assert.ok('problem' in memoryWriteTarget(dir, dir));
  });
});

describe('index helpers', () => {
  beforeEach(async () => {
    await writeMemory(dir, input('a.md', { title: 'A', hook: 'first' }));
    await writeMemory(dir, input('b.md', { title: 'B', hook: 'second' }));
  });

  it('removes, renames and retypes entries', async () => {
    const removed = await removeEntry(dir, 'a.md');
    assert.deepEqual(removed.lines, [{ index: 0, text: '- [A](a.md) — first\n' }]);
    assert.ok(fs.existsSync(path.join(dir, 'a.md')), 'removeEntry leaves the file');

    await renameEntry(dir, 'b.md', { title: 'Bee', file: 'project/bee.md' });
    assert.equal(read('MEMORY.md'), '- [Bee](project/bee.md) — second\n');
    assert.ok(fs.existsSync(path.join(dir, 'project', 'bee.md')) && !fs.existsSync(path.join(dir, 'b.md')));

    const before = read('project/bee.md');
    await changeType(dir, 'project/bee.md', 'project');
    assert.equal(read('project/bee.md'), before.replace('type: feedback', 'type: project'));
    await assert.rejects(changeType(dir, 'project/bee.md', 'diary' as never));
  });

  it('stamps provenance once and indexes files a writer forgot', async () => {
    fs.writeFileSync(
      path.join(dir, 'c.md'),
      '---\nname: Cats\ndescription: the user has cats\ntype: user\n---\nTwo cats.\n',
    );
    assert.ok(await stampProvenance(dir, 'c.md', { originSessionId: 's2', originMessageId: 'm2' }));
    assert.equal(
      read('c.md'),
      '---\nname: Cats\ndescription: the user has cats\ntype: user\noriginSessionId: s2\noriginMessageId: m2\n---\nTwo cats.\n',
    );
    assert.equal(
      await stampProvenance(dir, 'c.md', { originSessionId: 's3', originMessageId: 'm3' }),
      undefined,
      'already stamped',
    );
    assert.deepEqual(await ensureIndexed(dir, 'c.md'), { title: 'Cats', added: true });
    assert.deepEqual(await ensureIndexed(dir, 'c.md'), { title: 'Cats', added: false });
    assert.match(read('MEMORY.md'), /- \[Cats\]\(c\.md\) — the user has cats\n$/);
  });
});

describe('prune and restore', () => {
  it('gives back the file and the index byte for byte', async () => {
    const index =
      '# Memory\r\n- [A](a.md) — first\r\n\r\n- [B](b.md) — second\r\n- [B dup](./b.md)\r\n- [C](c.md) — last, no newline';
    const b = Buffer.from('---\r\nname: b\r\ntype: user\r\n---\r\nbinary-ish \u00e9\u00e8 bytes\r\n', 'utf8');
    fs.writeFileSync(path.join(dir, 'MEMORY.md'), index);
    fs.writeFileSync(path.join(dir, 'b.md'), b);
    fs.writeFileSync(path.join(dir, 'c.md'), 'c');
    const mtime = fs.statSync(path.join(dir, 'b.md')).mtimeMs;

    const record = await pruneEntry(dir, 'b.md');
    assert.equal(record.moved, true);
    assert.equal(read('MEMORY.md'), '# Memory\r\n- [A](a.md) — first\r\n\r\n- [C](c.md) — last, no newline');
    assert.equal(fs.existsSync(path.join(dir, 'b.md')), false);
    assert.deepEqual(
      (await listTrash(dir)).map((r) => r.file),
      ['b.md'],
    );
    assert.equal((await loadMemoryIndex(dir)).unindexed.length, 0, 'the trash is not memory');

    await restoreEntry(dir, record.id);
    assert.equal(fs.readFileSync(path.join(dir, 'MEMORY.md'), 'utf8'), index);
    assert.deepEqual(fs.readFileSync(path.join(dir, 'b.md')), b);
    assert.equal(fs.statSync(path.join(dir, 'b.md')).mtimeMs, mtime);
    assert.deepEqual(await listTrash(dir), []);

    const last = await pruneEntry(dir, 'c.md');
    assert.equal(
      read('MEMORY.md'),
      '# Memory\r\n- [A](a.md) — first\r\n\r\n- [B](b.md) — second\r\n- [B dup](./b.md)\r\n',
    );
    await restoreEntry(dir, last.id);
    assert.equal(read('MEMORY.md'), index);
  });

  it('prunes an entry whose file is missing, and refuses to restore over a new file', async () => {
    fs.writeFileSync(path.join(dir, 'MEMORY.md'), '- [Gone](gone.md)\n- [A](a.md)\n');
    fs.writeFileSync(path.join(dir, 'a.md'), 'a');
    const gone = await pruneEntry(dir, 'gone.md');
    assert.equal(gone.moved, false);
    await restoreEntry(dir, gone.id);
    assert.equal(read('MEMORY.md'), '- [Gone](gone.md)\n- [A](a.md)\n');

    const a = await pruneEntry(dir, 'a.md');
    fs.writeFileSync(path.join(dir, 'a.md'), 'a new one');
    await assert.rejects(restoreEntry(dir, a.id), /exists again/);
    assert.equal(read('a.md'), 'a new one');
    await assert.rejects(restoreEntry(dir, '../../etc'), MemoryPathError);
  });
});

describe('autoMemoryDir', () => {
  it('keys the folder by the git root', async () => {
    const repo = path.join(root, 'repo');
    fs.mkdirSync(path.join(repo, '.git'), { recursive: true });
    fs.mkdirSync(path.join(repo, 'packages', 'app'), { recursive: true });
    const data = path.join(root, 'data');
    const key = repo.replace(/[^a-zA-Z0-9]/g, '-');
    assert.equal(
      await autoMemoryDir(data, path.join(repo, 'packages', 'app')),
      path.join(data, 'projects', key, 'memory'),
    );
    const plain = path.join(root, 'plain');
    fs.mkdirSync(plain);
    assert.equal(
      await autoMemoryDir(data, plain),
      path.join(data, 'projects', plain.replace(/[^a-zA-Z0-9]/g, '-'), 'memory'),
    );
  });
});
