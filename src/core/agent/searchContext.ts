// The search a host gives its sessions (issue 35): the engine Grep and Glob run on and the bounds from the
// host's settings, turned into each turn's ToolContext (the main agent's and a forked agent's alike).
import type { SearchBounds, SearchEngine } from '../tools/searchTypes';
import type { ToolContext } from '../tools/tool';

/** A host's search for its sessions: the engine (ripgrep when found) and the bounds, read at each turn. */
export interface SessionSearch {
  engine?: SearchEngine;
  /** The time limit, file size limit and excludes from the host's settings (read when a turn starts). */
  bounds?(): Partial<SearchBounds>;
}

/** The search part of a ToolContext: the session's engine and its bounds as the settings say now. */
export function searchContext(search: SessionSearch | undefined): Pick<ToolContext, 'search' | 'searchBounds'> {
  if (!search) return {};
  return {
    ...(search.engine ? { search: search.engine } : {}),
    ...(search.bounds ? { searchBounds: search.bounds() } : {}),
  };
}
