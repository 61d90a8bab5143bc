// Opens the engine's session for the Chat view: the model and key as set up (Secret Storage, the
// environment, a cloud provider, or the offline demo), this window's workspace, trust, data folder and
// settings, the view's permission prompt, the team memory token when one is stored, and the MCP servers' hub.
import * as vscode from 'vscode';
import type { EngramSession, LockHolder, Logger, PermissionPrompt } from '../../core/host/sessions';
import { ENGRAM_VERSION, modelReady } from '../../core/host/config';
import type { SessionSummary } from '../../protocol/messages';
import { loadEngine } from '../loadEngine';
import { hubClosed, openSessionHub } from '../mcp/mcpServers';
import { resolveModel } from '../modelSetup';
import { dataDir, settingsStore, workspaceCwd, workspaceTrusted } from '../settings';
import { teamMemoryToken } from '../teamMemory';

export type OpenedChatSession = { session: EngramSession } | { error: string };

export async function openChatSession(
  context: vscode.ExtensionContext,
  logger: Logger,
  permissions: PermissionPrompt,
  resumeSessionId?: string,
  onWait?: (holder: LockHolder | undefined) => void,
): Promise<OpenedChatSession> {
  const model = await resolveModel(context.secrets, logger);
  if (!modelReady(model)) {
    // A cloud's problems name the setting or variable that fixes them (in English, from core).
    if (model.provider.id !== 'anthropic') return { error: model.providerProblems.join(' ') };
    return {
      error: vscode.l10n.t(
        'No Anthropic API key. Run "Engram: Set Anthropic API Key", set ANTHROPIC_API_KEY, or turn on the ' +
          '"engram.offlineDemo" setting to try Engram offline.',
      ),
    };
  }
  const engine = loadEngine();
  const teamToken = await teamMemoryToken(context.secrets);
  // The tokenizer takes about a second to load, and loading it holds the extension host: start it while
  // the first request is on its way, or, for a resumed session, once its messages are on their way to the
  // view (a 2,000-message resume took 4.5 s instead of 0.8 s with the tokenizer loading beside it).
  const warmUp = () =>
    void engine.warmUpTokenizer().catch((e: unknown) => logger.warn(`Tokenizer failed to load: ${String(e)}`));
  if (!resumeSessionId) warmUp();
  // MCP servers start in the background: the first request goes out without waiting for them.
  const mcp = await openSessionHub(context, logger).catch((e: unknown) => {
    logger.warn(`MCP servers not started: ${e instanceof Error ? e.message : String(e)}`);
    return undefined;
  });
  const session = await engine
    .openHostSession(
      {
        dataDir: dataDir(),
        cwd: workspaceCwd(),
        ...(resumeSessionId ? { resumeSessionId } : {}),
        model,
        trusted: workspaceTrusted(),
        permissionPrompt: permissions,
        version: ENGRAM_VERSION,
        entrypoint: 'vscode',
        // A window holds the session only for a turn: another window or engram -p may take turns in between.
        writer: { mode: 'turn', ...(onWait ? { onWait } : {}) },
        logger,
        ...(teamToken ? { teamMemory: { token: teamToken } } : {}),
        ...(mcp ? { mcp } : {}),
      },
      settingsStore(),
    )
    .catch(async (e: unknown) => {
      if (mcp) {
        hubClosed(mcp);
        await mcp.close();
      }
      throw e;
    });
  if (resumeSessionId) setTimeout(warmUp, RESUME_WARM_UP_DELAY_MS);
  return { session };
}

/** How long after a resumed session opened the tokenizer starts loading: the chat draws it first. */
const RESUME_WARM_UP_DELAY_MS = 1_500;

/** The workspace's "Earlier sessions": the one the chat shows now (`currentId`) is not among them. */
export async function earlierSessions(currentId: string | undefined): Promise<SessionSummary[]> {
  const sessions = await loadEngine()
    .listProjectSessions(dataDir(), workspaceCwd())
    .catch(() => []);
  return sessions
    .filter((s) => s.sessionId !== currentId)
    .map((s) => ({ id: s.sessionId, title: s.firstPrompt ?? '', modified: (s.lastMessageAt ?? s.mtime).getTime() }));
}
