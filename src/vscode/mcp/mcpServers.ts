// The MCP servers of this window's chat: the config read from the setting, `<dataDir>/mcp.json` and the
// workspace's `.mcp.json` and `.vscode/mcp.json`; a hub per chat session, which the session starts in the
// background as it opens (in a trusted workspace), owns and closes; the person's approval of a
// repository's servers, asked once per session open without holding up the chat; the inputs of
// `.vscode/mcp.json` answered through the input box and kept in Secret Storage; and the project's choices
// (approved, turned off) that the inspector changes.
import type * as vscode from 'vscode';
import { ENGRAM_VERSION } from '../../core/host/config';
import type { McpInspection } from '../../core/host/inspector';
import type { McpHub, McpProjectChoices, McpServerEntry, MergedMcpConfig } from '../../core/host/mcp';
import type { Logger } from '../../core/host/sessions';
import { loadEngine } from '../loadEngine';
import { dataDir, settings, workspaceCwd, workspaceTrusted } from '../settings';
import { answerInputs, mcpPrompts } from './mcpPrompts';

/** The project's choices as last read or written, by project folder: the start rule reads them at once. */
const choicesByProject = new Map<string, McpProjectChoices>();
/** Hubs of sessions still open: the window's close ends their children. */
const openHubs = new Set<McpHub>();

function readConfig(projectRoot: string): Promise<MergedMcpConfig> {
  return loadEngine().readMcpConfig({
    dataDir: dataDir(),
    projectRoot,
    setting: settings().mcp.servers,
    env: process.env,
  });
}

/** The project's choices read again (another window or `engram -p` may have changed them). */
async function choicesOf(projectRoot: string): Promise<McpProjectChoices> {
  const read = await loadEngine().readMcpChoices(dataDir(), projectRoot);
  choicesByProject.set(projectRoot, read);
  return read;
}

/** The start rule of this window now: trust, the project's approvals and off switches, the setting's names. */
function startRule(projectRoot: string): (entry: McpServerEntry) => ReturnType<McpInspection['mayStart']> {
  const choices = choicesByProject.get(projectRoot) ?? { approved: {}, disabledServers: [], disabledTools: [] };
  return loadEngine().mcpStartPolicy({
    trusted: workspaceTrusted(),
    choices,
    approvedNames: settings().mcp.approvedProjectServers,
  });
}

/**
 * The hub for a chat session that opens now, started in the background; undefined when no server is
 * configured. Repository servers nobody approved are asked about (one modal at a time) after it starts;
 * "Allow" starts them, "Don't allow" leaves them for the inspector's Approve.
 */
export async function openSessionHub(context: vscode.ExtensionContext, logger: Logger): Promise<McpHub | undefined> {
  const projectRoot = workspaceCwd();
  const config = await readConfig(projectRoot);
  for (const p of config.problems)
    logger.warn(`MCP config: ${p.file ?? p.source}${p.server ? ` (${p.server})` : ''}: ${p.message}`);
  if (config.servers.length === 0) return undefined;
  await choicesOf(projectRoot);
  const s = settings().mcp;
  const hub = loadEngine().createMcpHub(
    {
      servers: config.servers,
      clientInfo: { name: 'engram', version: ENGRAM_VERSION },
      mayStart: (entry) => startRule(projectRoot)(entry),
      resolveInputs: (entry) => answerInputs(context.secrets, projectRoot, entry.name, entry.inputs ?? []),
      isToolDisabled: (server, tool) =>
        choicesByProject.get(projectRoot)?.disabledTools.includes(`${server}/${tool}`) ?? false,
      callTimeoutMs: s.callTimeoutSeconds * 1000,
      startupTimeoutMs: s.startupTimeoutSeconds * 1000,
      maxOutputTokens: s.maxOutputTokens,
      cwd: projectRoot,
      env: process.env,
    },
    logger,
  );
  openHubs.add(hub);
  // The session starts the hub (in a trusted workspace only); the questions wait for nothing.
  if (workspaceTrusted()) void askApprovals(hub, config.servers, projectRoot, logger);
  return hub;
}

/** Asks about each repository server waiting for approval, one after the other, off the chat's path. */
async function askApprovals(
  hub: McpHub,
  servers: readonly McpServerEntry[],
  projectRoot: string,
  logger: Logger,
): Promise<void> {
  for (const entry of servers) {
    if (!openHubs.has(hub)) return;
    if (startRule(projectRoot)(entry) !== 'needsApproval') continue;
    try {
      const target = await loadEngine().inspector.mcpTarget(entry.transport);
      const allowed = await mcpPrompts().approve({
        name: entry.name,
        target,
        ...(entry.file ? { file: entry.file } : {}),
      });
      if (allowed) await approveServer(entry, hub);
    } catch (e) {
      logger.warn(`MCP: could not ask about server ${entry.name}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

/** Keeps the server's approval (for its entry as it is now) and starts it in the open session. */
async function approveServer(entry: McpServerEntry, hub: McpHub | undefined): Promise<void> {
  await changeMcpChoices((c) => ({ ...c, approved: { ...c.approved, [entry.name]: entry.fingerprint } }), hub);
}

/** Changes the project's MCP choices on disk and in the open session (which starts or stops servers). */
export async function changeMcpChoices(
  change: (c: McpProjectChoices) => McpProjectChoices,
  hub: McpHub | undefined,
): Promise<void> {
  const projectRoot = workspaceCwd();
  const updated = await loadEngine().updateMcpChoices(dataDir(), projectRoot, change);
  choicesByProject.set(projectRoot, updated);
  // An untrusted workspace's session runs no server at all: the change applies once it is trusted.
  if (workspaceTrusted()) hub?.refresh();
}

/** The inspector's Approve: the server as the config defines it now. False when no entry has that name. */
export async function approveByName(name: string, hub: McpHub | undefined): Promise<boolean> {
  const entry = (await readConfig(workspaceCwd())).servers.find((e) => e.name === name);
  if (!entry) return false;
  await approveServer(entry, hub);
  return true;
}

/** What the inspector's MCP section is built from: the config now, the hub's status, the start rule. */
export async function mcpInspection(hub: McpHub | undefined): Promise<McpInspection> {
  const projectRoot = workspaceCwd();
  const [config, choices] = await Promise.all([readConfig(projectRoot), choicesOf(projectRoot)]);
  return {
    config,
    ...(hub ? { live: hub.status() } : {}),
    mayStart: startRule(projectRoot),
    disabledTools: choices.disabledTools,
    trusted: workspaceTrusted(),
  };
}

/** Forgets a hub its session closed. */
export function hubClosed(hub: McpHub): void {
  openHubs.delete(hub);
}

/** The window closes: every server child of every open session ends. */
export async function closeMcpHubs(): Promise<void> {
  const hubs = [...openHubs];
  openHubs.clear();
  await Promise.all(hubs.map((h) => h.close().catch(() => undefined)));
}
