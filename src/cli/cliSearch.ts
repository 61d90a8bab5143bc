// Which ripgrep `engram -p` runs Grep and Glob on (issue 35): the `--rg-path` flag, else the settings
// file's engram.search.ripgrepPath, else an `rg` on PATH; with none that runs, the built-in JavaScript
// search, with the reason said in the --verbose log ("Search: the JavaScript engine (no ripgrep found: …)").
import {
  describeRipgrepChoice,
  type EngramSettings,
  pickRipgrep,
  type RipgrepCandidate,
  type RipgrepChoice,
  ripgrepOnPath,
  searchBoundsOf,
} from '../core/host/config';
import type { Logger } from '../core/host/sessions';
import { createSearchEngine, type SessionSearch } from '../core/host/search';
import type { OptionSpecs } from './args';
import { expandHome } from './cliSettings';
import type { CliIo } from './command';

export const SEARCH_OPTIONS = {
  'rg-path': {
    type: 'string',
    valueName: 'PATH',
    help:
      'The ripgrep (rg) program Grep and Glob run (default: engram.search.ripgrepPath, else rg on PATH; ' +
      'with none that runs, the built-in JavaScript search).',
  },
} satisfies OptionSpecs;

/**
 * The search this run's Grep and Glob use: ripgrep when one runs, else the JavaScript engine; which one
 * is said in the --verbose log. The settings' time limit and size cap bound every search (no excludes:
 * the command line has no files.exclude; the ignore files still apply).
 */
export async function cliSearch(
  io: Pick<CliIo, 'cwd' | 'env'>,
  settings: EngramSettings,
  flagGiven: boolean,
  logger: Logger,
): Promise<SessionSearch> {
  const ripgrep = await cliRipgrep(io, settings, flagGiven);
  logger.info(`Search: ${describeRipgrepChoice(ripgrep)}`);
  const engine = await createSearchEngine(
    ripgrep.found ? { rgPath: ripgrep.path, source: ripgrep.source, version: ripgrep.version } : {},
  );
  return { engine, bounds: () => searchBoundsOf(settings, []) };
}

/**
 * The ripgrep this run uses, or why there is none. A path the person gave (flag or setting) is the only
 * one tried: when it does not run, the reason names it instead of another copy quietly taking its place.
 */
function cliRipgrep(
  io: Pick<CliIo, 'cwd' | 'env'>,
  settings: EngramSettings,
  flagGiven: boolean,
): Promise<RipgrepChoice> {
  const set = settings.search.ripgrepPath;
  const candidates: Array<RipgrepCandidate & { required?: boolean }> = set
    ? [{ path: expandHome(set, io.cwd), source: flagGiven ? '--rg-path' : 'engram.search.ripgrepPath', required: true }]
    : ripgrepOnPath(io.env.PATH).map((p) => ({ path: p, source: 'rg on PATH' }));
  return pickRipgrep(candidates);
}
