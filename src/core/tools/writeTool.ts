// Write: creates or replaces a whole file, atomically. Replacing requires a fresh Read, so the model
// never overwrites content it has not seen or that changed under it.
import { promises as fsp } from 'node:fs';
import { writeFileAtomic } from '../fs/atomicWrite';
import { isErrno } from '../fs/errno';
import { sha1 } from '../fs/fileText';
import { staleReason } from './readFileState';
import type { Tool, ToolContext, ToolResult } from './tool';
import { defineTool, displayPath, errorResult, guardedPath, okResult } from './toolSupport';

export type WriteInput = { file_path: string; content: string };

export interface WriteData {
  filePath: string;
  type: 'create' | 'update';
  bytes: number;
}

export function writeTool(): Tool<WriteInput> {
  return defineTool<WriteInput>({
    name: 'Write',
    description:
      'Create a file or replace its whole content. Parent directories are created. An existing file must ' +
      'be Read first. Prefer Edit for changes to existing files.',
    inputSchema: {
      type: 'object',
      properties: {
        file_path: { type: 'string', description: 'Absolute path, or relative to the working directory' },
        content: { type: 'string', description: 'The complete new file content' },
      },
      required: ['file_path', 'content'],
      additionalProperties: false,
    },
    fields: {
      file_path: { type: 'string', required: true, nonEmpty: true },
      content: { type: 'string', required: true },
    },
    readOnly: false,
    concurrencySafe: false,
    summarize: (input) => `Write ${input.file_path}`,
    run: writeFile,
  });
}

async function writeFile(input: WriteInput, ctx: ToolContext): Promise<ToolResult> {
  const g = guardedPath(input.file_path, 'write', ctx);
  if ('error' in g) return g.error;
  const abs = g.abs;
  const shown = displayPath(abs, ctx.cwd);

  let exists = false;
  try {
    const stat = await fsp.stat(abs);
    if (stat.isDirectory()) return errorResult(`${shown} is a directory; give a file path.`);
    exists = true;
    const stale = await staleReason(abs, shown, ctx.readFiles, { mtimeMs: stat.mtimeMs });
    if (stale) return errorResult(stale);
  } catch (err) {
    if (!isErrno(err, 'ENOENT')) {
      if (isErrno(err, 'ENOTDIR'))
        return errorResult(`Cannot create ${shown}: a parent path is a file, not a directory.`);
      throw err;
    }
  }
  if (ctx.signal.aborted) return errorResult('Write was cancelled.');

  const bytes = Buffer.from(input.content, 'utf8');
  let mtimeMs: number;
  try {
    mtimeMs = await writeFileAtomic(abs, bytes);
  } catch (err) {
    if (isErrno(err, 'ENOTDIR', 'EEXIST'))
      return errorResult(`Cannot create ${shown}: a parent path is a file, not a directory.`);
    throw err;
  }
  ctx.readFiles.set(abs, { mtimeMs, contentHash: sha1(bytes), partial: false, touchedAt: Date.now() });
  const lines = input.content === '' ? 0 : input.content.split('\n').length - (input.content.endsWith('\n') ? 1 : 0);
  const data: WriteData = { filePath: abs, type: exists ? 'update' : 'create', bytes: bytes.length };
  return okResult(`${exists ? 'Updated' : 'Created'} ${shown} (${lines} line${lines === 1 ? '' : 's'}).`, data);
}
