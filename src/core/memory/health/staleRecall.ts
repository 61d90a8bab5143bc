// Recall respects stale memories (issue 32 item 2): before a memory is attached to a turn, its
// references are checked against the workspace (the reference check of healthIndex.ts), and a memory
// that names what no longer exists is attached with a one-line caveat saying so, or left out, as the
// setting `engram.memory.staleRecall` says. The workspace is listed once and listed again when the
// listing is older than REFRESH_MS, without holding up a turn for long (REFRESH_WAIT_MS); only the
// memories about to be attached are checked, each alone.
import { silentLogger, type Logger } from '../../ports';
import type { StaleReference } from './healthTypes';
import { MemoryHealthIndex } from './healthIndex';

/** A listing of the workspace older than this is made again before the next check. */
const REFRESH_MS = 60_000;
/**
 * How long a check waits for a new listing before it answers from the one before: a small workspace is
 * listed again within it; a big one (a 100,000-file tree takes 0.3-1.5 s) does not hold up the turn, and
 * its next check uses the new listing.
 */
const REFRESH_WAIT_MS = 150;

/** The stale references of a memory about to be recalled (`file` relative to the memory folder). */
export type StaleCheck = (file: string, text: string) => Promise<StaleReference[]>;

/**
 * A check against the workspace at `root`. Never throws: a workspace that cannot be listed makes no
 * memory stale (logged once), so recall goes on as before.
 */
export function staleCheckFor(
  root: string,
  opts: {
    logger?: Logger;
    refreshMs?: number;
    refreshWaitMs?: number;
    now?: () => number;
    /** How the workspace is listed (tests hold a listing back with it). */
    list?: (root: string) => Promise<MemoryHealthIndex>;
  } = {},
): StaleCheck {
  const logger = opts.logger ?? silentLogger;
  const now = opts.now ?? Date.now;
  /** The last listing made, and when it was started. */
  let listed: { at: number; index: MemoryHealthIndex | undefined } | undefined;
  let listing: Promise<MemoryHealthIndex | undefined> | undefined;
  let warned = false;
  const list = (): Promise<MemoryHealthIndex | undefined> => {
    const at = now();
    const open = (opts.list ?? MemoryHealthIndex.open.bind(MemoryHealthIndex))(root).then(
      (index) => index,
      (e: unknown) => {
        if (!warned) logger.warn(`Recall could not list the workspace to check memories: ${String(e)}`);
        warned = true;
        return undefined;
      },
    );
    listing = open;
    void open.then((index) => {
      // A failed listing keeps the one before it; either way the next one waits REFRESH_MS.
      listed = { at, index: index ?? listed?.index };
      listing = undefined;
    });
    return open;
  };
  const current = async (): Promise<MemoryHealthIndex | undefined> => {
    if (!listed) return listing ?? list();
    if (now() - listed.at <= (opts.refreshMs ?? REFRESH_MS)) return listed.index;
    const fresh = listing ?? list();
    const previous = listed.index;
    const waited = await Promise.race([fresh, delay(opts.refreshWaitMs ?? REFRESH_WAIT_MS).then(() => previous)]);
    return waited ?? previous;
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

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The caveat line attached above a stale memory: what no longer exists, in one line. */
export function staleCaveat(stale: readonly StaleReference[]): string {
  const named = stale.slice(0, 3).map((s) => `${s.ref} (${s.reason})`);
  const more = stale.length > 3 ? ` and ${stale.length - 3} more` : '';
  return `Caveat: this memory names what no longer exists in the workspace: ${named.join('; ')}${more}. Check before relying on it.`;
}
