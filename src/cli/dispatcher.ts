// The `engram` dispatcher: a table of subcommands. `engram -p ...` (no subcommand) is the headless run;
// later subcommands (inspect, compact, gauge) register here.
import { UsageError } from './args';
import { EXIT_MODEL_ERROR, EXIT_OK, EXIT_USAGE, type CliIo, type Command } from './command';
import { compactCommand } from './compactCommand';
import { gaugeCommand } from './gaugeCommand';
import { inspectCommand } from './inspectCommand';
import { mcpServeCommand } from './mcpServeCommand';
import { memoryCommand } from './memoryCommand';
import { mergeCommand } from './mergeCommand';
import { printCommand } from './printCommand';
import { rewindCommand } from './rewindCommand';
import { teamCommand } from './teamCommand';

/** The command run when the first argument is not a subcommand name. */
const DEFAULT_COMMAND = printCommand;
const COMMANDS: Command[] = [
  printCommand,
  inspectCommand,
  compactCommand,
  gaugeCommand,
  mergeCommand,
  teamCommand,
  mcpServeCommand,
  memoryCommand,
  rewindCommand,
];

export function overallHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length)) + 2;
  return [
    'Usage: engram -p "PROMPT" [options]        run one prompt headless (see engram print --help)',
    '       engram <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    '',
    'Environment: ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, ENGRAM_DATA_DIR (default ~/.engram); Claude on Bedrock,',
    'Vertex AI or Foundry: CLAUDE_CODE_USE_BEDROCK / _VERTEX / _FOUNDRY=1, or --provider (engram print --help).',
  ].join('\n');
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const first = argv[0];
  if (first === undefined) {
    io.stderr(`${overallHelp()}\n`);
    return EXIT_USAGE;
  }
  if (first === 'help' || first === '--help' || first === '-h') {
    const named = COMMANDS.find((c) => c.name === argv[1]);
    if (named) return named.run(['--help'], io);
    io.stdout(`${overallHelp()}\n`);
    return EXIT_OK;
  }
  const command = COMMANDS.find((c) => c.name === first);
  try {
    return command ? await command.run(argv.slice(1), io) : await DEFAULT_COMMAND.run(argv, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`engram: ${e.message}\nRun "engram --help" for usage.\n`);
      return EXIT_USAGE;
    }
    io.stderr(`engram: ${e instanceof Error ? e.message : String(e)}\n`);
    return EXIT_MODEL_ERROR;
  }
}
