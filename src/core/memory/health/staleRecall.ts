// Recall respects stale memories (issue 32 item 2): before a memory is attached to a turn, its
// references are checked against the workspace (the reference check of healthIndex.ts), and a memory
// that names what no longer exists is attached with a one-line caveat saying so, or left out, as the
// setting `engram.memory.staleRecall` says. The workspace is listed once and listed again when the
// listing is older than REFRESH_MS (or a host feeds file events to the index it passes in); only the
// memories about to be attached are checked, each alone.
import { silentLogger, type Logger } from '../../ports';
import type { StaleReference } from './healthTypes';
import { MemoryHealthIndex } from './healthIndex';

/** A listing of the workspace older than this is made again before the next check. */
const REFRESH_MS = 60_000;

/** The stale references of a memory about to be recalled (`file` relative to the memory folder). */
export type StaleCheck = (file: string, text: string) => Promise<StaleReference[]>;

/**
 * A check against the workspace at `root`. Never throws: a workspace that cannot be listed makes no
 * memory stale (logged once), so recall goes on as before.
 */
export function staleCheckFor(
  root: string,
  opts: { logger?: Logger; refreshMs?: number; now?: () => number } = {},
): StaleCheck {
  const logger = opts.logger ?? silentLogger;
  const now = opts.now ?? Date.now;
  let index: { at: number; open: Promise<MemoryHealthIndex | undefined> } | undefined;
  let warned = false;
  const current = (): Promise<MemoryHealthIndex | undefined> => {
    if (!index || now() - index.at > (opts.refreshMs ?? REFRESH_MS)) {
      const open = MemoryHealthIndex.open(root).catch((e: unknown) => {
        if (!warned) logger.warn(`Recall could not list the workspace to check memories: ${String(e)}`);
        warned = true;
        return undefined;
      });
      index = { at: now(), open };
    }
    return index.open;
  };
  return async (file, text) => {
    const idx = await current();
    if (!idx) return [];
    try {
      return (await idx.onMemoryChanged(file, text))?.stale ?? [];
    } catch (e) {
      logger.warn(`Recall could not check the memory ${file}: ${String(e)}`);
      return [];
    }
  };
}

/** The caveat line attached above a stale memory: what no longer exists, in one line. */
export function staleCaveat(stale: readonly StaleReference[]): string {
  const named = stale.slice(0, 3).map((s) => `${s.ref} (${s.reason})`);
  const more = stale.length > 3 ? ` and ${stale.length - 3} more` : '';
  return `Caveat: this memory names what no longer exists in the workspace: ${named.join('; ')}${more}. Check before relying on it.`;
}
