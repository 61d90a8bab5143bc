// The command line of the reference team-memory server: serve (the default) and token add/list/revoke.
// Usage errors exit 2, failures 1; `token add` prints only the token on stdout, so scripts can capture it.
import { RepoSlug } from '../../../src/core/memory/team/teamProtocol';
import { DEFAULT_TEAM_DB, openTeamStore } from './openTeamStore';
import { DEFAULT_LIMITS, listenTeamServer } from './teamHttp';

export const TEAM_SERVER_USAGE = `usage:
  teamServer [--host H] [--port N] [--db PATH|postgres://...] [--max-entries N] [--max-body-bytes N] [--quiet]
  teamServer token add --repo owner/repo [--db ...]   prints a new token for that repository
  teamServer token list [--db ...]                    id, repository and creation time of every token
  teamServer token revoke ID [--db ...]               removes the tokens whose id starts with ID

  --host            address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)
  --port            port (default 8740; 0 picks a free one)
  --db              SQLite file (default $ENGRAM_TEAM_DB or ./${DEFAULT_TEAM_DB}) or a PostgreSQL URL
  --max-entries     most entries one repository may hold (default ${DEFAULT_LIMITS.maxEntries})
  --max-body-bytes  largest request body (default ${DEFAULT_LIMITS.maxBodyBytes})
  --quiet           no per-request log lines on stderr`;

class UsageError extends Error {}

interface ServeArgs {
  command: 'serve';
  host: string;
  port: number;
  maxEntries: number;
  maxBodyBytes: number;
  quiet: boolean;
}
type Args = { db: string } & (
  | ServeArgs
  | { command: 'token-add'; repo: string }
  | { command: 'token-list' }
  | { command: 'token-revoke'; id: string }
  | { command: 'help' }
);

function parseArgs(argv: string[], env: NodeJS.ProcessEnv): Args {
  const flags = new Map<string, string | true>();
  const words: string[] = [];
  const valued = new Set(['--host', '--port', '--db', '--max-entries', '--max-body-bytes', '--repo']);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--help' || a === '-h') return { command: 'help', db: '' };
    if (a === '--quiet') flags.set(a, true);
    else if (valued.has(a)) {
      const v = argv[++i];
      if (v === undefined) throw new UsageError(`${a} needs a value`);
      flags.set(a, v);
    } else if (a.startsWith('-')) throw new UsageError(`unknown option: ${a}`);
    else words.push(a);
  }
  const str = (name: string): string | undefined => {
    const v = flags.get(name);
    return typeof v === 'string' ? v : undefined;
  };
  const int = (name: string, dflt: number, min: number): number => {
    const v = str(name);
    if (v === undefined) return dflt;
    const n = Number(v);
    if (!/^\d+$/.test(v) || n < min || n > 2 ** 31)
      throw new UsageError(`${name}: not a whole number from ${min}: ${v}`);
    return n;
  };
  const db = str('--db') ?? (env.ENGRAM_TEAM_DB || DEFAULT_TEAM_DB);
  const allow = (...names: string[]): void => {
    const extra = [...flags.keys()].find((f) => f !== '--db' && !names.includes(f));
    if (extra) throw new UsageError(`${extra} does not go with ${words.join(' ') || 'serve'}`);
  };
  if (words.length === 0) {
    allow('--host', '--port', '--max-entries', '--max-body-bytes', '--quiet');
    return {
      command: 'serve',
      db,
      host: str('--host') ?? '127.0.0.1',
      port: int('--port', 8740, 0),
      maxEntries: int('--max-entries', DEFAULT_LIMITS.maxEntries, 1),
      maxBodyBytes: int('--max-body-bytes', DEFAULT_LIMITS.maxBodyBytes, 1024),
      quiet: flags.has('--quiet'),
    };
  }
  const [group, sub, ...rest] = words;
  if (group !== 'token') throw new UsageError(`unknown command: ${group}`);
  if (sub === 'add' && rest.length === 0) {
    allow('--repo');
    const repo = RepoSlug.safeParse(str('--repo'));
    if (!repo.success) throw new UsageError('token add needs --repo owner/repo');
    return { command: 'token-add', db, repo: repo.data };
  }
  if (sub === 'list' && rest.length === 0) {
    allow();
    return { command: 'token-list', db };
  }
  if (sub === 'revoke' && rest.length === 1) {
    allow();
    return { command: 'token-revoke', db, id: rest[0] };
  }
  throw new UsageError(`unknown or incomplete command: ${words.join(' ')}`);
}

async function serve(args: ServeArgs & { db: string }): Promise<void> {
  const store = await openTeamStore(args.db);
  const server = await listenTeamServer({
    store,
    host: args.host,
    port: args.port,
    maxEntries: args.maxEntries,
    maxBodyBytes: args.maxBodyBytes,
    log: args.quiet ? undefined : (line) => process.stderr.write(`${new Date().toISOString()} ${line}\n`),
  });
  process.stdout.write(`Engram team memory server on ${server.url} (${store.description})\n`);
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`${signal}: finishing requests in flight, then stopping\n`);
    server.close().then(
      () => process.exit(0),
      (err: Error) => {
        process.stderr.write(`error while stopping: ${err.message}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

async function tokens(args: Args): Promise<void> {
  const store = await openTeamStore(args.db);
  try {
    if (args.command === 'token-add') {
      process.stdout.write(`${await store.addToken(args.repo)}\n`);
      process.stderr.write(`token for ${args.repo} stored in ${store.description}; it is shown only now\n`);
    } else if (args.command === 'token-list') {
      for (const t of await store.listTokens()) process.stdout.write(`${t.id}  ${t.repo}  ${t.createdAt}\n`);
    } else if (args.command === 'token-revoke') {
      const gone = await store.revokeTokens(args.id);
      if (gone.length === 0) throw new Error(`no token id starts with ${args.id}`);
      for (const t of gone) process.stdout.write(`revoked ${t.id}  ${t.repo}\n`);
    }
  } finally {
    await store.close();
  }
}

export async function runTeamServerCli(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  let args: Args;
  try {
    args = parseArgs(argv, env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${err.message}\n${TEAM_SERVER_USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  if (args.command === 'help') {
    process.stdout.write(`${TEAM_SERVER_USAGE}\n`);
    return;
  }
  try {
    await (args.command === 'serve' ? serve(args) : tokens(args));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exitCode = 1;
  }
}
