// What an Engram session is made from: what a host brings (EngramSessionSetup) and each part's share of
// the settings (the notes updater's thresholds, the compaction orchestrator's settings), read again when
// the settings change. The session's paths are not here: they are worked out once as it opens
// (memory/sessionPaths.ts).
import type { SessionSearch } from '../agent/searchContext';
import type { ToolGate } from '../agent/permissions';
import type { CompactionSettings } from '../compaction/settings';
import type { ModelClient } from '../llm/modelClient';
import type { McpHub } from '../mcp/mcpHub';
import type { RetryOptions } from '../llm/retry';
import type { TriggerThresholds } from '../memory/sessionNotes/trigger';
import type { Clock, Logger, PermissionPrompt } from '../ports';
import type { EngramSettings } from '../settings/engramSettings';
import type { Tool } from '../tools/tool';
import type { TeamMemoryHostOptions } from './teamMemoryLink';
import type { SessionWriterOptions } from './transcriptGuard';

/** What a host brings; everything the settings decide comes from the SettingsStore instead. */
export interface EngramSessionSetup {
  dataDir: string;
  /** The project folder: tools work here; transcripts and memory are keyed by it. */
  cwd: string;
  resumeSessionId?: string;
  client: ModelClient;
  /** Untrusted: no tools, no project instructions, no notes updater or extraction (they write files). */
  trusted: boolean;
  permissionPrompt: PermissionPrompt;
  /** The host's rule for tool calls (the CLI's --allowed-tools); default: the session's own (ask for writes). */
  gate?: ToolGate;
  /**
   * Writes into the memory folder go through `gate` like any other call, instead of running without a
   * prompt: the CLI sets it so that exactly the --allowed-tools run (its gate knows the memory folder).
   */
  memoryWritesNeedTool?: boolean;
  tools?: Tool[];
  /**
   * The engine Grep and Glob search with (src/core/host/search.ts createSearchEngine: ripgrep when the host
   * found one that runs) and their bounds from the host's settings; none: the JavaScript engine, defaults.
   */
  search?: SessionSearch;
  /**
   * The MCP servers' hub (src/core/host/mcp.ts createMcpHub): its tools are offered after the built-ins,
   * read before each model call; the session starts it (when trusted), re-emits its events as `mcp`
   * session events and closes it when disposed.
   */
  mcp?: McpHub;
  version: string;
  /** Recorded on transcript lines: `vscode`, `cli`. */
  entrypoint: string;
  /** Lines added to the system prompt for this host. */
  systemNotes?: string[];
  /**
   * Background extraction on or off regardless of `memory.extraction.enabled` (the CLI runs it only with
   * --extract-memories: it costs a model call per turn).
   */
  extraction?: boolean;
  /**
   * Team memory's credentials from the host (the token from Secret Storage or ENGRAM_TEAM_TOKEN, a server
   * URL from ENGRAM_TEAM_SERVER); whether team memory is on at all is the settings' and trust's call.
   */
  teamMemory?: TeamMemoryHostOptions;
  logger?: Logger;
  retry?: Omit<RetryOptions, 'onRetry'>;
  now?: Date;
  /** The prompt cache's clock (its TTL, the user's pace); default the system clock. Tests and benches simulate time. */
  clock?: Clock;
  /** Tests: make a turn wait for the notes update it triggered, for a deterministic request order. */
  awaitNotesUpdates?: boolean;
  /**
   * One writer at a time: engram -p holds the session for its run, the chat for each turn
   * (transcriptGuard.ts).
   */
  writer?: SessionWriterOptions;
}

/** When the notes are updated: the growth is the larger of the token count and the share of the window. */
export function notesThresholdsOf(s: EngramSettings): TriggerThresholds {
  const n = s.sessionNotes;
  const growthTokens = Math.max(n.updateGrowthTokens, Math.floor((s.contextWindow * n.updateGrowthPercent) / 100));
  const quiet =
    n.catchUpBeforeCompaction && s.compaction.auto
      ? { quietAboveTokens: Math.floor((s.contextWindow * s.compaction.microcompactPercent) / 100) }
      : {};
  return { initTokens: n.initTokens, growthTokens, toolCalls: n.updateToolCalls, ...quiet };
}

/** The orchestrator's share of the settings. */
export function compactionSettingsOf(s: EngramSettings): Partial<CompactionSettings> {
  return { ...s.compaction, contextWindow: s.contextWindow, notesCatchUp: s.sessionNotes.catchUpBeforeCompaction };
}
