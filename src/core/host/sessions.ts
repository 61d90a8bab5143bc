// The session as a host opens and drives it: the one door through which the Chat view's engine chunk and
// `engram -p` reach a session. A host describes the session it wants (model, folder, trust, writer mode)
// and gets an EngramSession back with the model client, the permission prompt, the retry policy and the
// read confinement set up the same way for every host. Around it: the project's past sessions, the
// shared prompt history, checked session ids, the words of a remember request, the tokenizer warmed up
// early, the redaction of text a person attaches, and how a host names the process that holds a
// session's turn. The types are the ones a session's setup and events are made of, so a host names them
// without knowing where in the engine they live.
import { denyAllPrompt } from '../agent/permissions';
import { projectDir } from '../conversation/projectKey';
import { listSessions, type SessionSummary } from '../conversation/transcriptReader';
import { appendHistory, type HistoryEntry } from '../conversation/promptHistory';
import {
  acquireWriterLock as acquireLock,
  describeHolder as describeLockHolder,
  formatWait as formatLockWait,
  type LockHolder,
  type WriterLock,
  type WriterLockOptions,
} from '../fs/writerLock';
import { createAnthropicClient as anthropicClientFor } from '../llm/anthropicClient';
import type { ModelClient } from '../llm/modelClient';
import type { ModelConfig } from '../llm/modelConfig';
import { cloudSecrets } from '../llm/providerConfig';
import { rememberPrompt as rememberWords } from '../memory/autoMemory/memoryPrompts';
import type { PermissionPrompt, Logger } from '../ports';
import { addKnownSecret as rememberSecret, redactSecrets } from '../security/secretScan';
import { isValidSessionId as isSessionId } from '../session/agentSession';
import type { EngramSession } from '../session/engramSession';
import { openEngramSession } from '../session/openEngramSession';
import type { EngramSessionSetup } from '../session/sessionSetup';
import type { EngramSettings } from '../settings/engramSettings';
import type { SettingsSource } from '../settings/settingsStore';
import { ensureTokenizer } from '../tokens/tokenizer';
import { createDefaultTools as defaultTools } from '../tools/defaultTools';
import type { Tool } from '../tools/tool';

export { SessionNotFoundError } from '../session/agentSession';
export { DEFAULT_WRITER_WAIT_MS } from '../session/transcriptGuard';
export type { EngramSession, LockHolder, ModelClient, SessionSummary, Tool, WriterLock };
export type { SessionEvent } from '../session/sessionEvents';
export type { AgentEvent } from '../agent/events';
export type { ToolGate } from '../agent/permissions';
export type { OrchestratorEvent } from '../compaction/orchestrator';
export type { ChainStage } from '../compaction/pipeline';
export type { ApiMessage, ContentBlock } from '../conversation/types';
export type { Pin } from '../conversation/pinLines';
export type { PermissionAnswer, PermissionRequest } from '../ports';
export type { Logger, PermissionPrompt };

/** A session's setup with the model named by its config; the client and the prompt have defaults. */
export interface HostSessionSetup extends Omit<EngramSessionSetup, 'client' | 'permissionPrompt'> {
  model: ModelConfig;
  /** Default: the Anthropic client for `model` (tests bring their own). */
  client?: ModelClient;
  /** Default: every question is answered "deny" (a headless host has nobody to ask). */
  permissionPrompt?: PermissionPrompt;
}

/**
 * Opens a new session, or resumes `setup.resumeSessionId` (SessionNotFoundError when the project has no
 * such session). The model's key (or the cloud credentials in the environment its provider's client may
 * use) and the team token are redacted from tool results from now on; network
 * settings (stall timeout, retries) are read at each request from `settings`, so a change applies from
 * the next model call. Without a gate of its own, the session may read outside the workspace only after
 * asking (the project's own folder and its memory stay readable).
 */
export async function openHostSession(
  setup: HostSessionSetup,
  settings: SettingsSource | EngramSettings,
): Promise<EngramSession> {
  const { model, client, permissionPrompt, ...rest } = setup;
  // Read at each request, so a changed setting applies from the next model call.
  const network = (): EngramSettings['network'] => ('onChange' in settings ? settings.settings : settings).network;
  // The key in use is redacted from tool results even where no pattern would know its shape.
  rememberSecret(model.apiKey);
  for (const secret of cloudSecrets(model.provider, process.env)) rememberSecret(secret);
  rememberSecret(setup.teamMemory?.token);
  const session = await openEngramSession(
    {
      ...rest,
      client: client ?? anthropicClientFor(model, setup.logger, () => network().stallSeconds * 1000),
      permissionPrompt: permissionPrompt ?? denyAllPrompt,
      // A getter: the retry loop copies the policy at each call.
      retry: rest.retry ?? {
        policy: {
          get maxRetries() {
            return network().maxRetries;
          },
        },
      },
    },
    settings,
  );
  // A person answers this session's prompts: reading outside the workspace asks them too. The project's
  // own folder (transcripts, notes) and its memory stay readable. A host with its own gate (engram -p)
  // keeps its rule, which its flags define.
  if (!setup.gate) {
    const free = [session.paths.projectDir, ...(session.memoryDir ? [session.memoryDir] : [])];
    session.agent.permissions.confineReads({ cwd: setup.cwd, free });
  }
  return session;
}

/**
 * The Anthropic client for `model`, for a host that talks to the model outside a session; `stallMs` is
 * read at each request (how long a silent stream may stall before the request is retried).
 */
export function createAnthropicClient(model: ModelConfig, logger?: Logger, stallMs?: () => number): ModelClient {
  return anthropicClientFor(model, logger, stallMs);
}

/** The tools a session offers by default, for a host that filters or wraps them (engram -p's flags). */
export function createDefaultTools(): Tool[] {
  return defaultTools();
}

/** The project's sessions (`cwd` under `dataDir`), newest first; unreadable and empty ones are left out. */
export function listProjectSessions(dataDir: string, cwd: string): Promise<SessionSummary[]> {
  return listSessions(projectDir(dataDir, cwd));
}

/** Adds a sent prompt to the history shared by every host (history.jsonl under `dataDir`). */
export function appendPromptHistory(dataDir: string, entry: HistoryEntry): Promise<void> {
  return appendHistory(dataDir, entry);
}

/** Whether `id` has the shape of a session id (checked before a resume touches the disk). */
export function isValidSessionId(id: string): boolean {
  return isSessionId(id);
}

/** The prompt that asks the agent to remember `text` (a memory file and its index line). */
export function rememberPrompt(text: string): string {
  return rememberWords(text);
}

/** Loads the tokenizer (about a second): a host starts it early, while the first request is on its way. */
export function warmUpTokenizer(): Promise<void> {
  return ensureTokenizer();
}

/** `text` with every secret it holds replaced by a marker: what a host attaches to a prompt from a file. */
export async function redactAttachedText(text: string): Promise<string> {
  return (await redactSecrets(text)).text;
}

/**
 * Takes the turn on a transcript for a command that writes it outside a session (engram compact, merge),
 * waiting up to `opts.waitMs` for a session or another command that holds it; release it when done.
 */
export function acquireWriterLock(file: string, opts: WriterLockOptions): Promise<WriterLock> {
  return acquireLock(file, opts);
}

/** Who holds a session's turn, in words: "Another Engram process (pid 123, since 10:01:02)". */
export function describeHolder(holder: LockHolder | undefined): string {
  return describeLockHolder(holder);
}

/** A wait in words for a host's message: "10 min", "30 s". */
export function formatWait(ms: number): string {
  return formatLockWait(ms);
}
