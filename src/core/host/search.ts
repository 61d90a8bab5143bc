// What a host needs for the search Grep and Glob run on (issue 35): createSearchEngine checks the rg
// binary the host found (VS Code's bundled copy, an rg on PATH, a configured path) and falls back to the
// JavaScript engine with the reason; the session takes the engine and the bounds from the host's settings
// (EngramSessionSetup.search). The engine's `name` and `detail` say which one runs, for the log,
// /context and the inspector.
export { createSearchEngine, type SearchEngineOptions } from '../tools/search/createSearchEngine';
export { SEARCH_MAX_FILE_BYTES } from '../tools/search/searchRun';
export type { SearchEngine } from '../tools/searchTypes';
export type { SessionSearch } from '../agent/searchContext';
/** The chat's `@` completion: the workspace's file names listed through the engine, kept, and following file events. */
export { FileNameIndex } from '../tools/fileNameIndex';
