// The inspector's engine side, reached through the lazily loaded engine chunk (loadEngine().inspector),
// so opening VS Code never pays for parsing it: snapshot assembly and transcript reads (core/inspection),
// and the memory actions of the core (prune with undo, rename, change type) that the inspector's buttons
// call. The VS Code side only gathers inputs and shows what these return.
export { buildInspectorSnapshot } from '../../core/inspection/snapshotBuilder';
export { transcriptFacts } from '../../core/inspection/transcriptFacts';
export { clipForWebview, readReplacedMessages, replacedDocument } from '../../core/inspection/replacedMessages';
export { claudeConfigDir, isSessionId, lineOfMessage, listProjects, sessionPaths, sessionsOf } from '../../core/inspection/sources';
export { deleteTrashEntry } from '../../core/memory/autoMemory/trashDelete';
export { autoMemoryDir } from '../../core/memory/autoMemory/memoryPaths';
export { pruneEntry, restoreEntry } from '../../core/memory/autoMemory/memoryTrash';
export { changeType, renameEntry } from '../../core/memory/autoMemory/memoryWriter';
export { MEMORY_TYPES } from '../../core/memory/autoMemory/topicFile';
export { projectDir } from '../../core/conversation/projectKey';
