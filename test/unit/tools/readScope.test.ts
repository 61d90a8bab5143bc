import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { globTool } from '../../../src/core/tools/globTool';
import { grepTool } from '../../../src/core/tools/grepTool';
import { readOutsideScope } from '../../../src/core/tools/readScope';
import { readTool } from '../../../src/core/tools/readTool';
import { writeTool } from '../../../src/core/tools/writeTool';
import { useTempDirs } from '../support/tempDirs';

const tempDir = useTempDirs();

describe('readOutsideScope', () => {
  it('names a Read, Grep or Glob path outside the workspace and its free folders, and nothing inside them', () => {
    const ws = tempDir('engram-ws-');
    const memory = tempDir('engram-mem-');
    const elsewhere = tempDir('engram-else-');
    const scope = { cwd: ws, free: [memory] };
    const read = readTool() as never;
    assert.equal(readOutsideScope(read, { file_path: 'src/a.ts' }, scope), undefined);
    assert.equal(readOutsideScope(read, { file_path: path.join(memory, 'MEMORY.md') }, scope), undefined);
    assert.equal(
      readOutsideScope(read, { file_path: path.join(elsewhere, 'secret.txt') }, scope),
      path.join(elsewhere, 'secret.txt'),
    );
    assert.equal(readOutsideScope(read, { file_path: '../x.txt' }, scope), path.join(path.dirname(ws), 'x.txt'));
    assert.equal(
      readOutsideScope(grepTool() as never, { pattern: 'x' }, scope),
      undefined,
      'the default path is the workspace',
    );
    assert.equal(readOutsideScope(grepTool() as never, { pattern: 'x', path: elsewhere }, scope), elsewhere);
    assert.equal(readOutsideScope(globTool() as never, { pattern: '*', path: '/' }, scope), '/');
    // A tool that names no read path (Write asks for its own reasons) is not judged here.
    assert.equal(readOutsideScope(writeTool() as never, { file_path: '/etc/x', content: '' }, scope), undefined);
  });

  it('follows a symlink in the workspace to where it really leads', () => {
    const ws = tempDir('engram-ws-');
    const elsewhere = tempDir('engram-else-');
    fs.writeFileSync(path.join(elsewhere, 'hosts'), 'x');
    fs.symlinkSync(path.join(elsewhere, 'hosts'), path.join(ws, 'link.txt'));
    assert.equal(
      readOutsideScope(readTool() as never, { file_path: 'link.txt' }, { cwd: ws, free: [] }),
      path.join(ws, 'link.txt'),
    );
  });
});
