// Standalone entry of the Anthropic-compatible test server: the "offline demo model" for the command line
// (`engram -p` without a key points here), and a local stand-in for the API in tests and benchmarks.
//   node --import tsx src/testServer/main.ts [--port N] [--context-window N] [--log-file PATH] [--no-demo]
// Prints the base URL as the first line of stdout (for scripts), then serves until SIGINT/SIGTERM.

import { startTestServer } from './anthropicTestServer';

interface Args {
  port: number;
  contextWindow?: number;
  logFile?: string;
  demo: boolean;
}

const USAGE = 'usage: testServer [--port N] [--context-window N] [--log-file PATH] [--no-demo]';

function parseArgs(argv: string[]): Args {
  const args: Args = { port: 0, demo: true };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value\n${USAGE}`);
      return v;
    };
    const int = (): number => {
      const v = value();
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0) throw new Error(`${flag}: not a whole number: ${v}\n${USAGE}`);
      return n;
    };
    if (flag === '--port') args.port = int();
    else if (flag === '--context-window') args.contextWindow = int();
    else if (flag === '--log-file') args.logFile = value();
    else if (flag === '--no-demo') args.demo = false;
    else if (flag === '--help' || flag === '-h') throw new Error(USAGE);
    else throw new Error(`unknown argument: ${flag}\n${USAGE}`);
  }
  return args;
}

async function main(): Promise<void> {
  let args: Args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exitCode = 2;
    return;
  }
  const server = await startTestServer(args);
  process.stdout.write(`${server.url}\n`);
  process.stderr.write(
    `Anthropic-compatible test server on ${server.url}` +
      `${args.demo ? ' (offline demo model)' : ''}; set ANTHROPIC_BASE_URL to it. Ctrl+C stops it.\n`,
  );
  const stop = (): void => {
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

void main();
