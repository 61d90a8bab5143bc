// Appends a session's transcript in Claude Code's JSONL line format (field names and order as Claude Code
// 2.1.88 writes them), so Claude Code can resume Engram's sessions and the reverse. This file builds the
// lines; getting them onto disk, and keeping the file whole when a write fails, is transcriptAppender.ts.
// Appends to one file run one at a time in call order (appendQueue.ts); the line itself (uuid,
// parentUuid) is built synchronously at call time, so fire-and-forget callers get a consistent chain.
//
// Parent links (what the reader's normaliser relies on): each line's parentUuid is the previous line of
// the chain, except a tool_result line, which hangs off the assistant line holding its tool_use (as
// Claude Code does). Parallel tool calls therefore form a small tree; the next line continues from the
// last result written.
import { randomUUID } from 'node:crypto';
import { type Clock, systemClock } from '../ports';
import { sessionTranscriptPath, subagentTranscriptPath } from './projectKey';
import type { RepeatMark } from './repeatedResults';
import { TranscriptAppender } from './transcriptAppender';
import type {
  AssistantBlock,
  AssistantLine,
  StopReason,
  SystemLine,
  ToolResultBlock,
  UserBlock,
  UserLine,
  Usage,
} from './types';

export interface TranscriptWriterOptions {
  file: string;
  sessionId: string;
  /** The working directory recorded on every line (Claude Code's `cwd`). */
  cwd: string;
  /** Engram's version, recorded as `version`. */
  version: string;
  gitBranch?: string;
  /** Recorded as `entrypoint`; default `engram`. */
  entrypoint?: string;
  /** Set for forked and sub-agent transcripts: lines get `isSidechain: true` and this `agentId`. */
  agentId?: string;
  /** The uuid to continue from when appending to an existing transcript (a resumed session). */
  parentUuid?: string | null;
  clock?: Clock;
  newUuid?: () => string;
}

export interface SessionTranscriptOptions extends Omit<TranscriptWriterOptions, 'file' | 'cwd'> {
  dataDir: string;
  /** The project's absolute path: picks `projects/<key>/` and is recorded as `cwd`. */
  projectPath: string;
}

/** What the model call reported for the message a block belongs to, at the time the block completed. */
export interface AssistantMessageInfo {
  id: string;
  model: string;
  stopReason: StopReason;
  stopSequence?: string | null;
  usage: Usage;
  requestId?: string;
}

export interface CompactBoundaryInfo {
  trigger: 'manual' | 'auto';
  preTokens: number;
  /** Session-memory compaction keeps old lines in place instead of copying them (see normalise.ts). */
  preservedSegment?: { headUuid: string; anchorUuid: string; tailUuid: string };
  /** More compactMetadata fields (kept as given). */
  extra?: Record<string, unknown>;
}

export interface SystemLineInfo {
  subtype: string;
  content?: string;
  level?: 'info' | 'warning' | 'error';
  isMeta?: boolean;
  /** Further fields, e.g. an api_error's `error`, `retryInMs`, `retryAttempt`, `maxRetries`. */
  fields?: Record<string, unknown>;
}

const DEFAULT_ENTRYPOINT = 'engram';

/** The fields Claude Code writes at the end of every conversation line. */
interface LineTail {
  userType: 'external';
  entrypoint: string;
  cwd: string;
  sessionId: string;
  version: string;
  gitBranch?: string;
}
/** Claude Code marks lines it made up (not model output) with this model name. */
export const SYNTHETIC_MODEL = '<synthetic>';

export class TranscriptWriter {
  readonly file: string;
  private readonly opts: TranscriptWriterOptions;
  private last: string | null;
  private promptId: string | undefined;
  /** tool_use id -> uuid of the assistant line that holds it, to hang its result off that line. */
  private readonly toolUseLines = new Map<string, string>();
  private readonly appender: TranscriptAppender;

  constructor(opts: TranscriptWriterOptions) {
    this.opts = opts;
    this.file = opts.file;
    this.last = opts.parentUuid ?? null;
    this.appender = new TranscriptAppender(opts.file);
  }

  /** Why the newest write failed, until a later one gets it on disk: lines a resume would not see. */
  get failure(): Error | undefined {
    return this.appender.failure;
  }

  /** Bytes this writer appended to the file (a session tells its own lines from another writer's by it). */
  get appendedBytes(): number {
    return this.appender.appendedBytes;
  }

  /** The uuid the next line will hang off. */
  get lastUuid(): string | null {
    return this.last;
  }

  /** Continue the chain from another line (e.g. after rewinding to an earlier message). */
  setParent(uuid: string | null): void {
    this.last = uuid;
  }

  /** A user prompt (a new prompt id unless `isMeta`, which belongs to the current prompt). */
  appendUserPrompt(
    content: string | UserBlock[],
    opts: { promptId?: string; isMeta?: boolean; permissionMode?: string } = {},
  ): Promise<UserLine> {
    if (!opts.isMeta || opts.promptId) this.promptId = opts.promptId ?? this.uuid();
    else this.promptId ??= this.uuid();
    const line = {
      ...this.head(),
      promptId: this.promptId,
      type: 'user' as const,
      message: { role: 'user' as const, content },
      ...(opts.isMeta ? { isMeta: true } : {}),
      ...this.idAndTime(),
      ...(opts.permissionMode ? { permissionMode: opts.permissionMode } : {}),
      ...this.tail(),
    };
    return this.append(line);
  }

  /** One streamed content block of an assistant message: one line per block, all sharing `message.id`. */
  appendAssistantBlock(info: AssistantMessageInfo, block: AssistantBlock): Promise<AssistantLine> {
    const line = {
      ...this.head(),
      message: {
        id: info.id,
        type: 'message' as const,
        role: 'assistant' as const,
        model: info.model,
        content: [block],
        stop_reason: info.stopReason,
        stop_sequence: info.stopSequence ?? null,
        usage: info.usage,
      },
      ...(info.requestId ? { requestId: info.requestId } : {}),
      type: 'assistant' as const,
      ...this.idAndTime(),
      ...this.tail(),
    };
    if (block.type === 'tool_use') this.toolUseLines.set(block.id, line.uuid);
    return this.append(line);
  }

  /**
   * One tool result (Claude Code writes one line per result). `toolUseResult` is the tool's structured
   * output for the UI; `extra` blocks (e.g. an image) follow the result in the same message.
   */
  appendToolResult(
    result: ToolResultBlock,
    opts: { toolUseResult?: unknown; extra?: UserBlock[]; repeat?: RepeatMark } = {},
  ): Promise<UserLine> {
    const source = this.toolUseLines.get(result.tool_use_id);
    const line = {
      parentUuid: source ?? this.last,
      isSidechain: this.opts.agentId !== undefined,
      ...(this.opts.agentId !== undefined ? { agentId: this.opts.agentId } : {}),
      ...(this.promptId ? { promptId: this.promptId } : {}),
      type: 'user' as const,
      message: { role: 'user' as const, content: [result, ...(opts.extra ?? [])] },
      ...this.idAndTime(),
      ...(opts.toolUseResult !== undefined ? { toolUseResult: opts.toolUseResult } : {}),
      // The model got the note, not this output (repeatedResults.ts): a resume sends the note again.
      ...(opts.repeat ? { engramRepeat: opts.repeat } : {}),
      ...(source ? { sourceToolAssistantUUID: source } : {}),
      ...this.tail(),
    };
    return this.append(line);
  }

  /**
   * Starts a new conversation in the same file: parentUuid null (readers stop here), the previous line
   * kept as `logicalParentUuid`. The summary line follows with appendCompactSummary.
   */
  appendCompactBoundary(info: CompactBoundaryInfo): Promise<SystemLine> {
    const logicalParent = this.last;
    this.last = null;
    return this.appendSystemLine({
      subtype: 'compact_boundary',
      content: 'Conversation compacted',
      level: 'info',
      isMeta: false,
      logicalParentUuid: logicalParent,
      fields: {
        compactMetadata: {
          trigger: info.trigger,
          preTokens: info.preTokens,
          ...(info.preservedSegment ? { preservedSegment: info.preservedSegment } : {}),
          ...info.extra,
        },
      },
    });
  }

  /**
   * The user line that opens a compacted conversation. `uuid` lets the boundary written just before
   * name this line as its preservedSegment anchor.
   */
  appendCompactSummary(text: string, opts: { uuid?: string } = {}): Promise<UserLine> {
    const line = {
      ...this.head(),
      ...(this.promptId ? { promptId: this.promptId } : {}),
      type: 'user' as const,
      message: { role: 'user' as const, content: text },
      isVisibleInTranscriptOnly: true,
      isCompactSummary: true,
      ...this.idAndTime(),
      ...(opts.uuid ? { uuid: opts.uuid } : {}),
      ...this.tail(),
    };
    return this.append(line);
  }

  /** Informational and api_error system lines (never sent to the model). */
  appendSystem(info: SystemLineInfo): Promise<SystemLine> {
    return this.appendSystemLine(info);
  }

  /**
   * A request that failed for good, shown in the conversation as Claude Code does: a synthetic assistant
   * line marked `isApiErrorMessage` (readers leave it out of requests).
   */
  appendApiError(text: string, fields: Record<string, unknown> = {}): Promise<AssistantLine> {
    const uuid = this.uuid();
    const line = {
      ...this.head(),
      type: 'assistant' as const,
      uuid,
      timestamp: this.now(),
      message: {
        id: this.uuid(),
        type: 'message' as const,
        role: 'assistant' as const,
        model: SYNTHETIC_MODEL,
        content: [{ type: 'text' as const, text }],
        stop_reason: 'stop_sequence' as const,
        stop_sequence: '',
        usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      },
      isApiErrorMessage: true,
      ...fields,
      ...this.tail(),
    };
    return this.append(line);
  }

  /**
   * A line written before, written again as it was (uuid, message id, content, usage) but continuing
   * the chain from here: what an undo puts back. Readers take the newest version of a uuid, so the
   * conversation gets the same messages with the same ids instead of copies under new ones.
   */
  appendCopy<T extends { uuid: string; type: string }>(line: T): Promise<T> {
    const copy = { ...line, parentUuid: this.last };
    if (line.type === 'assistant') {
      for (const b of (line as unknown as AssistantLine).message.content)
        if (b.type === 'tool_use') this.toolUseLines.set(b.id, line.uuid);
    }
    return this.append(copy);
  }

  /**
   * A line outside the conversation's chain (a pin, pinLines.ts): it has no parentUuid, and the next
   * message still hangs off the last one, so readers that do not know its type lose nothing.
   */
  appendSideLine<T extends { uuid: string; type: string }>(line: T): Promise<T> {
    return this.appender.append(line, () => {});
  }

  /** Resolves when every line appended so far is on disk. */
  flush(): Promise<void> {
    return this.appender.flush();
  }

  private appendSystemLine(info: SystemLineInfo & { logicalParentUuid?: string | null }): Promise<SystemLine> {
    const { parentUuid, ...rest } = this.head();
    const line = {
      parentUuid,
      ...(info.logicalParentUuid !== undefined ? { logicalParentUuid: info.logicalParentUuid } : {}),
      ...rest,
      type: 'system' as const,
      subtype: info.subtype,
      ...(info.content !== undefined ? { content: info.content } : {}),
      isMeta: info.isMeta ?? false,
      timestamp: this.now(),
      uuid: this.uuid(),
      level: info.level ?? 'info',
      ...info.fields,
      ...this.tail(),
    } as SystemLine; // `fields` is free-form by design (compactMetadata, api_error details)
    return this.append(line);
  }

  private head(): { parentUuid: string | null; isSidechain: boolean; agentId?: string } {
    return {
      parentUuid: this.last,
      isSidechain: this.opts.agentId !== undefined,
      ...(this.opts.agentId !== undefined ? { agentId: this.opts.agentId } : {}),
    };
  }

  private idAndTime(): { uuid: string; timestamp: string } {
    return { uuid: this.uuid(), timestamp: this.now() };
  }

  private tail(): LineTail {
    const o = this.opts;
    return {
      userType: 'external',
      entrypoint: o.entrypoint ?? DEFAULT_ENTRYPOINT,
      cwd: o.cwd,
      sessionId: o.sessionId,
      version: o.version,
      ...(o.gitBranch !== undefined ? { gitBranch: o.gitBranch } : {}),
    };
  }

  private uuid(): string {
    return (this.opts.newUuid ?? randomUUID)();
  }

  private now(): string {
    return new Date((this.opts.clock ?? systemClock).now()).toISOString();
  }

  /** Queues `line`; the chain continues from it once it could be turned into JSON. */
  private append<T extends { uuid: string }>(line: T): Promise<T> {
    return this.appender.append(line, () => {
      this.last = line.uuid;
    });
  }
}

export function openSessionTranscript(opts: SessionTranscriptOptions): TranscriptWriter {
  const { dataDir, projectPath, ...rest } = opts;
  const file =
    rest.agentId !== undefined
      ? subagentTranscriptPath(dataDir, projectPath, rest.sessionId, rest.agentId)
      : sessionTranscriptPath(dataDir, projectPath, rest.sessionId);
  return new TranscriptWriter({ ...rest, file, cwd: projectPath });
}
