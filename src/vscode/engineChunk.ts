// The engine parts the extension needs only once a chat starts: the agent, the Anthropic SDK client,
// transcripts and the offline demo server. Bundled as dist/engine.js and required on first use
// (see loadEngine in chatSession.ts), so activation never pays for parsing them.
export { openSession, sessionSystemPrompt } from '../core/session/agentSession';
export { listSessions } from '../core/conversation/transcriptReader';
export { appendHistory } from '../core/conversation/transcriptWriter';
export { createAnthropicClient } from '../core/llm/anthropicClient';
export { startTestServer } from '../server/anthropicTestServer';
export { attachSessionNotes } from '../core/memory/sessionNotes/attach';
export { ensureTokenizer } from '../core/tokens/tokenizer';
export { attachAutoMemory, prepareAutoMemory } from '../core/memory/autoMemory/attach';
export { memoryWriteGate } from '../core/memory/autoMemory/memoryPermissions';
export { rememberPrompt } from '../core/memory/autoMemory/memoryPrompts';
export { CompactionOrchestrator } from '../core/compaction/orchestrator';
export * as inspector from './inspector/inspectorEngine';
