import assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { editTool, type EditData } from '../../../src/core/tools/editTool';
import { readTool } from '../../../src/core/tools/readTool';
import { writeTool, type WriteData } from '../../../src/core/tools/writeTool';
import { useTempDirs } from '../support/tempDirs';
import { age, listAll, makeCtx, write } from './toolTestKit';

const tempDir = useTempDirs();

const read = readTool();
const writeT = writeTool();
const edit = editTool();

describe('Write', () => {
  it('creates a new file and its directories, atomically (no temp files left)', async () => {
    const dir = tempDir('engram-tools-');
    const ctx = makeCtx(dir);
    const r = await writeT.run({ file_path: 'deep/er/new.txt', content: 'hello\nworld\n' }, ctx);
    assert.equal(r.isError, false, r.content);
    assert.equal(r.content, 'Created deep/er/new.txt (2 lines).');
    assert.equal((r.data as WriteData).type, 'create');
    assert.equal(await fsp.readFile(path.join(dir, 'deep/er/new.txt'), 'utf8'), 'hello\nworld\n');
    assert.deepEqual(await listAll(dir), ['deep/er/new.txt']);
    assert.ok(ctx.readFiles.get(path.join(dir, 'deep/er/new.txt')), 'a written file counts as seen');
  });

  it('refuses to overwrite a file that was not read', async () => {
    const dir = tempDir('engram-tools-');
    await write(dir, 'a.txt', 'original');
    const r = await writeT.run({ file_path: 'a.txt', content: 'new' }, makeCtx(dir));
    assert.equal(r.isError, true);
    assert.match(r.content, /has not been read yet\. Read it first/);
    assert.equal(await fsp.readFile(path.join(dir, 'a.txt'), 'utf8'), 'original');
  });

  it('overwrites after a Read, and refuses after an external change', async () => {
    const dir = tempDir('engram-tools-');
    const abs = await write(dir, 'a.txt', 'v1');
    await age(abs, 60);
    const ctx = makeCtx(dir);
    await read.run({ file_path: 'a.txt' }, ctx);
    const ok = await writeT.run({ file_path: 'a.txt', content: 'v2' }, ctx);
    assert.equal(ok.isError, false, ok.content);
    assert.equal((ok.data as WriteData).type, 'update');
    // Someone else changes the file: content and mtime differ from what the agent saw.
    await fsp.writeFile(abs, 'theirs');
    await age(abs, 5);
    const stale = await writeT.run({ file_path: 'a.txt', content: 'v3' }, ctx);
    assert.equal(stale.isError, true);
    assert.match(stale.content, /modified since it was last read/);
    assert.equal(await fsp.readFile(abs, 'utf8'), 'theirs');
  });

  it('accepts an mtime-only change when the content is identical', async () => {
    const dir = tempDir('engram-tools-');
    const abs = await write(dir, 'a.txt', 'same');
    await age(abs, 60);
    const ctx = makeCtx(dir);
    await read.run({ file_path: 'a.txt' }, ctx);
    await age(abs, 1); // touched, not changed
    const r = await writeT.run({ file_path: 'a.txt', content: 'next' }, ctx);
    assert.equal(r.isError, false, r.content);
  });

  it('keeps the permission bits and a symlink at the target', async () => {
    const dir = tempDir('engram-tools-');
    const real = await write(dir, 'real.sh', '#!/bin/sh\n');
    await fsp.chmod(real, 0o755);
    await fsp.symlink(real, path.join(dir, 'link.sh'));
    const ctx = makeCtx(dir);
    await read.run({ file_path: 'link.sh' }, ctx);
    const r = await writeT.run({ file_path: 'link.sh', content: '#!/bin/sh\necho hi\n' }, ctx);
    assert.equal(r.isError, false, r.content);
    assert.ok((await fsp.lstat(path.join(dir, 'link.sh'))).isSymbolicLink());
    assert.equal(await fsp.readFile(real, 'utf8'), '#!/bin/sh\necho hi\n');
    assert.equal((await fsp.stat(real)).mode & 0o777, 0o755);
    assert.deepEqual((await fsp.readdir(dir)).sort(), ['link.sh', 'real.sh']);
  });

  it('refuses a directory path and a file used as a directory', async () => {
    const dir = tempDir('engram-tools-');
    await write(dir, 'f', 'x');
    const a = await writeT.run({ file_path: '.', content: 'x' }, makeCtx(dir));
    assert.match(a.content, /is a directory/);
    const b = await writeT.run({ file_path: 'f/child.txt', content: 'x' }, makeCtx(dir));
    assert.equal(b.isError, true);
    assert.match(b.content, /parent path is a file/);
  });

  it('is denied by a write guard', async () => {
    const dir = tempDir('engram-tools-');
    const r = await writeT.run(
      { file_path: 'x.txt', content: 'x' },
      makeCtx(dir, { pathGuard: (_p, op) => (op === 'write' ? 'no writes' : null) }),
    );
    assert.deepEqual([r.isError, r.content], [true, 'no writes']);
    assert.deepEqual(await listAll(dir), []);
  });
});

describe('Edit', () => {
  async function readyFile(content: string | Buffer, name = 'f.txt') {
    const dir = tempDir('engram-tools-');
    const abs = await write(dir, name, content);
    await age(abs, 60);
    const ctx = makeCtx(dir);
    const r = await read.run({ file_path: name }, ctx);
    assert.equal(r.isError, false, r.content);
    return { dir, abs, ctx };
  }

  it('replaces a unique string and writes atomically', async () => {
    const { dir, abs, ctx } = await readyFile('a\nb\nc\n');
    const r = await edit.run({ file_path: abs, old_string: 'b', new_string: 'B' }, ctx);
    assert.equal(r.isError, false, r.content);
    assert.equal(r.content, 'Edited f.txt: 1 replacement at line 2.');
    assert.equal((r.data as EditData).replacements, 1);
    assert.equal(await fsp.readFile(abs, 'utf8'), 'a\nB\nc\n');
    assert.deepEqual(await listAll(dir), ['f.txt']);
    // The agent's own write counts as seen: a second edit needs no new Read.
    const again = await edit.run({ file_path: abs, old_string: 'c', new_string: 'C' }, ctx);
    assert.equal(again.isError, false, again.content);
  });

  it('refuses a file that was not read', async () => {
    const dir = tempDir('engram-tools-');
    await write(dir, 'f.txt', 'x');
    const r = await edit.run({ file_path: 'f.txt', old_string: 'x', new_string: 'y' }, makeCtx(dir));
    assert.equal(r.isError, true);
    assert.match(r.content, /has not been read yet/);
  });

  it('refuses after an external change', async () => {
    const { abs, ctx } = await readyFile('one two');
    await fsp.writeFile(abs, 'one two three');
    const r = await edit.run({ file_path: abs, old_string: 'one', new_string: '1' }, ctx);
    assert.equal(r.isError, true);
    assert.match(r.content, /modified since it was last read.*Read it again/);
    assert.equal(await fsp.readFile(abs, 'utf8'), 'one two three');
  });

  it('refuses a non-unique old_string unless replace_all', async () => {
    const { abs, ctx } = await readyFile('x = 1\nx = 1\nx = 1\n');
    const r = await edit.run({ file_path: abs, old_string: 'x = 1', new_string: 'x = 2' }, ctx);
    assert.equal(r.isError, true);
    assert.match(r.content, /occurs 3 times.*replace_all/);
    const all = await edit.run({ file_path: abs, old_string: 'x = 1', new_string: 'x = 2', replace_all: true }, ctx);
    assert.equal(all.isError, false, all.content);
    assert.equal(all.content, 'Edited f.txt: 3 replacements, first at line 1.');
    assert.equal(await fsp.readFile(abs, 'utf8'), 'x = 2\nx = 2\nx = 2\n');
  });

  it('rejects identical strings and explains a missing match', async () => {
    const { abs, ctx } = await readyFile('  indented\n');
    const same = await edit.run({ file_path: abs, old_string: 'a', new_string: 'a' }, ctx);
    assert.match(same.content, /identical/);
    const numbered = await edit.run({ file_path: abs, old_string: '     1\t  indented', new_string: 'x' }, ctx);
    assert.equal(numbered.isError, true);
    assert.match(numbered.content, /not found.*line-number prefixes/);
  });

  it('keeps CRLF line endings when the model sends LF', async () => {
    const { abs, ctx } = await readyFile('one\r\ntwo\r\nthree\r\n');
    const r = await edit.run({ file_path: abs, old_string: 'one\ntwo', new_string: 'uno\ndos\nextra' }, ctx);
    assert.equal(r.isError, false, r.content);
    assert.equal(await fsp.readFile(abs, 'utf8'), 'uno\r\ndos\r\nextra\r\nthree\r\n');
  });

  it('inserts replacement text literally ($& and $1 are not patterns)', async () => {
    const { abs, ctx } = await readyFile('price: X\n');
    await edit.run({ file_path: abs, old_string: 'X', new_string: '$& $1 $$' }, ctx);
    assert.equal(await fsp.readFile(abs, 'utf8'), 'price: $& $1 $$\n');
  });

  it('keeps a UTF-8 BOM', async () => {
    const { abs, ctx } = await readyFile(Buffer.from('\ufeffhello\n', 'utf8'));
    await edit.run({ file_path: abs, old_string: 'hello', new_string: 'bye' }, ctx);
    assert.deepEqual([...(await fsp.readFile(abs)).subarray(0, 3)], [0xef, 0xbb, 0xbf]);
    assert.equal((await fsp.readFile(abs, 'utf8')).slice(1), 'bye\n');
  });

  it('creates a file with an empty old_string, but not over existing content', async () => {
    const dir = tempDir('engram-tools-');
    const ctx = makeCtx(dir);
    const c = await edit.run({ file_path: 'n/new.txt', old_string: '', new_string: 'fresh' }, ctx);
    assert.equal(c.isError, false, c.content);
    assert.equal(await fsp.readFile(path.join(dir, 'n/new.txt'), 'utf8'), 'fresh');
    const again = await edit.run({ file_path: 'n/new.txt', old_string: '', new_string: 'other' }, ctx);
    assert.equal(again.isError, true);
    assert.match(again.content, /old_string is empty/);
    const missing = await edit.run({ file_path: 'nope.txt', old_string: 'a', new_string: 'b' }, ctx);
    assert.match(missing.content, /does not exist/);
  });

  it('refuses binary files', async () => {
    const { abs, ctx } = await readyFile('text');
    await fsp.writeFile(abs, Buffer.from([1, 0, 2]));
    ctx.readFiles.set(abs, { mtimeMs: (await fsp.stat(abs)).mtimeMs, partial: false, touchedAt: 1 });
    const r = await edit.run({ file_path: abs, old_string: 'a', new_string: 'b' }, ctx);
    assert.match(r.content, /binary/);
  });
});
