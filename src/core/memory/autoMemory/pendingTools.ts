// With review on, the memory agent's Write and Edit keep their names and schemas (so the fork's request
// prefix stays byte-identical to the main conversation's and reads its cache) but a call that targets a
// topic file queues a proposal instead of writing it: Write's content, or Edit's replacement made in
// the proposal already waiting for that file (else in the file as saved). A Write or Edit of an index
// (MEMORY.md) changes nothing: the index line is added when the user accepts. Calls outside the memory
// folder never get here (the extraction rule denies them first) and run the real tool.
import type { Tool, ToolResult } from '../../tools/tool';
import { errorResult, okResult } from '../../tools/toolSupport';
import { isErrno } from '../../fs/errno';
import { readMemoryText } from './memoryFiles';
import { isIndexName, memoryHome, resolveMemoryFile } from './memoryPaths';
import { memoryWriteOf } from './memoryPermissions';
import { pendingFor, proposeMemory } from './pendingQueue';

export interface ReviewToolOptions {
  memoryDir: string;
  cwd: string;
  sessionId: string;
  messageId: string;
  /** Hears each proposed file (relative to the memory folder), in order. */
  onProposed(file: string): void;
}

/** `tools` with Write and Edit redirected into the review queue for memory files. */
export function reviewTools(tools: readonly Tool[], opts: ReviewToolOptions): Tool[] {
  return tools.map((tool) => (tool.name === 'Write' || tool.name === 'Edit' ? redirected(tool, opts) : tool));
}

function redirected(tool: Tool, opts: ReviewToolOptions): Tool {
  return {
    ...tool,
    run: async (input, ctx) => {
      const target = memoryWriteOf(opts.memoryDir, opts.cwd, tool.name, input);
      if (!target || !('name' in target)) return tool.run(input, ctx);
      if (isIndexName(target.name)) {
        return okResult(
          `${target.name} was left as it is: memories wait for the user's review, ` +
            'and an accepted one gets its index line then.',
        );
      }
      const next = await proposedText(opts.memoryDir, target.name, tool.name, input);
      if ('error' in next) return next.error;
      await proposeMemory(opts.memoryDir, {
        file: target.name,
        content: next.text,
        sessionId: opts.sessionId,
        messageId: opts.messageId,
      });
      opts.onProposed(target.name);
      return okResult(`Proposed ${target.name} for the user's review: it is saved when they accept it.`);
    },
  };
}

async function proposedText(
  memoryDir: string,
  name: string,
  toolName: string,
  input: Record<string, unknown>,
): Promise<{ text: string } | { error: ToolResult }> {
  if (toolName === 'Write') return { text: typeof input.content === 'string' ? input.content : '' };
  const oldString = typeof input.old_string === 'string' ? input.old_string : '';
  const newString = typeof input.new_string === 'string' ? input.new_string : '';
  const replaceAll = input.replace_all === true;
  if (oldString === newString)
    return { error: errorResult('old_string and new_string are identical, so there is nothing to change.') };
  const waiting = (await pendingFor(memoryDir, name))?.content;
  const saved = await savedText(memoryDir, name);
  // The agent read the saved file; a proposal waiting for it may already hold the text it edits.
  for (const text of [waiting, saved]) {
    if (text === undefined) continue;
    const done = replaced(text, oldString, newString, replaceAll);
    if (typeof done === 'string') return { text: done };
    if (text === saved || saved === undefined) return { error: errorResult(`${done.error} in ${name}.`) };
  }
  if (oldString === '') return { text: newString };
  return { error: errorResult(`${name} does not exist. To create it, use Write (or Edit with an empty old_string).`) };
}

function replaced(text: string, oldString: string, newString: string, replaceAll: boolean): string | { error: string } {
  if (oldString === '')
    return text.trim() === '' ? newString : { error: 'old_string is empty but the file has content' };
  const count = text.split(oldString).length - 1;
  if (count === 0) return { error: 'old_string was not found' };
  if (count > 1 && !replaceAll)
    return { error: `old_string occurs ${count} times; include more context or set replace_all` };
  return replaceAll ? text.split(oldString).join(newString) : text.replace(oldString, () => newString);
}

async function savedText(memoryDir: string, name: string): Promise<string | undefined> {
  const home = memoryHome(memoryDir, name);
  try {
    return await readMemoryText(home.dir, resolveMemoryFile(home.dir, home.file));
  } catch (e) {
    if (isErrno(e, 'ENOENT', 'ENOTDIR')) return undefined;
    throw e;
  }
}
