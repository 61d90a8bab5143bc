// Words the command line prints in more than one place: counts that agree with their number ("1 entry"),
// numbers with thousands separators, and the next step after a run (how to resume it, how to get a model),
// spelled with the command the user actually ran (a clone has no `engram` on PATH: `node dist/cli.js`).
import { promises as fsp } from 'node:fs';
import fs from 'node:fs';
import path from 'node:path';

/** 225978 -> "225,978" (the same grouping the Chat view and the inspector use). */
export function digits(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** "1 entry", "2 entries", "1,024 lines". */
export function count(n: number, one: string, many: string): string {
  return `${digits(n)} ${n === 1 ? one : many}`;
}

/**
 * What to do without an API key: set one, or try the offline demo model, the project's test server
 * (built beside this bundle as testServer.js; from a clone, dist/testServer.js).
 */
export function noApiKeyText(command = 'engram'): string {
  const beside = path.join(__dirname, 'testServer.js');
  const server = fs.existsSync(beside) ? beside : 'dist/testServer.js';
  return (
    'engram: no API key. Set ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL for a gateway).\n' +
    'Claude on Amazon Bedrock, Google Vertex AI or Microsoft Foundry: --provider bedrock|vertex|foundry, or\n' +
    "Claude Code's CLAUDE_CODE_USE_BEDROCK=1 / CLAUDE_CODE_USE_VERTEX=1 / CLAUDE_CODE_USE_FOUNDRY=1 (docs/providers.md).\n" +
    `Or try the offline demo model: \`node ${server}\` prints the URL it serves; then\n` +
    `  ANTHROPIC_BASE_URL=<that URL> ANTHROPIC_API_KEY=any ${command} -p "remember that I prefer tabs over spaces"\n`
  );
}

/** "engram: session ID; continue it with --resume ID", once the run wrote its transcript (else nothing to resume). */
export async function resumeLine(sessionId: string, transcriptPath: string, command = 'engram'): Promise<string> {
  const size = (await fsp.stat(transcriptPath).catch(() => undefined))?.size ?? 0;
  return size > 0 ? `engram: session ${sessionId}; continue it with: ${command} -p "..." --resume ${sessionId}\n` : '';
}

/**
 * The command to type again, from the script node ran (`process.argv[1]`): `engram` when that is an `engram`
 * found on PATH (npm link, a global install), else `node <the script>`, relative to `cwd` when that is shorter
 * (`node dist/cli.js` in a clone), quoted for a POSIX shell when it needs to be.
 */
export function invokedAs(script: string | undefined, cwd: string, pathEnv: string | undefined): string {
  if (!script) return 'engram';
  const onPath = (pathEnv ?? '')
    .split(path.delimiter)
    .filter((dir) => dir !== '')
    .some((dir) => path.resolve(cwd, dir) === path.dirname(script));
  if (path.basename(script) === 'engram' && onPath) return 'engram';
  const relative = path.relative(cwd, script);
  const shown = relative.length < script.length ? relative : script;
  return `node ${/^[\w./@+-]+$/.test(shown) ? shown : `'${shown.replace(/'/g, `'\\''`)}'`}`;
}
