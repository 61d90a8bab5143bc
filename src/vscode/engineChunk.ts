// The engine parts the extension needs only once a chat starts: the session (agent, memory, compaction),
// the Anthropic SDK client, transcripts and the offline demo server. Bundled as dist/engine.js and
// required on first use (see loadEngine.ts), so activation never pays for parsing them.
export { openEngramSession } from '../core/session/engramSession';
export { listSessions } from '../core/conversation/transcriptReader';
export { appendHistory } from '../core/conversation/transcriptWriter';
export { createAnthropicClient } from '../core/llm/anthropicClient';
export { startTestServer } from '../server/anthropicTestServer';
export { ensureTokenizer } from '../core/tokens/tokenizer';
export { rememberPrompt } from '../core/memory/autoMemory/memoryPrompts';
export * as inspector from './inspector/inspectorEngine';
