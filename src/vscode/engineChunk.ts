// The engine parts the extension needs only once a chat starts or the inspector opens: the session
// (agent, memory, compaction) with what a host needs around it, the Anthropic SDK client, the inspector's
// engine side, the MCP client (config, the project's choices, the hub of connections), the search engines
// Grep and Glob run on (issue 35) and the offline demo server. Bundled as dist/engine.js and required on
// first use (see loadEngine.ts), so activation never pays for parsing them.
export {
  appendPromptHistory,
  createAnthropicClient,
  listProjectSessions,
  openHostSession,
  redactAttachedText,
  rememberPrompt,
  warmUpTokenizer,
} from '../core/host/sessions';
export { startTestServer } from '../testServer/anthropicTestServer';
export { inspector } from '../core/host/inspector';
export {
  applyTidy,
  autoMemoryDir,
  clearPendingTidy,
  keepPendingTidy,
  listTidies,
  noteSessionForTidy,
  pendingTidy,
  proposeProjectTidy,
  tidyDiffs,
  undoTidy,
  describeMemoryMatches,
  describeRememberOutcome,
  memoryScope,
  rememberForClient,
  searchProjectMemory,
  teamMemoryDir,
} from '../core/host/memory';
export { readTeamSyncState, repoSlugOf, syncTeamMemory } from '../core/host/team';
export { createMcpHub, mcpStartPolicy, readMcpChoices, readMcpConfig, updateMcpChoices } from '../core/host/mcp';
export { createSearchEngine, FileNameIndex } from '../core/host/search';
