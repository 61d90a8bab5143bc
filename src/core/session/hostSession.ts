// The session as a host opens and drives it: the one core module the Chat view's engine chunk and
// `engram -p` reach the session through. Besides the EngramSession itself (engramSession.ts) a host
// needs a little around it: a model client (built here from the model config unless the host brings
// one), the default tools, checked session ids for resuming, the project's past sessions, the shared
// prompt history, the words of a remember request, the tokenizer warmed up early. The types are the
// ones the session's setup and events are made of, so a host names them without knowing where in the
// engine they live.
import { denyAllPrompt } from '../agent/permissions';
import { createAnthropicClient } from '../llm/anthropicClient';
import type { ModelClient } from '../llm/modelClient';
import type { ModelConfig } from '../llm/modelConfig';
import type { PermissionPrompt } from '../ports';
import type { EngramSettings, SettingsSource } from '../settings/engramSettings';
import type { EngramSession } from './engramSession';
import { openEngramSession } from './openEngramSession';
import type { EngramSessionSetup } from './sessionSetup';
import { addKnownSecret } from '../security/secretScan';

export { openEngramSession };
export { isValidSessionId, SessionNotFoundError } from './agentSession';
export { DEFAULT_WRITER_WAIT_MS } from './transcriptGuard';
export { describeHolder, formatWait } from '../fs/writerLock';
export { createAnthropicClient };
export { createDefaultTools } from '../tools/defaultTools';
export { listSessions } from '../conversation/transcriptReader';
export { appendHistory } from '../conversation/promptHistory';
export { rememberPrompt } from '../memory/autoMemory/memoryPrompts';
export { ensureTokenizer } from '../tokens/tokenizer';

export type { EngramSession, ModelClient };
export type { SessionEvent } from './sessionEvents';
export type { AgentEvent } from '../agent/events';
export type { ToolGate } from '../agent/permissions';
export type { OrchestratorEvent } from '../compaction/orchestrator';
export type { ChainStage } from '../compaction/pipeline';
export type { ApiMessage, ContentBlock } from '../conversation/types';
export type { Tool } from '../tools/tool';

/** A session's setup with the model named by its config; the client and the prompt have defaults. */
export interface HostSessionSetup extends Omit<EngramSessionSetup, 'client' | 'permissionPrompt'> {
  model: ModelConfig;
  /** Default: the Anthropic client for `model` (tests bring their own). */
  client?: ModelClient;
  /** Default: every question is answered "deny" (a headless host has nobody to ask). */
  permissionPrompt?: PermissionPrompt;
}

export async function openHostSession(
  setup: HostSessionSetup,
  settings: SettingsSource | EngramSettings,
): Promise<EngramSession> {
  const { model, client, permissionPrompt, ...rest } = setup;
  // Read at each request, so a changed setting applies from the next model call.
  const network = (): EngramSettings['network'] => ('onChange' in settings ? settings.settings : settings).network;
  // The key in use is redacted from tool results even where no pattern would know its shape.
  addKnownSecret(model.apiKey);
  addKnownSecret(setup.teamMemory?.token);
  const session = await openEngramSession(
    {
      ...rest,
      client: client ?? createAnthropicClient(model, setup.logger, () => network().stallSeconds * 1000),
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
