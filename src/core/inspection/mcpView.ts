// The inspector's "MCP servers" section as data: every server the merged config names, with the status the
// chat session's hub reports for it (or, with no session running it, what the start rule says: waiting for
// approval, turned off, untrusted, or starting with the next chat), its tools and the tokens their
// definitions add to every request, and which source wins where two define one name. The command line or
// URL shown is the one the person approves, with secrets masked.
import type {
  McpServerEntry,
  McpServerState,
  McpServerStatus,
  McpTransportConfig,
  MergedMcpConfig,
} from '../mcp/types';
import { REPOSITORY_SOURCES } from '../mcp/types';
import { redactSecrets } from '../security/secretScan';
import type { McpServerView, McpServersView, McpToolView } from '../../protocol/messages';

/** What the section is built from (the VS Code side gathers it: config, the hub's status, the start rule). */
export interface McpInspection {
  config: MergedMcpConfig;
  /** The hub's status of each server, when a chat session runs them. */
  live?: readonly McpServerStatus[];
  /** The start rule (approval, trust, the person's off switch), for servers no hub runs. */
  mayStart(entry: McpServerEntry): McpServerState | true;
  /** Tools the person turned off, as `server/rawTool`. */
  disabledTools: readonly string[];
  trusted: boolean;
}

/** A tool description longer than this is clipped in the list (generated servers send pages). */
const DESCRIPTION_CHARS = 240;

export async function buildMcpView(input: McpInspection): Promise<McpServersView> {
  const live = new Map((input.live ?? []).map((s) => [s.name, s]));
  const views = await Promise.all(input.config.servers.map((entry) => serverView(entry, live.get(entry.name), input)));
  // What waits for the person comes first (a failure to read, an approval to give); the rest keep config order.
  const servers = [...views].sort((a, b) => attention(a.state) - attention(b.state));
  return {
    servers,
    problems: input.config.problems.map((p) => ({
      source: p.source,
      ...(p.file ? { file: p.file } : {}),
      ...(p.server ? { server: p.server } : {}),
      message: p.message,
    })),
    tokens: servers.reduce((n, s) => n + s.tokens, 0),
    trusted: input.trusted,
  };
}

async function serverView(
  entry: McpServerEntry,
  status: McpServerStatus | undefined,
  input: McpInspection,
): Promise<McpServerView> {
  const ruled = input.mayStart(entry);
  // A hub's status says what runs; where it runs nothing (no session, or one that may not start servers),
  // the start rule says why.
  const held = ruled === true ? (status ? 'stopped' : 'notStarted') : ruled;
  const state = status && status.state !== 'stopped' ? status.state : held;
  const tools: McpToolView[] = (status?.tools ?? []).map((t) => ({
    name: t.name,
    rawName: t.rawName,
    description: clip(t.description),
    tokens: t.tokens,
    disabled: t.disabled || input.disabledTools.includes(`${entry.name}/${t.rawName}`),
    ...(t.rejected ? { rejected: t.rejected } : {}),
  }));
  const failure = status?.failure;
  return {
    name: entry.name,
    source: entry.source,
    ...(entry.file ? { file: entry.file } : {}),
    transport: entry.transport.type,
    target: await mcpTarget(entry.transport),
    state,
    ...(failure
      ? {
          failure: {
            message: failure.message,
            ...(failure.exitCode !== undefined ? { exitCode: failure.exitCode } : {}),
            stderr: failure.stderr,
            at: failure.at,
          },
        }
      : {}),
    ...(status?.retryAt ? { retryAt: status.retryAt } : {}),
    ...(status?.serverInfo ? { serverInfo: status.serverInfo } : {}),
    tools,
    tokens: state === 'ready' ? tools.reduce((n, t) => n + (t.disabled || t.rejected ? 0 : t.tokens), 0) : 0,
    shadows: input.config.shadowed.find((s) => s.name === entry.name)?.ignored ?? [],
    fromRepository: REPOSITORY_SOURCES.has(entry.source),
  };
}

/**
 * What a server runs, as a person approves it: the command line (arguments with spaces quoted) or the
 * URL, with anything that looks like a secret masked (its `${VAR}`s are already expanded).
 */
export async function mcpTarget(transport: McpTransportConfig): Promise<string> {
  const text =
    transport.type === 'stdio'
      ? [transport.command, ...transport.args].map((a) => (/[\s"']/.test(a) ? JSON.stringify(a) : a)).join(' ')
      : transport.url;
  return (await redactSecrets(text)).text;
}

function attention(state: McpServerView['state']): number {
  return state === 'failed' ? 0 : state === 'needsApproval' ? 1 : 2;
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > DESCRIPTION_CHARS ? `${flat.slice(0, DESCRIPTION_CHARS - 1)}…` : flat;
}
