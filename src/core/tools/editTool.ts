// Edit: exact string replacement in a file the model has read. Exactness is the point: a fuzzy match
// could change the wrong place, so every mismatch is an error that says how to fix the call.
import { promises as fsp } from 'node:fs';
import { writeFileAtomic } from '../fs/atomicWrite';
import { isErrno } from '../fs/errno';
import { decodeText, dominantEol, kindByExtension, looksBinary, sha1, withEol } from '../fs/fileText';
import { staleReason } from './readFileState';
import type { Tool, ToolContext, ToolResult } from './tool';
import { defineTool, displayPath, errorResult, guardedPath, okResult } from './toolSupport';

export type EditInput = { file_path: string; old_string: string; new_string: string; replace_all?: boolean };

export interface EditData {
  filePath: string;
  replacements: number;
  /** 1-based line of the first replacement. */
  firstLine: number;
  oldString: string;
  newString: string;
  created: boolean;
}

export function editTool(): Tool<EditInput> {
  return defineTool<EditInput>({
    name: 'Edit',
    description:
      'Replace exact text in a file. Read the file first. old_string must match the file exactly (indentation ' +
      'included, no line-number prefixes) and occur once, unless replace_all is true. An empty old_string ' +
      'creates a new file with new_string.',
    inputSchema: {
      type: 'object',
      properties: {
        file_path: { type: 'string', description: 'Absolute path, or relative to the working directory' },
        old_string: { type: 'string', description: 'Exact text to replace' },
        new_string: { type: 'string', description: 'Replacement text (must differ from old_string)' },
        replace_all: { type: 'boolean', default: false, description: 'Replace every occurrence' },
      },
      required: ['file_path', 'old_string', 'new_string'],
      additionalProperties: false,
    },
    fields: {
      file_path: { type: 'string', required: true, nonEmpty: true },
      old_string: { type: 'string', required: true },
      new_string: { type: 'string', required: true },
      replace_all: { type: 'boolean' },
    },
    readOnly: false,
    concurrencySafe: false,
    summarize: (input) => `Edit ${input.file_path}${input.replace_all ? ' (all occurrences)' : ''}`,
    run: editFile,
  });
}

async function editFile(input: EditInput, ctx: ToolContext): Promise<ToolResult> {
  if (input.old_string === input.new_string) {
    return errorResult('old_string and new_string are identical, so there is nothing to change.');
  }
  const g = guardedPath(input.file_path, 'write', ctx);
  if ('error' in g) return g.error;
  const abs = g.abs;
  const shown = displayPath(abs, ctx.cwd);

  let raw: Buffer;
  let mtimeMs: number;
  try {
    const stat = await fsp.stat(abs);
    if (stat.isDirectory()) return errorResult(`${shown} is a directory, not a file.`);
    raw = await fsp.readFile(abs);
    mtimeMs = stat.mtimeMs;
  } catch (err) {
    if (!isErrno(err, 'ENOENT', 'ENOTDIR')) throw err;
    if (input.old_string !== '') {
      return errorResult(`File does not exist: ${shown}. To create it, use Write (or Edit with an empty old_string).`);
    }
    return create(abs, shown, input, ctx);
  }
  if (kindByExtension(abs) !== 'text' || looksBinary(raw))
    return errorResult(`${shown} is a binary file; Edit changes text files only.`);
  const stale = await staleReason(abs, shown, ctx.readFiles, { mtimeMs, content: raw });
  if (stale) return errorResult(stale);

  const { text, bom } = decodeText(raw);
  const eol = dominantEol(text);
  const newText = withEol(input.new_string, eol);
  let updated: string;
  let count: number;
  let firstIndex: number;
  if (input.old_string === '') {
    if (text.trim() !== '') {
      return errorResult(
        `old_string is empty but ${shown} has content. ` +
          'Give the exact text to replace, or use Write to replace the whole file.',
      );
    }
    updated = newText;
    count = 1;
    firstIndex = 0;
  } else {
    // The model sees lines without their \r, so try its text with the file's line endings first.
    let needle = withEol(input.old_string, eol);
    let found = indexesOf(text, needle);
    if (found.length === 0 && needle !== input.old_string) {
      needle = input.old_string;
      found = indexesOf(text, needle);
    }
    if (found.length === 0) return errorResult(notFoundMessage(input.old_string, shown));
    if (found.length > 1 && !input.replace_all) {
      return errorResult(
        `old_string occurs ${found.length} times in ${shown}. Include more surrounding lines so it matches exactly ` +
          'one place, or set replace_all to true to change every occurrence.',
      );
    }
    updated = replaceAt(text, found, needle.length, newText);
    count = found.length;
    firstIndex = found[0];
  }
  if (ctx.signal.aborted) return errorResult('Edit was cancelled.');

  const out = Buffer.from(bom ? `\ufeff${updated}` : updated, 'utf8');
  const newMtime = await writeFileAtomic(abs, out);
  const prev = ctx.readFiles.get(abs);
  ctx.readFiles.set(abs, {
    mtimeMs: newMtime,
    contentHash: sha1(out),
    partial: prev?.partial ?? false,
    touchedAt: Date.now(),
  });
  const firstLine = lineOf(text, firstIndex);
  const data: EditData = {
    filePath: abs,
    replacements: count,
    firstLine,
    oldString: input.old_string,
    newString: input.new_string,
    created: false,
  };
  const what = count === 1 ? `1 replacement at line ${firstLine}` : `${count} replacements, first at line ${firstLine}`;
  return okResult(`Edited ${shown}: ${what}.`, data);
}

async function create(abs: string, shown: string, input: EditInput, ctx: ToolContext): Promise<ToolResult> {
  const out = Buffer.from(input.new_string, 'utf8');
  const mtimeMs = await writeFileAtomic(abs, out);
  ctx.readFiles.set(abs, { mtimeMs, contentHash: sha1(out), partial: false, touchedAt: Date.now() });
  const data: EditData = {
    filePath: abs,
    replacements: 1,
    firstLine: 1,
    oldString: '',
    newString: input.new_string,
    created: true,
  };
  return okResult(`Created ${shown}.`, data);
}

function indexesOf(haystack: string, needle: string): number[] {
  const out: number[] = [];
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) out.push(i);
  return out;
}

/** Splices `replacement` in at each index; String.replace is avoided because it expands `$&` and friends. */
function replaceAt(text: string, indexes: number[], len: number, replacement: string): string {
  const parts: string[] = [];
  let last = 0;
  for (const i of indexes) {
    parts.push(text.slice(last, i), replacement);
    last = i + len;
  }
  parts.push(text.slice(last));
  return parts.join('');
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

function notFoundMessage(oldString: string, shown: string): string {
  const hints: string[] = [];
  if (/^\s*\d+\t/m.test(oldString))
    hints.push('it seems to include line-number prefixes from Read output; leave those out');
  if (oldString !== oldString.trim()) hints.push('check leading/trailing whitespace and indentation');
  const hint = hints.length ? ` Hint: ${hints.join('; ')}.` : '';
  return (
    `old_string was not found in ${shown}. It must match the file exactly, including whitespace. ` +
    `Read the file again to copy the current text.${hint}`
  );
}
