// The inspector's engine side, reached through the lazily loaded engine chunk (loadEngine().inspector),
// so opening VS Code never pays for parsing it: snapshot assembly, transcript reads, and the memory
// actions of the core (prune with undo, rename, change type) that the inspector's buttons call.
export { buildInspectorSnapshot } from './snapshotBuilder';
export { transcriptFacts } from './transcriptFacts';
export { clipForWebview, readReplacedMessages, replacedDocument } from './replacedMessages';
export { claudeConfigDir, isSessionId, lineOfMessage, listProjects, sessionPaths, sessionsOf } from './sources';
export { deleteTrashEntry } from './trashDelete';
export { autoMemoryDir } from '../../core/memory/autoMemory/memoryPaths';
export { pruneEntry, restoreEntry } from '../../core/memory/autoMemory/memoryTrash';
export { changeType, renameEntry } from '../../core/memory/autoMemory/memoryWriter';
export { MEMORY_TYPES } from '../../core/memory/autoMemory/topicFile';
export { projectDir } from '../../core/conversation/projectKey';
