// Every threshold and limit of the memory engine, each with the reason for its value (DESIGN sections 4
// and 5). Settings (`engram.*`) override the ones marked "setting"; the rest are fixed by the formats.

/** Session notes: first written when the context reaches this many tokens (setting). */
export const NOTES_INIT_TOKENS = 10_000;
/**
 * Session notes: updated again only after the context grew this much since the last update (setting).
 * DESIGN's 5,000 is the floor; the share of the window below decides on any real window.
 */
export const NOTES_UPDATE_GROWTH_TOKENS = 5_000;
/**
 * Session notes: ...or this share of the context window, in percent, whichever is larger (setting; 0 = off).
 * An update reads the whole context (0.1 a token from the cache) to write a few hundred tokens: at 5,000
 * tokens of growth a session with 2-4 tool calls a turn updated after nearly every turn, and the notes
 * cost a fifth of the session. They are only *used* when a session-memory compaction replaces old
 * messages with them (at 80% of the window), and that compaction brings them up to date first; so the
 * cadence in between only has to keep the inspector's view reasonably fresh. At 40% of the window that is
 * an update or two on the way to the compaction marks (measured on the bench's sessions: a quarter of the
 * window cost a third more in notes for no gain in what a compaction keeps).
 */
export const NOTES_UPDATE_GROWTH_PERCENT = 40;
/**
 * Session notes: a session-memory compaction brings notes that lag behind up to date before it uses
 * them (one update, reading the cached prefix), and ordinary updates stop once the context passes the
 * microcompact mark, where a compaction that needs the notes comes soon and catches them up itself
 * (setting). An update just below the session-memory mark would only be followed by that catch-up.
 */
export const NOTES_CATCH_UP_BEFORE_COMPACTION = true;
/** Session notes: ...and after this many tool calls since then, or a turn with no tool call (setting). */
export const NOTES_UPDATE_TOOL_CALLS = 3;
/** A section may hold this many tokens; more crowds out the rest of the notes in a compaction. */
export const NOTES_SECTION_CAP_TOKENS = 2_000;
/** The whole notes file: it replaces old messages in session-memory compaction, so it must stay small. */
export const NOTES_FILE_CAP_TOKENS = 12_000;
/** Others (compaction) wait at most this long for a running notes update before going on without it. */
export const NOTES_WAIT_TIMEOUT_MS = 15_000;

/** MEMORY.md is loaded into every system prompt up to this many lines... */
export const MEMORY_INDEX_MAX_LINES = 200;
/** ...and this many bytes; beyond either, lines are cut with a visible warning. */
export const MEMORY_INDEX_MAX_BYTES = 25_000;
/**
 * At this share of either MEMORY.md cap the inspector and the chat warn and offer to prune or merge,
 * before anything is cut.
 */
export const MEMORY_INDEX_CAP_WARN_RATIO = 0.8;
/** One index line should stay under this many characters (a title and a one-line hook). */
export const MEMORY_INDEX_LINE_CHARS = 150;
/** Background extraction runs after every N complete turns (setting). */
export const EXTRACTION_EVERY_TURNS = 1;
/** The extraction agent's budget of model calls. */
export const EXTRACTION_MAX_TURNS = 5;
/** Recall attaches at most this many topic files to a turn. */
export const RECALL_MAX_FILES = 5;
/**
 * Recall attaches nothing unless the best file scores this much per query term (chosen on the eval
 * set's dev split).
 */
export const RECALL_MIN_RELEVANCE = 1.5;
/** ...and then only files scoring at least this share of the best one: a clear winner comes alone. */
export const RECALL_GAP_RATIO = 0.4;
/** A related word (recallRelated.ts) counts this much of one of the message's own words (chosen on the dev split). */
export const RECALL_RELATED_WEIGHT = 0.5;
/**
 * A file must match at least this many of the message's words (its own or through a related word): one
 * shared word, however rare, is a coincidence about as often as a topic ("Python", "git", "PDF").
 */
export const RECALL_MIN_WORDS = 2;
/** Relevance divides by at least this many query terms, so a one-word message is not taken as a sure match. */
export const RECALL_MIN_QUERY_TERMS = 4;
/**
 * Recall weighs a message's word by how common it is in ordinary English (Zipf, commonWords.ts): fully
 * at or below `rare`, `floor` at or above `common`. Chosen on the dev split.
 */
export const RECALL_COMMON_WORDS = { rare: 3, common: 6, floor: 0.2 } as const;
/** Recall's rarity of a word is judged as if the folder held at least this many topic files (recallIndex.ts). */
export const RECALL_MIN_CORPUS = 30;

/** The model's context window when none is set: the Claude models' standard 200K tokens (setting). */
export const DEFAULT_CONTEXT_WINDOW = 200_000;
/** Compaction marks, in percent of the context window (settings). */
export const MICROCOMPACT_PERCENT = 60;
export const SESSION_MEMORY_COMPACT_PERCENT = 80;
export const FULL_COMPACT_PERCENT = 100;
/**
 * A tool result byte-identical to one still whole in the request (a file read again unchanged, a `cat`
 * of a file already read) goes to the model as a short note naming the earlier call (setting). Each
 * copy would be written to the prompt cache once more and re-read by every later request.
 */
export const SEND_REPEATS_ONCE = true;
/** Results shorter than this many characters are sent again as they are: the note would not be much shorter. */
export const REPEAT_MIN_CHARS = 600;
/**
 * A trim cuts results a later one superseded (an older copy of a file read again or edited since) and
 * keeps each file's newest copy whole (setting), so the next re-read of that file can be a note instead
 * of a full copy beside a stale, cut one.
 */
export const TRIM_SUPERSEDED_FIRST = true;
/** Microcompact keeps this many newest tool results whole. */
export const MICROCOMPACT_KEEP_RECENT_RESULTS = 5;
/** Microcompact cuts older tool results to this many characters plus a note of the original size. */
export const MICROCOMPACT_RESULT_CHARS = 2_000;
/** Session-memory compaction keeps at least this many tokens of recent messages (setting)... */
export const KEEP_MIN_TOKENS = 10_000;
/** ...and at least this many messages with text (setting)... */
export const KEEP_MIN_TEXT_MESSAGES = 5;
/** ...and at most this many tokens, unless the API invariants force a wider cut (setting). */
export const KEEP_MAX_TOKENS = 40_000;
/** Pinned text carried word for word after every summary: enough for a few rules and snippets (setting). */
export const PIN_BUDGET_TOKENS = 4_000;
/** Automatic compaction stops after this many failures in a row and tells the user. */
export const MAX_CONSECUTIVE_COMPACT_FAILURES = 3;
/** "prompt is too long": compact and retry at most this many times. */
export const MAX_REACTIVE_RETRIES = 3;
/** After a compaction, re-attach up to this many recently read or edited files... */
export const REATTACH_MAX_FILES = 5;
/** ...each cut to this many tokens... */
export const REATTACH_FILE_TOKENS = 5_000;
/** ...and this many tokens in all. */
export const REATTACH_TOTAL_TOKENS = 50_000;
/**
 * JSON read from a transcript may nest at most this deep; deeper values are dropped and reported.
 * JSON.parse copes with any depth, but JSON.stringify and structuredClone recurse and overflow the stack
 * at a few thousand levels (about 4,000 on Node 20's default stack), and then every request of the
 * session would fail. Real content never comes near this.
 */
export const MAX_JSON_DEPTH = 1_000;
/**
 * A model request that receives no byte for this many seconds (no status line, no SSE event; the API's
 * pings count) is abandoned and retried (setting; 0 = off). The API sends a ping every few seconds even
 * while the model thinks, so half a minute of silence means a dead connection or a stuck server, and
 * it is short enough that six attempts end within a few minutes instead of an hour.
 */
export const STALL_SECONDS = 30;
/**
 * A model request that failed in a way worth another try (overload, 5xx, a lost connection) is
 * retried this many times (setting).
 */
export const MODEL_MAX_RETRIES = 5;

/**
 * The automatic prompt-cache TTL (`engram.promptCache.ttl: auto`) takes 1 hour once more than this share
 * of the gaps between the user's messages in the session were over 5 minutes. A gap past a 5-minute
 * cache rewrites the whole conversation at 1.25x; an hour's cache costs 0.75x more on what each turn
 * adds, which is a fifth of the conversation or less once it has grown: 1 hour pays from about one slow
 * gap in eight. The think-time bench (test/bench/cacheGaps.ts) measures the choice against both TTLs.
 */
export const CACHE_TTL_AUTO_SLOW_SHARE = 1 / 6;

// --- MCP servers (DESIGN 10) ---
/** Seconds a server has to answer `initialize` before it counts as failed to start. */
export const MCP_STARTUP_TIMEOUT_SECONDS = 30;
/** Seconds one MCP tool call may run before it is cancelled (`notifications/cancelled` is sent). */
export const MCP_CALL_TIMEOUT_SECONDS = 600;
/** An MCP tool result over this many tokens is cut with a note (Claude Code's MAX_MCP_OUTPUT_TOKENS default). */
export const MCP_MAX_OUTPUT_TOKENS = 25_000;
