// What a host needs for MCP servers (the Chat view and `engram -p` alike): the merged configuration with
// its problems and shadowed names, the person's per-project choices (approvals by fingerprint, servers
// and tools turned off), the one start rule, and the hub of connections a session is given
// (EngramSessionSetup.mcp). openMcpHub does all of it from the settings in one call.
import { readMcpConfig as readConfig, type McpConfigInputs } from '../mcp/mcpConfig';
import { McpHub } from '../mcp/mcpHub';
import {
  mcpStartPolicy as startPolicy,
  readMcpChoices as readChoices,
  updateMcpChoices as updateChoices,
  type McpProjectChoices,
} from '../mcp/projectChoices';
import { mcpToolName as toolName, parseMcpRuleName as parseRuleName } from '../mcp/toolNames';
import type {
  McpHubEvent,
  McpHubOptions,
  McpServerEntry,
  McpServerState,
  McpServerStatus,
  MergedMcpConfig,
} from '../mcp/types';
import type { Logger } from '../ports';
import type { EngramSettings } from '../settings/engramSettings';

export type { McpConfigProblem, McpShadowed } from '../mcp/types';
export type {
  McpHub,
  McpHubEvent,
  McpHubOptions,
  McpProjectChoices,
  McpServerEntry,
  McpServerState,
  McpServerStatus,
  MergedMcpConfig,
};

/**
 * The servers of every source merged by name (cli, project, vscode, setting, user: the first wins), the
 * names defined twice and which source is used, and each bad entry or unreadable file as a problem.
 */
export function readMcpConfig(inputs: McpConfigInputs): Promise<MergedMcpConfig> {
  return readConfig(inputs);
}

/** The person's choices for this project's servers (none yet reads as empty). */
export function readMcpChoices(dataDir: string, projectRoot: string): Promise<McpProjectChoices> {
  return readChoices(dataDir, projectRoot);
}

/** Changes and saves (atomically) the project's choices: an approval, a server or tool turned off or on. */
export function updateMcpChoices(
  dataDir: string,
  projectRoot: string,
  change: (c: McpProjectChoices) => McpProjectChoices,
): Promise<McpProjectChoices> {
  return updateChoices(dataDir, projectRoot, change);
}

/**
 * The start rule both hosts use: a repository's server needs trust and an approval (its fingerprint in the
 * choices, or its name in `approvedNames` = engram.mcp.approvedProjectServers); a disabled server stays off.
 */
export function mcpStartPolicy(opts: {
  trusted: boolean;
  choices: McpProjectChoices;
  approvedNames: readonly string[];
}): (entry: McpServerEntry) => McpServerState | true {
  return startPolicy(opts);
}

/** A hub over `opts.servers`; nothing starts until start() (the session starts it when it opens). */
export function createMcpHub(opts: McpHubOptions, logger?: Logger): McpHub {
  return new McpHub(opts, logger);
}

/** The model-facing name of a server's tool: `mcp__<server>__<tool>`, sanitized and capped at 64. */
export function mcpToolName(server: string, tool: string): string {
  return toolName(server, tool);
}

/** `mcp__server` or `mcp__server__tool` (a permission rule, --allowed-tools) split; undefined otherwise. */
export function parseMcpRuleName(name: string): { server: string; tool?: string } | undefined {
  return parseRuleName(name);
}

export interface OpenMcpHubOptions {
  dataDir: string;
  projectRoot: string;
  settings: EngramSettings;
  trusted: boolean;
  /** `engram -p --mcp-config` values (their servers start without an approval: the person named them). */
  cli?: readonly string[];
  env?: Record<string, string | undefined>;
  clientInfo: { name: string; version: string };
  /**
   * `engram -p`: a project server starts only when named in engram.mcp.approvedProjectServers (or given
   * with --mcp-config), not on an approval given in the chat.
   */
  approvedOnlyByName?: boolean;
  /** VS Code: the input box, answers kept in SecretStorage. */
  resolveInputs?: McpHubOptions['resolveInputs'];
  logger?: Logger;
}

/** The config, the choices read for it, and the hub built on them (not started: the session starts it). */
export interface OpenedMcp {
  hub: McpHub;
  config: MergedMcpConfig;
  /** Re-reads the project's choices and applies them (after the person approved or turned something off). */
  reloadChoices(): Promise<void>;
}

/** Reads the config and the project's choices and builds the hub with the settings' timeouts and cap. */
export async function openMcpHub(o: OpenMcpHubOptions): Promise<OpenedMcp> {
  const env = o.env ?? process.env;
  const m = o.settings.mcp;
  const config = await readConfig({
    dataDir: o.dataDir,
    projectRoot: o.projectRoot,
    setting: m.servers,
    ...(o.cli ? { cli: o.cli } : {}),
    env,
  });
  let choices = await readChoices(o.dataDir, o.projectRoot);
  const ruleOf = (c: McpProjectChoices) =>
    startPolicy({
      trusted: o.trusted,
      choices: o.approvedOnlyByName ? { ...c, approved: {} } : c,
      approvedNames: m.approvedProjectServers,
    });
  let policy = ruleOf(choices);
  const hub = new McpHub(
    {
      servers: config.servers,
      clientInfo: o.clientInfo,
      mayStart: (entry) => policy(entry),
      isToolDisabled: (server, tool) => choices.disabledTools.includes(`${server}/${tool}`),
      callTimeoutMs: m.callTimeoutSeconds * 1000,
      startupTimeoutMs: m.startupTimeoutSeconds * 1000,
      maxOutputTokens: m.maxOutputTokens,
      cwd: o.projectRoot,
      env,
      ...(o.resolveInputs ? { resolveInputs: o.resolveInputs } : {}),
    },
    o.logger,
  );
  const reloadChoices = async (): Promise<void> => {
    choices = await readChoices(o.dataDir, o.projectRoot);
    policy = ruleOf(choices);
    hub.refresh();
  };
  return { hub, config, reloadChoices };
}
