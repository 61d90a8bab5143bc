// The session notes file itself: created from the template when it is missing (never over someone's
// notes), read as text, and measured in tokens for the caps. Shared by the updater (updater.ts) and the
// forked update run (notesUpdateRun.ts), which both read the notes as they are on disk.
import { promises as fsp } from 'node:fs';
import { isErrno } from '../../fs/errno';
import { decodeText } from '../../fs/fileText';
import type { Logger } from '../../ports';
import { defaultTokenCounter, type TokenCounter } from '../../tokens/accounting';
import { countTokens, ensureTokenizer } from '../../tokens/tokenizer';
import type { SessionNotesPaths } from './paths';

/** Creates the notes with `template` unless they exist; true when this call made them. */
export async function createNotesFile(paths: SessionNotesPaths, template: string): Promise<boolean> {
  await fsp.mkdir(paths.dir, { recursive: true });
  try {
    await fsp.writeFile(paths.summary, template, { flag: 'wx' });
  } catch (e) {
    if (isErrno(e, 'EEXIST')) return false;
    throw e;
  }
  return true;
}

export async function readNotesText(notesPath: string): Promise<string> {
  return decodeText(await fsp.readFile(notesPath)).text;
}

/** `given`, or the exact tokenizer (loaded on first use, off the turn); an estimate when it cannot load. */
export async function notesTokenCounter(given: TokenCounter | undefined, logger: Logger): Promise<TokenCounter> {
  if (given) return given;
  try {
    await ensureTokenizer();
    return countTokens;
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    logger.warn(`The tokenizer did not load; notes sizes are estimates (${reason}).`);
    return defaultTokenCounter;
  }
}
