import assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { readTool, READ_MAX_BYTES_WITHOUT_RANGE, type ReadData } from '../../../src/core/tools/readTool';
import { useTempDirs } from '../support/tempDirs';
import { makeCtx, write } from './toolTestKit';

const tempDir = useTempDirs();

const read = readTool();

describe('Read', () => {
  it('shows lines in cat -n style and records the file with its mtime', async () => {
    const dir = tempDir('engram-tools-');
    const abs = await write(dir, 'a.txt', 'alpha\nbeta\n');
    const ctx = makeCtx(dir);
    const r = await read.run({ file_path: 'a.txt' }, ctx);
    assert.equal(r.isError, false);
    assert.equal(r.content, '     1\talpha\n     2\tbeta');
    const rec = ctx.readFiles.get(abs);
    assert.ok(rec);
    assert.equal(rec.mtimeMs, (await fsp.stat(abs)).mtimeMs);
    assert.equal(rec.partial, false);
    assert.equal((r.data as ReadData).totalLines, 2);
  });

  it('accepts absolute paths and hides CR of CRLF files', async () => {
    const dir = tempDir('engram-tools-');
    const abs = await write(dir, 'w.txt', 'one\r\ntwo\r\n');
    const r = await read.run({ file_path: abs }, makeCtx('/'));
    assert.equal(r.content, '     1\tone\n     2\ttwo');
  });

  it('reads a line range with offset/limit and says how to read more', async () => {
    const dir = tempDir('engram-tools-');
    const abs = await write(dir, 'n.txt', Array.from({ length: 10 }, (_, i) => `line${i + 1}`).join('\n'));
    const ctx = makeCtx(dir);
    const r = await read.run({ file_path: 'n.txt', offset: 3, limit: 2 }, ctx);
    assert.equal(r.isError, false);
    const lines = r.content.split('\n');
    assert.deepEqual(lines.slice(0, 2), ['     3\tline3', '     4\tline4']);
    assert.match(lines[2], /Showing lines 3-4 of 10.*offset=5/);
    assert.equal(ctx.readFiles.get(abs)?.partial, true);
  });

  it('reports an offset past the end', async () => {
    const dir = tempDir('engram-tools-');
    await write(dir, 'n.txt', 'a\nb\n');
    const r = await read.run({ file_path: 'n.txt', offset: 5 }, makeCtx(dir));
    assert.equal(r.isError, true);
    assert.match(r.content, /has 2 lines; offset 5 is past the end/);
  });

  it('caps at 2000 lines by default and cuts long lines', async () => {
    const dir = tempDir('engram-tools-');
    const body = ['x'.repeat(2500), ...Array.from({ length: 2100 }, (_, i) => `l${i + 2}`)].join('\n');
    await write(dir, 'big.txt', body);
    const r = await read.run({ file_path: 'big.txt' }, makeCtx(dir));
    const lines = r.content.split('\n');
    assert.equal(lines.length, 2001);
    assert.match(lines[0], /^ {5}1\tx{2000}… \[line cut, 2500 characters\]$/);
    assert.match(lines[2000], /Showing lines 1-2000 of 2101.*offset=2001/);
  });

  it('refuses images, binary extensions and files with NUL bytes', async () => {
    const dir = tempDir('engram-tools-');
    await write(dir, 'p.png', 'not really a png');
    await write(dir, 'z.zip', 'PK');
    await write(dir, 'data.txt', Buffer.from([0x61, 0x00, 0x62]));
    const ctx = makeCtx(dir);
    const png = await read.run({ file_path: 'p.png' }, ctx);
    assert.equal(png.isError, true);
    assert.match(png.content, /image/);
    assert.match((await read.run({ file_path: 'z.zip' }, ctx)).content, /binary file/);
    const nul = await read.run({ file_path: 'data.txt' }, ctx);
    assert.equal(nul.isError, true);
    assert.match(nul.content, /NUL bytes/);
    assert.equal(ctx.readFiles.size, 0);
  });

  it('refuses directories and explains missing files', async () => {
    const dir = tempDir('engram-tools-');
    await fsp.mkdir(path.join(dir, 'sub'));
    const d = await read.run({ file_path: 'sub' }, makeCtx(dir));
    assert.equal(d.isError, true);
    assert.match(d.content, /is a directory/);
    const m = await read.run({ file_path: 'nope.txt' }, makeCtx(dir));
    assert.equal(m.isError, true);
    assert.match(m.content, /does not exist: nope.txt/);
  });

  it('refuses a huge file without a range and streams a range of it', async () => {
    const dir = tempDir('engram-tools-');
    const line = 'y'.repeat(99);
    const count = Math.ceil(READ_MAX_BYTES_WITHOUT_RANGE / 100) + 500;
    const abs = await write(dir, 'huge.log', Array.from({ length: count }, (_, i) => `${i + 1}:${line}`).join('\n'));
    const ctx = makeCtx(dir);
    const whole = await read.run({ file_path: 'huge.log' }, ctx);
    assert.equal(whole.isError, true);
    assert.match(whole.content, /offset and limit/);
    const part = await read.run({ file_path: 'huge.log', offset: 3000, limit: 2 }, ctx);
    assert.equal(part.isError, false);
    assert.match(
      part.content,
      /^ {2}3000\t3000:y+\n {2}3001\t3001:y+\n\[Showing lines 3000-3001 of huge.log. Use offset=3002/,
    );
    assert.equal(ctx.readFiles.get(abs)?.partial, true);
  });

  it('says when a file is empty', async () => {
    const dir = tempDir('engram-tools-');
    await write(dir, 'e.txt', '');
    const r = await read.run({ file_path: 'e.txt' }, makeCtx(dir));
    assert.equal(r.isError, false);
    assert.match(r.content, /is empty/);
  });

  it('validates input and never throws for bad input', async () => {
    assert.match(read.validate({}) ?? '', /Missing required field "file_path"/);
    assert.match(read.validate({ file_path: 3 }) ?? '', /must be a string/);
    assert.match(read.validate({ file_path: 'a', offset: 1.5 }) ?? '', /integer/);
    assert.match(read.validate({ file_path: 'a', limit: 0 }) ?? '', />= 1/);
    assert.match(read.validate('x') ?? '', /JSON object/);
    assert.equal(read.validate({ file_path: 'a', offset: 2, limit: 3 }), null);
    const r = await read.run({ file_path: 42 } as never, makeCtx('/'));
    assert.equal(r.isError, true);
  });

  it('asks the path guard', async () => {
    const dir = tempDir('engram-tools-');
    await write(dir, 'secret.txt', 's');
    const ctx = makeCtx(dir, {
      pathGuard: (p, op) => (op === 'read' && p.endsWith('secret.txt') ? 'denied here' : null),
    });
    const r = await read.run({ file_path: 'secret.txt' }, ctx);
    assert.deepEqual([r.isError, r.content], [true, 'denied here']);
  });
});
