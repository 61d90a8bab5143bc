// Choosing the engine a session searches with: the ripgrep binary a host found, once it is checked to run
// (`rg --version`, cached per path; not again when the host's pickRipgrep ran it and passes the version),
// else the JavaScript engine with the reason in its detail and the log.
import { execFile } from 'node:child_process';
import { silentLogger, type Logger } from '../../ports';
import type { SearchEngine } from '../searchTypes';
import { errorText } from '../toolSupport';
import { jsSearchEngine } from './jsEngine';
import { ripgrepSearchEngine } from './ripgrepEngine';

/** How long `rg --version` may take before the binary counts as not working. */
const VERSION_TIMEOUT_MS = 5000;

export interface SearchEngineOptions {
  /** The rg binary the host found (VS Code's bundled copy, one on PATH, a configured path); none: JavaScript. */
  rgPath?: string;
  /** Where it came from, for the detail: e.g. "VS Code's bundled copy". */
  source?: string;
  /** The version `rg --version` gave the host (pickRipgrep's "15.0.0"): the binary is not run again. */
  version?: string;
  logger?: Logger;
}

const checked = new Map<string, Promise<string>>();

/** The first line of `rg --version` ("ripgrep 15.0.0 (rev ...)"), or a rejection saying why it does not run. */
function rgVersion(rgPath: string): Promise<string> {
  let p = checked.get(rgPath);
  if (!p) {
    p = new Promise<string>((resolve, reject) => {
      execFile(rgPath, ['--version'], { timeout: VERSION_TIMEOUT_MS, windowsHide: true }, (err, stdout) => {
        const first = String(stdout).split('\n')[0].trim();
        if (err) reject(err);
        else if (!/^ripgrep \d/.test(first))
          reject(new Error(`it does not say it is ripgrep ("${first.slice(0, 80)}")`));
        else resolve(first);
      });
    });
    checked.set(rgPath, p);
    p.catch(() => checked.delete(rgPath)); // a binary installed later is checked again
  }
  return p;
}

/**
 * The engine for Grep and Glob: ripgrep at `opts.rgPath` when it runs, else the JavaScript engine (whose
 * `detail` says why). Never rejects.
 */
export async function createSearchEngine(opts: SearchEngineOptions): Promise<SearchEngine> {
  const logger = opts.logger ?? silentLogger;
  if (!opts.rgPath) return jsSearchEngine('JavaScript (no ripgrep found)');
  try {
    const version = opts.version ? `ripgrep ${opts.version}` : await rgVersion(opts.rgPath);
    const detail = `${version.replace(/\s*\(rev [^)]*\)/, '')}${opts.source ? ` (${opts.source})` : ''} at ${opts.rgPath}`;
    logger.info(`Search engine: ${detail}`);
    return ripgrepSearchEngine(opts.rgPath, detail);
  } catch (err) {
    const why = `ripgrep at ${opts.rgPath} does not run: ${errorText(err)}`;
    logger.warn(`Search engine: JavaScript, because ${why}`);
    return jsSearchEngine(`JavaScript (${why})`);
  }
}
