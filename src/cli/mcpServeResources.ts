// The resources `engram mcp` serves: MEMORY.md and every topic file, as `engram-memory:///<file>`
// (`engram-memory:///team/<file>` for team memory), listed from the memory folders, read through the same
// confinement as the read_memory tool; and a resource-list change sent when a memory folder changes.
import { watch, type FSWatcher } from 'node:fs';
import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { projectMemoryFiles, readProjectMemory, teamMemoryDir, type MemoryScope } from '../core/host/memory';

export const MEMORY_URI_PREFIX = 'engram-memory:///';
const INDEX = 'MEMORY.md';
const MARKDOWN = 'text/markdown';

export function registerMemoryResources(server: McpServer, scope: MemoryScope): void {
  server.registerResource(
    INDEX,
    `${MEMORY_URI_PREFIX}${INDEX}`,
    {
      title: "The project's memory index",
      description: 'MEMORY.md: one line per memory (title, file, hook), as Engram loads it into every prompt.',
      mimeType: MARKDOWN,
    },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: MARKDOWN, text: await readOrEmpty(scope, INDEX) }] }),
  );
  server.registerResource(
    'memory-file',
    new ResourceTemplate(`${MEMORY_URI_PREFIX}{+file}`, {
      list: async () => ({
        resources: (await projectMemoryFiles(scope)).map((file) => ({
          uri: `${MEMORY_URI_PREFIX}${encodeURI(file)}`,
          name: file,
          mimeType: MARKDOWN,
        })),
      }),
    }),
    {
      title: 'A memory topic file',
      description: 'One memory: front matter (name, description, type) and text.',
      mimeType: MARKDOWN,
    },
    async (uri, vars) => {
      const file = decodeURIComponent(String(vars.file ?? ''));
      return { contents: [{ uri: uri.href, mimeType: MARKDOWN, text: await readProjectMemory(scope, file) }] };
    },
  );
}

/** An index not written yet reads as empty: the project simply has no memories. */
async function readOrEmpty(scope: MemoryScope, file: string): Promise<string> {
  try {
    return await readProjectMemory(scope, file);
  } catch (e) {
    if (e instanceof Error && /^No memory file/.test(e.message)) return '';
    throw e;
  }
}

/** Watches the memory folders for the resource list; `ensure` starts on folders made since (the first memory). */
export interface MemoryWatch {
  ensure(): void;
  stop(): void;
}

/**
 * Tells the client the resource list changed whenever a file in a memory folder does (debounced). A
 * folder that does not exist yet is watched once `ensure` finds it.
 */
export function watchMemoryFolders(server: McpServer, scope: MemoryScope, log: (line: string) => void): MemoryWatch {
  const watchers = new Map<string, FSWatcher>();
  let timer: NodeJS.Timeout | undefined;
  const changed = (): void => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      if (server.isConnected()) server.sendResourceListChanged();
    }, 150);
  };
  const folders = (): string[] => {
    if (!scope.team) return [scope.memoryDir];
    try {
      return [scope.memoryDir, teamMemoryDir(scope.memoryDir)];
    } catch {
      return [scope.memoryDir]; // a team folder that links out is not read, nor watched
    }
  };
  const ensure = (): void => {
    for (const dir of folders()) {
      if (watchers.has(dir)) continue;
      try {
        const w = watch(dir, changed);
        w.on('error', (e) => {
          log(`stopped watching ${dir}: ${e.message}`);
          w.close();
          watchers.delete(dir);
        });
        watchers.set(dir, w);
      } catch {
        // not there yet: nothing to list
      }
    }
  };
  ensure();
  return {
    ensure,
    stop: () => {
      if (timer) clearTimeout(timer);
      for (const w of watchers.values()) w.close();
      watchers.clear();
    },
  };
}
