// What a session adds to auto memory's bookkeeping without changing how memory is recalled or written:
// it counts each use of a topic file (recalled into a turn, or read by the main agent with Read) in the
// folder's use counts, and says once per session, in the chat, when MEMORY.md has passed 80% of its cap
// (checked as each turn starts, until it was said, and after a memory was saved), with a way to the
// inspector's memory pane. Not while the session opens: no host listens yet.
import type { AgentEvent } from '../agent/events';
import type { AutoMemoryEvent } from '../memory/autoMemory/extraction';
import { kbText, readCapStatus, type CapStatus } from '../memory/autoMemory/capWarning';
import { isIndexName, memoryHome, memoryWriteTarget } from '../memory/autoMemory/memoryPaths';
import { recordUse, type UseKind } from '../memory/autoMemory/usageCounts';
import type { Logger } from '../ports';
import { resolveToolPath } from '../tools/toolSupport';
import { say, type NoticeWords } from './sessionEvents';

export interface MemoryUseDeps {
  memoryDir: string;
  cwd: string;
  onAgent(listener: (event: AgentEvent) => void): () => void;
  onMemory(listener: (event: AutoMemoryEvent) => void): () => void;
  /** Tells the person (the session's notice, with the action that opens the memory pane). */
  warn(said: { text: string; words: NoticeWords }): void;
  logger: Logger;
}

/** The chat's words for an index near or over its cap. */
export function capNotice(s: CapStatus): { text: string; words: NoticeWords } {
  const args = [s.lines, s.maxLines, kbText(s.bytes), kbText(s.maxBytes)] as const;
  return s.level === 'over'
    ? say(
        'MEMORY.md is over its cap ({0} of {1} lines, {2} of {3} KB): the entries past it are not loaded. Prune or merge memories in the Memory Inspector.',
        ...args,
      )
    : say(
        'MEMORY.md is past 80% of its cap ({0} of {1} lines, {2} of {3} KB). Prune or merge memories before entries get cut.',
        ...args,
      );
}

/** Starts counting and watching; returns the function that stops both. */
export function linkMemoryUse(deps: MemoryUseDeps): () => void {
  let warned = false;
  const check = (): void => {
    if (warned) return;
    readCapStatus(deps.memoryDir).then(
      (s) => {
        if (warned || s.level === 'ok') return;
        warned = true;
        deps.warn(capNotice(s));
      },
      (e: unknown) => deps.logger.warn(`Could not measure MEMORY.md: ${String(e)}`),
    );
  };
  const count = (names: readonly string[], kind: UseKind): void => {
    // Team files (`team/x.md`) are counted in the team folder, private ones in the memory folder.
    const byDir = new Map<string, string[]>();
    for (const name of names) {
      if (isIndexName(name)) continue;
      const home = memoryHome(deps.memoryDir, name);
      byDir.set(home.dir, [...(byDir.get(home.dir) ?? []), home.file]);
    }
    for (const [dir, files] of byDir) void recordUse(dir, files, kind, { logger: deps.logger });
  };

  const reads = new Map<string, string>();
  const offAgent = deps.onAgent((event) => {
    if (event.type === 'turnStart') check();
    else if (event.type === 'toolCall' && event.name === 'Read' && typeof event.input.file_path === 'string') {
      const target = memoryWriteTarget(deps.memoryDir, resolveToolPath(event.input.file_path, deps.cwd));
      if ('name' in target) reads.set(event.id, target.name);
    } else if (event.type === 'toolResult') {
      const name = reads.get(event.id);
      reads.delete(event.id);
      if (name && !event.isError) count([name], 'read');
    }
  });
  const offMemory = deps.onMemory((event) => {
    if (event.type === 'memoryRecalled') count(event.files, 'recall');
    else if (event.type === 'memorySaved' && !event.team) check();
  });
  return () => {
    offAgent();
    offMemory();
  };
}
