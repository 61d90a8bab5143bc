// `engram team sync`: one team-memory sync of the repository at --cwd, the same sync a session runs
// (core/memory/team/teamSync), for scripts, CI and people without the editor. The server URL and the
// token come from the environment (a token on the command line would sit in the shell's history).
import path from 'node:path';
import { autoMemoryDir, teamMemoryDir } from '../core/host/memory';
import { repoSlugOf, RepoSlug, syncTeamMemory, type TeamSyncReport } from '../core/host/team';
import { isDirectory } from '../core/host/toolPolicy';
import { formatOptions, parseCommandArgs, UsageError, type OptionSpecs } from './args';
import { dataDirOf, settingsFromFlags } from './cliSettings';
import { EXIT_MODEL_ERROR, EXIT_OK, type CliIo, type Command } from './command';

const SYNC_OPTIONS = {
  cwd: { type: 'string', valueName: 'DIR', help: 'A folder of the repository to sync (default: the current folder).' },
  repo: {
    type: 'string',
    valueName: 'OWNER/REPO',
    help: 'The repository on the server (default: from the origin remote).',
  },
  server: { type: 'string', valueName: 'URL', help: 'The team server (default: $ENGRAM_TEAM_SERVER).' },
  'data-dir': {
    type: 'string',
    valueName: 'DIR',
    help: 'Where memory lives (default: $ENGRAM_DATA_DIR or ~/.engram).',
  },
  json: {
    type: 'boolean',
    help: 'Print the sync report as JSON: {"ok","pulled","pushed","skipped","blocked","retries","error",...}.',
  },
  help: { type: 'boolean', short: 'h', help: 'Show this help.' },
} satisfies OptionSpecs;

const HELP = `Usage: engram team sync [--cwd DIR] [--repo OWNER/REPO] [--server URL] [--json]

Syncs the team memory of a git repository (memory/team/ in the project's memory folder) with a team
server: pulls what the team saved (the server's version wins; a local edit it replaces is kept in
memory/team/.conflicts/), then pushes the files changed here. A file holding a secret (API key, token,
private key, password) is never uploaded and is reported with the rule and line that found it; a file
over 250 KB is skipped. Local deletes are not sent: a file deleted here comes back on the next pull.

Options:
${formatOptions(SYNC_OPTIONS)}

Environment: ENGRAM_TEAM_SERVER (the server URL), ENGRAM_TEAM_TOKEN (the access token, required),
ENGRAM_DATA_DIR.

Exit codes: 0 synced, 1 the sync failed (the reason is printed), 2 usage error.`;

const TEAM_HELP = `Usage: engram team <subcommand> [options]

Subcommands:
  sync    Sync this repository's team memory with the team server (engram team sync --help).`;

export const teamCommand: Command = {
  name: 'team',
  summary: "Sync a repository's team memory with a team server (engram team sync).",
  run: runTeam,
};

async function runTeam(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    io.stdout(`${TEAM_HELP}\n`);
    return EXIT_OK;
  }
  if (sub !== 'sync') throw new UsageError(`Unknown team subcommand: ${sub} (expected: sync)`);
  return runSync(rest, io);
}

async function runSync(argv: string[], io: CliIo): Promise<number> {
  const { options, positionals } = parseCommandArgs(argv, SYNC_OPTIONS);
  if (options.help) {
    io.stdout(`${HELP}\n`);
    return EXIT_OK;
  }
  if (positionals.length > 0) throw new UsageError(`Unexpected argument: ${positionals[0]}`);
  const cwd = path.resolve(io.cwd, options.cwd ?? '.');
  if (!(await isDirectory(cwd))) throw new UsageError(`--cwd ${cwd} is not a folder`);
  const serverUrl = serverUrlOf(options.server ?? io.env.ENGRAM_TEAM_SERVER);
  const token = io.env.ENGRAM_TEAM_TOKEN?.trim();
  if (!token)
    throw new UsageError(
      'no team token: set ENGRAM_TEAM_TOKEN to the token your team server issued for this repository',
    );
  const repo = options.repo ?? (await repoSlugOf(cwd));
  if (repo === null)
    throw new UsageError(
      `${cwd} is not in a git repository with an origin remote of the form owner/repo; pass --repo OWNER/REPO`,
    );
  if (!RepoSlug.safeParse(repo).success) throw new UsageError(`--repo must be OWNER/REPO, not ${JSON.stringify(repo)}`);
  const dataDir = dataDirOf(io, options['data-dir']);
  const teamDir = teamMemoryDir(await autoMemoryDir(dataDir, cwd));
  const report = await syncTeamMemory({ teamDir, repo, serverUrl, token, signal: io.signal });
  if (options.json) io.stdout(`${JSON.stringify(report, null, 2)}\n`);
  else io.stdout(formatReport(report, teamDir));
  if (!report.ok) {
    io.stderr(`engram: ${report.error ?? 'team memory sync failed'}\n`);
    return EXIT_MODEL_ERROR; // the server or the network failed, like a failed model call
  }
  return EXIT_OK;
}

/** The URL checked by the same rule as the engram.teamMemory.serverUrl setting. */
function serverUrlOf(given: string | undefined): string {
  const value = given?.trim();
  if (!value) throw new UsageError('no team server: set ENGRAM_TEAM_SERVER or pass --server URL');
  return settingsFromFlags({ 'teamMemory.serverUrl': { flag: '--server / ENGRAM_TEAM_SERVER', value } }).teamMemory
    .serverUrl;
}

function formatReport(r: TeamSyncReport, teamDir: string): string {
  const lines = [
    `Team memory of ${r.repo} at ${r.server}${r.version !== undefined ? ` (version ${r.version})` : ''}: ` +
      (r.ok ? 'synced' : 'failed'),
  ];
  lines.push(
    `  pulled ${r.pulled.length}, pushed ${r.pushed.length}, ` +
      `skipped ${r.skipped.length}, blocked ${r.blocked.length}${r.retries ? `, ${r.retries} retries after 412` : ''}`,
  );
  for (const p of r.pulled) {
    lines.push(
      p.reason === 'conflict'
        ? `  conflict ${p.path}: the server's version won; your copy is kept at ${path.join(teamDir, p.keptAt ?? '')}`
        : `  pulled   ${p.path} (${p.reason})`,
    );
  }
  for (const p of r.pushed) lines.push(`  pushed   ${p.path}`);
  for (const s of r.skipped) lines.push(`  skipped  ${s.path}: ${s.detail}`);
  for (const b of r.blocked)
    lines.push(`  blocked  ${b.path}:${b.line}: a secret (${b.kind}, rule ${b.rule}); not uploaded`);
  return `${lines.join('\n')}\n`;
}
