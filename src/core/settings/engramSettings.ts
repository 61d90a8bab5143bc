// The one owner of Engram's settings. Each `engram.*` setting is declared once here, as a key with its
// default (taken from thresholds.ts or the model defaults) and its range; `resolveSettings` turns whatever
// a host read (VS Code's configuration, the CLI's flags) into a checked `EngramSettings`: wrong types and
// out-of-range values fall back to the default with a problem reported, and the compaction marks are
// put in order (60 < 80 < 100 by default) so every stage stays reachable. package.json declares the same
// keys for VS Code's settings UI; a unit test checks that its defaults and ranges are these. What a key
// is and how one value is checked: settingKey.ts; the rules between settings: settingsConsistency.ts.
import { cacheTtlSetting, type CacheTtlSetting } from '../llm/cacheTtl';
import { DEFAULT_MAX_OUTPUT_TOKENS, DEFAULT_MODEL } from '../llm/modelConfig';
import { PROVIDER_IDS, type ProviderSettings } from '../llm/providerTypes';
import {
  bool,
  httpUrl,
  int,
  object,
  oneOf,
  percent,
  str,
  strings,
  type SettingKey,
  type ValueOf,
  whyInvalid,
} from './settingKey';
import {
  DEFAULT_CONTEXT_WINDOW,
  EXTRACTION_EVERY_TURNS,
  FULL_COMPACT_PERCENT,
  KEEP_MAX_TOKENS,
  PIN_BUDGET_TOKENS,
  KEEP_MIN_TEXT_MESSAGES,
  KEEP_MIN_TOKENS,
  MICROCOMPACT_KEEP_RECENT_RESULTS,
  MICROCOMPACT_PERCENT,
  MICROCOMPACT_RESULT_CHARS,
  NOTES_INIT_TOKENS,
  NOTES_UPDATE_GROWTH_TOKENS,
  NOTES_CATCH_UP_BEFORE_COMPACTION,
  NOTES_UPDATE_GROWTH_PERCENT,
  NOTES_UPDATE_TOOL_CALLS,
  RECALL_MAX_FILES,
  SEND_REPEATS_ONCE,
  SESSION_MEMORY_COMPACT_PERCENT,
  TRIM_SUPERSEDED_FIRST,
  STALL_SECONDS,
  MODEL_MAX_RETRIES,
  MCP_CALL_TIMEOUT_SECONDS,
  MCP_MAX_OUTPUT_TOKENS,
  MCP_STARTUP_TIMEOUT_SECONDS,
} from '../thresholds';
import { CONTEXT_WINDOW_ANY_MODEL, MAX_OUTPUT_TOKENS_ANY_MODEL } from './modelLimits';
import { keepMaxAtLeastMin, orderedMarks, outputWithinWindow, withinModel } from './settingsConsistency';

/** Every `engram.*` setting (without the `engram.` prefix): the single place a default is written. */
export const SETTING_KEYS = {
  model: str(DEFAULT_MODEL),
  // At most what the largest model takes (modelLimits.ts); resolveSettings bounds them by the model set.
  maxOutputTokens: int(DEFAULT_MAX_OUTPUT_TOKENS, 256, MAX_OUTPUT_TOKENS_ANY_MODEL),
  contextWindow: int(DEFAULT_CONTEXT_WINDOW, 8_000, CONTEXT_WINDOW_ANY_MODEL),
  baseUrl: str(''),
  dataDir: str(''),
  offlineDemo: bool(false),
  // Seconds without a byte before a model request is abandoned and retried; 0 turns the check off
  // (a proxy that holds the whole answer back until it is done). Fractions allowed.
  'network.stallSeconds': { kind: 'number', default: STALL_SECONDS, minimum: 0, maximum: 600 },
  'network.maxRetries': int(MODEL_MAX_RETRIES, 0, 10),
  'sessionNotes.enabled': bool(true),
  'sessionNotes.initTokens': int(NOTES_INIT_TOKENS, 1_000),
  'sessionNotes.updateGrowthTokens': int(NOTES_UPDATE_GROWTH_TOKENS, 500),
  'sessionNotes.updateToolCalls': int(NOTES_UPDATE_TOOL_CALLS, 1),
  // 0 turns it off: then only updateGrowthTokens counts (DESIGN's cadence).
  'sessionNotes.updateGrowthPercent': {
    kind: 'number',
    default: NOTES_UPDATE_GROWTH_PERCENT,
    minimum: 0,
    maximum: 100,
  },
  'sessionNotes.catchUpBeforeCompaction': bool(NOTES_CATCH_UP_BEFORE_COMPACTION),
  'memory.enabled': bool(true),
  'memory.extraction.enabled': bool(true),
  'memory.extraction.everyTurns': int(EXTRACTION_EVERY_TURNS, 1),
  // Off unless the user opts in: then background memories wait in a review queue until accepted.
  'memory.extraction.review': bool(false),
  'memory.recall.enabled': bool(true),
  'memory.recall.maxFiles': int(RECALL_MAX_FILES, 0, RECALL_MAX_FILES),
  // local: the relevance bar, no model call; model: one small call picks from the index.
  'memory.recall.mode': oneOf('local', ['local', 'model']),
  // off unless the user opts in: daily prepares a memory tidy for review (never applies it).
  'memory.tidyCadence': oneOf('off', ['off', 'daily']),
  // A memory naming what no longer exists: attached with a one-line caveat, or left out of recall.
  'memory.staleRecall': oneOf('caveat', ['caveat', 'skip']),
  // Off unless the user opts in: team memory sends files to a server.
  'teamMemory.enabled': bool(false),
  'teamMemory.serverUrl': httpUrl(''),
  'compaction.auto': bool(true),
  'compaction.reactive': bool(true),
  'compaction.microcompactPercent': percent(MICROCOMPACT_PERCENT),
  'compaction.sessionMemoryPercent': percent(SESSION_MEMORY_COMPACT_PERCENT),
  'compaction.fullPercent': percent(FULL_COMPACT_PERCENT),
  'compaction.keepRecentToolResults': int(MICROCOMPACT_KEEP_RECENT_RESULTS, 0),
  'compaction.toolResultChars': int(MICROCOMPACT_RESULT_CHARS, 100),
  'compaction.keepMinTokens': int(KEEP_MIN_TOKENS, 0),
  'compaction.keepMinTextMessages': int(KEEP_MIN_TEXT_MESSAGES, 0),
  'compaction.keepMaxTokens': int(KEEP_MAX_TOKENS, 1_000),
  // Pins are carried after every summary within this budget; the oldest that do not fit are left out.
  'compaction.pinBudgetTokens': int(PIN_BUDGET_TOKENS, 0),
  // A tool result identical to one still whole in the request goes to the model as a short note.
  'compaction.sendRepeatsOnce': bool(SEND_REPEATS_ONCE),
  // A trim cuts superseded copies (a file read again or edited since) and keeps each file's newest copy whole.
  'compaction.trimSupersededFirst': bool(TRIM_SUPERSEDED_FIRST),
  // Manual compactions (`/compact`, Compact Now) show the summary for review first; automatic ones never wait.
  'compaction.preview': bool(true),
  // How long the prompt cache lives: auto picks 1h once over a sixth of the user's gaps pass 5 minutes (llm/cacheTtl.ts).
  'promptCache.ttl': oneOf('auto', ['auto', '5m', '1h']),
  // MCP servers of the user's, in Claude Code's `mcpServers` shape (merged with ~/.engram/mcp.json and the project's).
  'mcp.servers': object(),
  // Project servers (.mcp.json, .vscode/mcp.json) that may start without asking, by name (engram -p reads it too).
  'mcp.approvedProjectServers': strings(),
  'mcp.startupTimeoutSeconds': int(MCP_STARTUP_TIMEOUT_SECONDS, 1, 600),
  'mcp.callTimeoutSeconds': int(MCP_CALL_TIMEOUT_SECONDS, 1, 86_400),
  // A tool result over this many tokens is cut, with a note saying how much was left out (Claude Code's 25,000).
  'mcp.maxOutputTokens': int(MCP_MAX_OUTPUT_TOKENS, 1_000, 200_000),
  // Permission rules in Claude Code's syntax (`Bash(npm test:*)`, `Edit(src/**)`, `mcp__github`); deny wins.
  'permissions.allow': strings(),
  'permissions.deny': strings(),
  // A checkpoint per turn in a shadow repository under the data folder (issue 33), files over the size left out.
  'checkpoints.enabled': bool(true),
  'checkpoints.maxFileSizeMB': int(10, 1, 1_024),
  // The cloud the model is reached through (issue 34). Unset, Claude Code's CLAUDE_CODE_USE_* decide, and each
  // empty text below leaves its environment variable (AWS_REGION, CLOUD_ML_REGION, ...) to decide.
  provider: oneOf('anthropic', PROVIDER_IDS),
  'bedrock.region': str(''),
  'bedrock.profile': str(''),
  'bedrock.baseUrl': httpUrl(''),
  'vertex.region': str(''),
  'vertex.projectId': str(''),
  'vertex.baseUrl': httpUrl(''),
  'foundry.resource': str(''),
  'foundry.baseUrl': httpUrl(''),
} as const satisfies Record<string, SettingKey>;

export type SettingId = keyof typeof SETTING_KEYS;
/** What a host read, by setting id; anything may be missing or of the wrong type. */
export type RawSettings = Partial<Record<SettingId, unknown>>;

export interface EngramSettings {
  model: string;
  maxOutputTokens: number;
  /** The model's context window in tokens; the compaction marks are percentages of it. */
  contextWindow: number;
  /** Empty: ANTHROPIC_BASE_URL, else the Anthropic API. */
  baseUrl: string;
  /** Empty: ENGRAM_DATA_DIR, else ~/.engram (the host resolves it to a path). */
  dataDir: string;
  offlineDemo: boolean;
  /** How long a model request may go without a byte, and how often a failed one is tried again. */
  network: { stallSeconds: number; maxRetries: number };
  sessionNotes: {
    enabled: boolean;
    initTokens: number;
    updateGrowthTokens: number;
    /** Growth as a share of the context window; the larger of this and updateGrowthTokens counts. */
    updateGrowthPercent: number;
    updateToolCalls: number;
    /** Compaction brings lagging notes up to date first; ordinary updates stop past the microcompact mark. */
    catchUpBeforeCompaction: boolean;
  };
  memory: {
    enabled: boolean;
    extraction: { enabled: boolean; everyTurns: number; review: boolean };
    recall: { enabled: boolean; maxFiles: number; mode: 'local' | 'model' };
    /** daily: at most once a day after five sessions, a tidy is prepared for review (never applied). */
    tidyCadence: 'off' | 'daily';
    /** A stale memory (a reference it makes is gone): attached with a caveat, or skipped. */
    staleRecall: 'caveat' | 'skip';
  };
  /** Shared memory of the repository (DESIGN 4); on only when enabled and the workspace is trusted. */
  teamMemory: {
    enabled: boolean;
    /** The team server, without a trailing slash; empty: ENGRAM_TEAM_SERVER (CLI), else no sync. */
    serverUrl: string;
  };
  compaction: {
    auto: boolean;
    reactive: boolean;
    /** Marks in percent of the window, strictly increasing. */
    microcompactPercent: number;
    sessionMemoryPercent: number;
    fullPercent: number;
    keepRecentToolResults: number;
    toolResultChars: number;
    keepMinTokens: number;
    keepMinTextMessages: number;
    keepMaxTokens: number;
    /** Tokens of pinned text carried after each summary; the oldest pins that do not fit are cut. */
    pinBudgetTokens: number;
    /** Repeated tool output is sent once; later copies go as a note naming the earlier call. */
    sendRepeatsOnce: boolean;
    /** Trims cut superseded copies first and keep each file's newest copy whole. */
    trimSupersededFirst: boolean;
    /** The host shows a manual compaction's summary (or notes) to edit or cancel before it applies. */
    preview: boolean;
  };
  /** The prompt cache's lifetime: fixed, or chosen from the user's pace (llm/cacheTtl.ts). */
  promptCache: { ttl: CacheTtlSetting };
  mcp: {
    /** The user's servers from the setting, in Claude Code's `mcpServers` shape (checked by the MCP config reader). */
    servers: Readonly<Record<string, unknown>>;
    /** Project servers approved by name in settings. */
    approvedProjectServers: readonly string[];
    startupTimeoutSeconds: number;
    callTimeoutSeconds: number;
    maxOutputTokens: number;
  };
  /** Rules from the user's settings (the project's own come from `.engram/settings.json`). */
  permissions: { allow: readonly string[]; deny: readonly string[] };
  /** Checkpoints of each turn (a trusted workspace only), and the size over which a file is left out. */
  checkpoints: { enabled: boolean; maxFileSizeMB: number };
  /**
   * The provider settings as read (empty texts: not set). `provider` is the setting's value or its default:
   * a host hands it to resolveProvider only when the person set it, so the environment decides otherwise.
   */
  providers: Required<Omit<ProviderSettings, 'providerFromFlag'>>;
}

export interface ResolvedSettings {
  settings: EngramSettings;
  /** One line per value that was ignored or changed, for the log or stderr. */
  problems: string[];
}

/** Checks and orders what a host read; the same input always gives the same settings. */
export function resolveSettings(raw: RawSettings = {}): ResolvedSettings {
  const problems: string[] = [];
  const get = <I extends SettingId>(id: I): ValueOf<(typeof SETTING_KEYS)[I]> => {
    const key: SettingKey = SETTING_KEYS[id];
    const value = raw[id];
    if (value === undefined || value === null) return key.default as ValueOf<(typeof SETTING_KEYS)[I]>;
    const why = whyInvalid(key, value);
    if (why) {
      problems.push(`engram.${id}: ${why}; using ${JSON.stringify(key.default)}.`);
      return key.default as ValueOf<(typeof SETTING_KEYS)[I]>;
    }
    return (key.kind === 'string' ? (value as string).trim() : value) as ValueOf<(typeof SETTING_KEYS)[I]>;
  };

  const marks = orderedMarks(
    [get('compaction.microcompactPercent'), get('compaction.sessionMemoryPercent'), get('compaction.fullPercent')],
    problems,
  );
  const keepMinTokens = get('compaction.keepMinTokens');
  const keepMaxTokens = keepMaxAtLeastMin(keepMinTokens, get('compaction.keepMaxTokens'), problems);
  const model = get('model') || DEFAULT_MODEL;
  const { contextWindow, maxOutputTokens: modelMax } = withinModel(
    model,
    get('contextWindow'),
    get('maxOutputTokens'),
    problems,
  );
  const maxOutputTokens = outputWithinWindow(modelMax, contextWindow, problems);
  return {
    problems,
    settings: {
      model,
      maxOutputTokens,
      contextWindow,
      baseUrl: get('baseUrl'),
      dataDir: get('dataDir'),
      offlineDemo: get('offlineDemo'),
      network: { stallSeconds: get('network.stallSeconds'), maxRetries: get('network.maxRetries') },
      sessionNotes: {
        enabled: get('sessionNotes.enabled'),
        initTokens: get('sessionNotes.initTokens'),
        updateGrowthTokens: get('sessionNotes.updateGrowthTokens'),
        updateGrowthPercent: get('sessionNotes.updateGrowthPercent'),
        updateToolCalls: get('sessionNotes.updateToolCalls'),
        catchUpBeforeCompaction: get('sessionNotes.catchUpBeforeCompaction'),
      },
      memory: {
        enabled: get('memory.enabled'),
        extraction: {
          enabled: get('memory.extraction.enabled'),
          everyTurns: get('memory.extraction.everyTurns'),
          review: get('memory.extraction.review'),
        },
        recall: {
          enabled: get('memory.recall.enabled'),
          maxFiles: get('memory.recall.maxFiles'),
          mode: get('memory.recall.mode') === 'model' ? 'model' : 'local',
        },
        tidyCadence: get('memory.tidyCadence') === 'daily' ? 'daily' : 'off',
        staleRecall: get('memory.staleRecall') === 'skip' ? 'skip' : 'caveat',
      },
      teamMemory: {
        enabled: get('teamMemory.enabled'),
        serverUrl: get('teamMemory.serverUrl').replace(/\/+$/, ''),
      },
      compaction: {
        auto: get('compaction.auto'),
        reactive: get('compaction.reactive'),
        microcompactPercent: marks[0],
        sessionMemoryPercent: marks[1],
        fullPercent: marks[2],
        keepRecentToolResults: get('compaction.keepRecentToolResults'),
        toolResultChars: get('compaction.toolResultChars'),
        keepMinTokens,
        keepMinTextMessages: get('compaction.keepMinTextMessages'),
        keepMaxTokens,
        pinBudgetTokens: get('compaction.pinBudgetTokens'),
        sendRepeatsOnce: get('compaction.sendRepeatsOnce'),
        trimSupersededFirst: get('compaction.trimSupersededFirst'),
        preview: get('compaction.preview'),
      },
      promptCache: { ttl: cacheTtlSetting(get('promptCache.ttl')) },
      mcp: {
        servers: get('mcp.servers'),
        approvedProjectServers: get('mcp.approvedProjectServers'),
        startupTimeoutSeconds: get('mcp.startupTimeoutSeconds'),
        callTimeoutSeconds: get('mcp.callTimeoutSeconds'),
        maxOutputTokens: get('mcp.maxOutputTokens'),
      },
      permissions: { allow: get('permissions.allow'), deny: get('permissions.deny') },
      checkpoints: { enabled: get('checkpoints.enabled'), maxFileSizeMB: get('checkpoints.maxFileSizeMB') },
      providers: {
        provider: get('provider'),
        bedrockRegion: get('bedrock.region'),
        bedrockProfile: get('bedrock.profile'),
        bedrockBaseUrl: get('bedrock.baseUrl').replace(/\/+$/, ''),
        vertexRegion: get('vertex.region'),
        vertexProjectId: get('vertex.projectId'),
        vertexBaseUrl: get('vertex.baseUrl').replace(/\/+$/, ''),
        foundryResource: get('foundry.resource'),
        foundryBaseUrl: get('foundry.baseUrl').replace(/\/+$/, ''),
      },
    },
  };
}

/** The defaults, resolved. */
export function defaultSettings(): EngramSettings {
  return resolveSettings().settings;
}

/** The three marks of the gauge, in percent, as the orchestrator uses them. */
export function compactionMarks(settings: EngramSettings): [number, number, number] {
  const c = settings.compaction;
  return [c.microcompactPercent, c.sessionMemoryPercent, c.fullPercent];
}

/**
 * What a session needs of a settings owner. An interface, not the class: the extension's bundle and
 * the lazily loaded engine chunk each have their own copy of SettingsStore.
 */
export interface SettingsSource {
  readonly settings: EngramSettings;
  onChange(listener: (settings: EngramSettings, previous: EngramSettings) => void): () => void;
}

/** Holds the current settings and tells listeners when they change (VS Code's configuration events, tests). */
export class SettingsStore implements SettingsSource {
  private current: ResolvedSettings;
  private readonly listeners = new Set<(settings: EngramSettings, previous: EngramSettings) => void>();

  constructor(raw: RawSettings = {}) {
    this.current = resolveSettings(raw);
  }

  /** A store holding settings that were already resolved (a host with no configuration to follow). */
  static of(settings: EngramSettings): SettingsStore {
    const store = new SettingsStore();
    store.current = { settings, problems: [] };
    return store;
  }

  get settings(): EngramSettings {
    return this.current.settings;
  }

  get problems(): readonly string[] {
    return this.current.problems;
  }

  /** Replaces the raw values (everything the host read, not a patch) and notifies when the result differs. */
  update(raw: RawSettings): void {
    const previous = this.current.settings;
    this.current = resolveSettings(raw);
    if (JSON.stringify(previous) === JSON.stringify(this.current.settings)) return;
    for (const listener of [...this.listeners]) listener(this.current.settings, previous);
  }

  onChange(listener: (settings: EngramSettings, previous: EngramSettings) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
