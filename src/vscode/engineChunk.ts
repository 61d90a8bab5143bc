// The engine parts the extension needs only once a chat starts or the inspector opens: the session
// (agent, memory, compaction) with what a host needs around it, the Anthropic SDK client, the inspector's
// engine side and the offline demo server. Bundled as dist/engine.js and required on first use (see
// loadEngine.ts), so activation never pays for parsing them.
export {
  appendHistory,
  createAnthropicClient,
  ensureTokenizer,
  listSessions,
  openHostSession,
  rememberPrompt,
} from '../core/session/hostSession';
export { startTestServer } from '../testServer/anthropicTestServer';
export * as inspector from '../core/inspection/inspectorService';
export { autoMemoryDir, teamMemoryDir } from '../core/memory/autoMemory/memoryPaths';
export { repoSlugOf } from '../core/memory/team/repoSlug';
export { readTeamSyncState } from '../core/memory/team/syncStateFile';
export { syncTeamMemory } from '../core/memory/team/teamSync';
export { redactSecrets } from '../core/security/secretScan';
