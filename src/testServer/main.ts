// Standalone entry of the Anthropic-compatible test server: the "offline demo model" for the command line
// (`engram -p` without a key points here), and a local stand-in for the API in tests and benchmarks.
//   node --import tsx src/testServer/main.ts [--port N] [--context-window N] [--log-file PATH] [--no-demo]
// Prints the base URL as the first line of stdout (for scripts), then serves until SIGINT/SIGTERM.
// It also speaks Bedrock, Vertex and Foundry (see anthropicTestServer.ts), checking only the shape of their
// credentials here (any SigV4 key, any Vertex token, any Foundry key), so a Claude Code user's environment
// pointed at it works as is.

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
  const server = await startTestServer({ ...args, providers: { vertex: { acceptAnyToken: true } } });
  process.stdout.write(`${server.url}\n`);
  process.stderr.write(
    `Anthropic-compatible test server on ${server.url}` +
      `${args.demo ? ' (offline demo model)' : ''}; set ANTHROPIC_BASE_URL to it. Ctrl+C stops it.\n` +
      `Clouds: ANTHROPIC_BEDROCK_BASE_URL=${server.url}  ANTHROPIC_VERTEX_BASE_URL=${server.url}/v1 ` +
      `(GCE_METADATA_HOST=127.0.0.1:${server.port} for Google ADC)  ` +
      `ANTHROPIC_FOUNDRY_BASE_URL=${server.url}/anthropic\n`,
  );
  const stop = (): void => {
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

void main();
