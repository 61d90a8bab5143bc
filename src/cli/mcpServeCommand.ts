// `engram mcp`: Engram's memory served to other agents as a stdio MCP server (DESIGN 10), over the project
// of --cwd and the data folder `engram -p` uses. Tools and resources are in mcpServeTools.ts and
// mcpServeResources.ts; this file reads the options, starts the server and keeps it until the client goes.
// stdout carries protocol messages only: every log line goes to stderr.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import path from 'node:path';
import { ENGRAM_VERSION } from '../core/host/config';
import { memoryScope } from '../core/host/memory';
import { isDirectory } from '../core/host/toolPolicy';
import { formatOptions, parseCommandArgs, UsageError, type OptionSpecs } from './args';
import { dataDirOf, readSettingsFile, settingsFromFlags } from './cliSettings';
import { EXIT_OK, type CliIo, type Command } from './command';
import { registerMemoryResources, watchMemoryFolders } from './mcpServeResources';
import { registerMemoryTools } from './mcpServeTools';

const OPTIONS = {
  cwd: { type: 'string', valueName: 'DIR', help: 'The project whose memory is served (default: the current folder).' },
  'data-dir': {
    type: 'string',
    valueName: 'DIR',
    help: 'Where memory lives (default: engram.dataDir, $ENGRAM_DATA_DIR or ~/.engram).',
  },
  settings: {
    type: 'string',
    valueName: 'FILE',
    help: 'A JSON object of engram.* settings (memory.extraction.review, memory.recall.maxFiles, teamMemory.enabled).',
  },
  review: { type: 'boolean', help: 'Queue remembered text for review in Engram instead of saving it at once.' },
  'team-memory': {
    type: 'boolean',
    help: "Search, list and read the repository's team memory too (on when ENGRAM_TEAM_SERVER is set).",
  },
  help: { type: 'boolean', short: 'h', help: 'Show this help.' },
} satisfies OptionSpecs;

const HELP = `Usage: engram mcp [--cwd DIR] [--data-dir DIR] [--settings FILE] [--review] [--team-memory]

Runs an MCP server on stdin/stdout that gives other agents (Claude Code, Cursor, any MCP client) this
project's Engram memory, with the same recall, writer, secret scan and review queue as Engram's chat.

Tools: search_memory {query, limit?}, remember {text, type?, title?}, list_memories {},
read_memory {file}, read_session_notes {session_id?}.
Resources: engram-memory:///MEMORY.md and engram-memory:///<file> for each topic file.

A memory written here records the client's name (originClient in its front matter); Engram's inspector
shows it. Text holding a secret (API key, token, private key, password) is refused.

Options:
${formatOptions(OPTIONS)}

Add it to Claude Code:  claude mcp add engram -- engram mcp --cwd /path/to/project
Exit codes: 0 the client closed the connection, 2 usage error.`;

export const mcpServeCommand: Command = {
  name: 'mcp',
  summary: "Serve this project's memory to other agents over MCP (stdio).",
  run: runMcp,
};

async function runMcp(argv: string[], io: CliIo): Promise<number> {
  const { options, positionals } = parseCommandArgs(argv, OPTIONS);
  if (options.help) {
    io.stdout(`${HELP}\n`);
    return EXIT_OK;
  }
  if (positionals.length > 0) throw new UsageError(`Unexpected argument: ${positionals[0]}`);
  const cwd = path.resolve(io.cwd, options.cwd ?? '.');
  if (!(await isDirectory(cwd))) throw new UsageError(`--cwd ${cwd} is not a folder`);
  const base =
    options.settings !== undefined
      ? await readSettingsFile(path.resolve(io.cwd, options.settings), options.settings)
      : undefined;
  const settings = settingsFromFlags(
    {
      'memory.extraction.review': { flag: '--review', value: options.review ? true : undefined },
      'teamMemory.enabled': {
        flag: '--team-memory',
        value: options['team-memory'] === true || io.env.ENGRAM_TEAM_SERVER?.trim() ? true : undefined,
      },
    },
    base,
  );
  if (!settings.memory.enabled)
    throw new UsageError(
      `--settings ${options.settings ?? ''} turns memory off (engram.memory.enabled: false): nothing to serve`,
    );
  const dataDir = dataDirOf(io, options['data-dir'], settings.dataDir);
  const scope = await memoryScope(dataDir, cwd, {
    team: settings.teamMemory.enabled,
    maxFiles: settings.memory.recall.maxFiles,
  });
  const log = (line: string): void => io.stderr(`engram mcp: ${line}\n`);

  const server = new McpServer({ name: 'engram', title: 'Engram memory', version: ENGRAM_VERSION });
  const folders = watchMemoryFolders(server, scope, log);
  registerMemoryTools(server, {
    scope,
    review: settings.memory.extraction.review,
    clientName: () => server.server.getClientVersion()?.name?.trim() || 'unknown client',
    // The first memory of a project makes its folder: from then on it is watched for the resource list.
    onWrite: () => folders.ensure(),
    log,
  });
  registerMemoryResources(server, scope);
  try {
    return await serve(server, io, log, scope.memoryDir);
  } finally {
    folders.stop();
  }
}

/** Connects over stdio and resolves when the client closes stdin (or Ctrl-C), after closing the server. */
async function serve(server: McpServer, io: CliIo, log: (line: string) => void, memoryDir: string): Promise<number> {
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
    io.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await server.connect(transport);
  log(`serving the memory in ${memoryDir}`);
  await closed;
  await server.close().catch(() => undefined);
  return EXIT_OK;
}
