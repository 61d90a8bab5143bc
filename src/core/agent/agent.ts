// The main conversation: holds the message list of one session, runs a turn per user prompt through
// the shared loop, asks permissions, writes the transcript as things happen, and tells UIs by events.
// How a prompt joins the list and how the newest turn is taken back is in turnPrompt.ts; the loop
// itself (model calls and tool rounds) is queryLoop.ts.
import type { ApiMessage, SystemBlock, TextBlock, Usage, UserBlock } from '../conversation/types';
import { recordRewind } from '../conversation/rewindLine';
import type { TranscriptWriter } from '../conversation/transcriptWriter';
import type { BreakpointOptions } from '../llm/cacheBreakpoints';
import { addUsage, emptyUsage, type ModelClient, type ModelResponse, type ThinkingConfig } from '../llm/modelClient';
import type { ModelError, PromptTooLongError } from '../llm/errors';
import type { RetryOptions } from '../llm/retry';
import { silentLogger, type Logger, type PermissionPrompt } from '../ports';
import { ReadFileState } from '../tools/readFileState';
import type { PathOp } from '../fs/pathGuard';
import { searchContext, type SessionSearch } from './searchContext';
import type { Tool } from '../tools/tool';
import type { AgentEvent, AgentEventListener, TurnEndReason } from './events';
import type { ForkParent } from './forkParent';
import { HookList } from './hooks';
import { SessionPermissions, type ToolGate } from './permissions';
import { runLoop, transcriptFailure } from './queryLoop';
import { SEND_REPEATS_ONCE } from '../thresholds';
import { appendPrompt, historyBefore, promptText, turnStartOf, withAttachments, type TurnStart } from './turnPrompt';

export interface AgentOptions {
  client: ModelClient;
  model: string;
  maxTokens: number;
  thinking?: ThinkingConfig;
  /** Built once per session (systemPrompt.ts) so the cached prefix stays the same across turns. */
  system: SystemBlock[];
  tools: Tool[];
  /**
   * Tools offered after `tools`, asked for again before each model call (an MCP hub's: servers join and
   * leave while the session runs).
   */
  moreTools?(): Tool[];
  /** Untrusted workspace: no tools are offered and none runs. */
  trusted: boolean;
  permissionPrompt: PermissionPrompt;
  /**
   * Replaces the standard rule (read-only runs, the rest asks `permissionPrompt`); e.g. the CLI's
   * --allowed-tools list. Not consulted in an untrusted workspace.
   */
  gate?: ToolGate;
  cwd: string;
  sessionId: string;
  transcript?: TranscriptWriter;
  /** Opens `<sessionId>/subagents/agent-<id>.jsonl` for forked agents. */
  openSubagentTranscript?(agentId: string): TranscriptWriter;
  /** A resumed conversation (already normalised into an API-valid list). */
  messages?: ApiMessage[];
  logger?: Logger;
  retry?: Omit<RetryOptions, 'onRetry'>;
  readFiles?: ReadFileState;
  pathGuard?: (absPath: string, op: PathOp) => string | null;
  /** The engine Grep and Glob search with, and their bounds (host settings); none: JavaScript, defaults. */
  search?: SessionSearch;
  /** Reactive compaction (DESIGN 5): a shorter conversation to retry with after "prompt is too long". */
  recoverPromptTooLong?(ctx: {
    agent: Agent;
    error: PromptTooLongError;
    messages: ApiMessage[];
  }): Promise<ApiMessage[] | undefined>;
  /** Automatic compaction: runs before every model call and may return a replacement message list. */
  beforeModelCall?(ctx: ModelCallContext): Promise<ApiMessage[] | undefined>;
  /** Where the prompt-cache breakpoints of the next call go beyond the defaults (compaction knows what it trimmed). */
  cacheHints?(messages: readonly ApiMessage[]): BreakpointOptions | undefined;
  /** Repeated tool output goes to the model as a note naming the earlier call (default SEND_REPEATS_ONCE). */
  sendRepeatsOnce?: boolean;
}

export interface ModelCallContext {
  agent: Agent;
  /** The conversation about to be sent (a copy; return a new list to replace it). */
  messages: readonly ApiMessage[];
  signal: AbortSignal;
}

/** Compaction's entry points, settable after construction (the orchestrator needs the agent first). */
export type CompactionHandlers = Pick<AgentOptions, 'beforeModelCall' | 'recoverPromptTooLong' | 'cacheHints'>;

export interface TurnResult {
  reason: TurnEndReason;
  text: string;
  usage: Usage;
  modelCalls: number;
  error?: ModelError;
}

export interface ModelResponseHookContext {
  agent: Agent;
  response: ModelResponse;
  messages: readonly ApiMessage[];
}

export interface TurnOptions {
  /**
   * Text blocks stored with the prompt, after it, in the same user message and transcript line (e.g.
   * recalled memory): stored, not re-sent on the side, so later requests keep a byte-stable prefix.
   */
  attachments?: TextBlock[];
}

export interface BeforeTurnHookContext {
  agent: Agent;
  /** The prompt as given to runTurn. */
  prompt: string | UserBlock[];
  /** Its text. */
  display: string;
  /** Hooks add blocks here; they join TurnOptions.attachments. */
  attachments: TextBlock[];
  /** A model call a hook made for this turn (recall's pick): its usage and the call join the turn's. */
  sideCall(usage: Usage): void;
}

export interface TurnHookContext {
  agent: Agent;
  result: TurnResult;
  messages: readonly ApiMessage[];
}

export type { ForkParent } from './forkParent';

const UNTRUSTED_REASON = 'Tools are disabled because this workspace is not trusted.';

export class Agent {
  readonly sessionId: string;
  readonly hooks = {
    beforeTurn: new HookList<BeforeTurnHookContext>(),
    afterModelResponse: new HookList<ModelResponseHookContext>(),
    afterTurn: new HookList<TurnHookContext>(),
    /** Before a tool that may change files runs (after the gate allowed it): the turn's checkpoint. */
    beforeChange: new HookList<{ agent: Agent }>(),
  };
  readonly permissions: SessionPermissions;
  readonly readFiles: ReadFileState;
  /** Repeated tool output goes as a note (a setting: read at each turn, so a change applies from the next). */
  sendRepeatsOnce: boolean;
  private readonly opts: AgentOptions;
  private readonly logger: Logger;
  private readonly listeners = new Set<AgentEventListener>();
  private system: SystemBlock[];
  private history: ApiMessage[];
  private running: AbortController | undefined;
  private compaction: CompactionHandlers = {};
  /** Work the next model call waits for (holdModelCalls). */
  private readonly holds = new Set<Promise<unknown>>();
  /** Where the newest turn began, so it can be taken back (retry, edit); gone once the list is swapped. */
  private lastTurn: TurnStart | undefined;
  /** The transcript line of the newest turn's prompt (its checkpoint names it). */
  promptUuid: string | undefined;

  constructor(opts: AgentOptions) {
    this.opts = opts;
    this.sessionId = opts.sessionId;
    this.logger = opts.logger ?? silentLogger;
    this.system = opts.system;
    this.history = opts.messages ? opts.messages.slice() : [];
    this.readFiles = opts.readFiles ?? new ReadFileState();
    this.sendRepeatsOnce = opts.sendRepeatsOnce ?? SEND_REPEATS_ONCE;
    this.permissions = new SessionPermissions(opts.permissionPrompt, {
      asked: (call, toolName) =>
        this.emit({ type: 'permissionAsked', toolUseId: call.toolUseId, toolName, summary: call.summary }),
      answered: (call, toolName, answer) =>
        this.emit({ type: 'permissionAnswered', toolUseId: call.toolUseId, toolName, answer }),
    });
  }

  /** The conversation as it will be sent next (read-only: the loop only ever appends). */
  get messages(): readonly ApiMessage[] {
    return this.history;
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  /** The tools the next model call offers: none when untrusted, else the built-ins and then `moreTools`. */
  get offeredTools(): Tool[] {
    return this.opts.trusted ? this.allTools() : [];
  }

  private allTools(): Tool[] {
    const more = this.opts.moreTools?.() ?? [];
    return more.length > 0 ? [...this.opts.tools, ...more] : this.opts.tools;
  }

  get systemPrompt(): readonly SystemBlock[] {
    return this.system;
  }

  /** For compaction: a new system prompt (re-attached instructions) or a replaced message list. */
  setSystem(system: SystemBlock[]): void {
    this.system = system;
  }

  /** Where this conversation is recorded (compaction appends its boundary and summary lines there). */
  get transcript(): TranscriptWriter | undefined {
    return this.opts.transcript;
  }

  /**
   * Makes the model calls of this agent wait until `work` is done (its failure is its owner's to
   * report): what a tool's result sets off on disk, such as a memory's index line, is there before
   * the model is asked again.
   */
  holdModelCalls(work: Promise<unknown>): void {
    const held: Promise<unknown> = work.catch(() => undefined).finally(() => this.holds.delete(held));
    this.holds.add(held);
  }

  /** Replaces the options' beforeModelCall / recoverPromptTooLong / cacheHints (undefined fields fall back to them). */
  setCompactionHandlers(handlers: CompactionHandlers): void {
    this.compaction = { ...handlers };
  }

  replaceMessages(messages: ApiMessage[]): void {
    if (this.running) throw new Error('Cannot replace the conversation while a turn runs.');
    this.history = messages.slice();
    this.lastTurn = undefined;
    this.emit({ type: 'conversationReplaced', messages: this.history.length });
  }

  on(listener: AgentEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops the running turn; it ends with reason `cancelled` and a valid conversation. */
  cancel(): void {
    this.running?.abort();
  }

  async runTurn(prompt: string | UserBlock[], signal?: AbortSignal, options: TurnOptions = {}): Promise<TurnResult> {
    if (this.running) throw new Error('A turn is already running.');
    const controller = new AbortController();
    this.running = controller;
    const onOuterAbort = () => controller.abort();
    signal?.addEventListener('abort', onOuterAbort, { once: true });
    if (signal?.aborted) controller.abort();
    try {
      return await this.turn(prompt, controller.signal, options);
    } finally {
      signal?.removeEventListener('abort', onOuterAbort);
      this.running = undefined;
    }
  }

  /**
   * Takes back the newest turn (its prompt, the answers and every tool call with its result): the
   * conversation is again what it was before that prompt. The transcript records the rewind at once
   * (rewindLine.ts) and its next line hangs off the line before the prompt, so the dropped lines are a
   * side branch that a resume does not read, even one before the retried prompt is written. Undefined
   * when there is no turn to take back (none ran in this process, a turn runs, or a compaction swapped the list).
   */
  rewindLastTurn(): { prompt: string } | undefined {
    const start = this.lastTurn;
    const before = start && !this.running ? historyBefore(this.history, start) : undefined;
    if (!start || !before) return undefined;
    this.history = before;
    this.lastTurn = undefined;
    const transcript = this.opts.transcript;
    if (transcript) {
      void recordRewind(transcript, start.parentUuid, transcript.lastUuid).catch((e: unknown) =>
        this.logger.error('Could not write to the transcript', e),
      );
    }
    this.emit({ type: 'conversationReplaced', messages: this.history.length });
    return { prompt: start.prompt };
  }

  /** The parent side of a fork: same model, system, tools and messages, so the prefix is cached. */
  forkContext(): ForkParent {
    const o = this.opts;
    return {
      client: o.client,
      model: o.model,
      maxTokens: o.maxTokens,
      ...(o.thinking ? { thinking: o.thinking } : {}),
      system: this.system,
      tools: this.offeredTools,
      messages: this.history.slice(),
      cwd: o.cwd,
      logger: this.logger,
      ...(o.retry ? { retry: o.retry } : {}),
      ...(o.pathGuard ? { pathGuard: o.pathGuard } : {}),
      ...(o.search ? { search: o.search } : {}),
      ...(o.openSubagentTranscript ? { openSubagentTranscript: o.openSubagentTranscript } : {}),
    };
  }

  private async turn(prompt: string | UserBlock[], signal: AbortSignal, options: TurnOptions): Promise<TurnResult> {
    const o = this.opts;
    const display = promptText(prompt);
    this.emit({ type: 'turnStart', prompt: display });
    const attachments = [...(options.attachments ?? [])];
    const side = { usage: emptyUsage(), calls: 0 };
    const sideCall = (usage: Usage): void => {
      side.usage = addUsage(side.usage, usage);
      side.calls++;
    };
    await this.hooks.beforeTurn.run({ agent: this, prompt, display, attachments, sideCall }, this.logger);
    const stored = withAttachments(prompt, attachments);
    this.lastTurn = turnStartOf(this.history, o.transcript?.lastUuid ?? null, display);
    appendPrompt(this.history, stored);
    const written = o.transcript?.appendUserPrompt(stored);
    this.promptUuid = o.transcript?.lastUuid ?? undefined;
    await this.write(() => written);

    const gate: ToolGate = !o.trusted
      ? async () => ({ allow: false, reason: UNTRUSTED_REASON })
      : (o.gate ?? this.permissions.gate);
    const recover = this.compaction.recoverPromptTooLong ?? o.recoverPromptTooLong;
    const before = this.compaction.beforeModelCall ?? o.beforeModelCall;
    const hints = this.compaction.cacheHints ?? o.cacheHints;
    let result: TurnResult;
    try {
      result = await runLoop(
        {
          client: o.client,
          model: o.model,
          maxTokens: o.maxTokens,
          ...(o.thinking ? { thinking: o.thinking } : {}),
          system: this.system,
          tools: o.tools,
          ...(o.moreTools ? { toolsNow: () => this.allTools() } : {}),
          offerTools: o.trusted,
          gate,
          toolContext: {
            cwd: o.cwd,
            readFiles: this.readFiles,
            ...(o.pathGuard ? { pathGuard: o.pathGuard } : {}),
            ...searchContext(o.search),
          },
          ...(o.transcript ? { transcript: o.transcript } : {}),
          emit: (e) => this.emit(e),
          logger: this.logger,
          ...(o.retry ? { retry: o.retry } : {}),
          ...(recover ? { recoverPromptTooLong: (error, messages) => recover({ agent: this, error, messages }) } : {}),
          beforeModelCall: async (messages, s) => {
            await Promise.all([...this.holds]);
            return before?.({ agent: this, messages, signal: s });
          },
          ...(hints ? { cacheHints: hints } : {}),
          sendRepeatsOnce: this.sendRepeatsOnce,
          beforeChange: () => this.hooks.beforeChange.run({ agent: this }, this.logger),
          afterModelResponse: (response) =>
            this.hooks.afterModelResponse.run({ agent: this, response, messages: this.history }, this.logger),
        },
        this.history,
        signal,
      );
    } catch (e) {
      // Only a bug gets here (model errors are results); keep the conversation usable anyway.
      this.logger.error('The agent loop failed', e);
      const message = e instanceof Error ? e.message : String(e);
      this.emit({ type: 'error', kind: 'internal', message });
      result = { reason: 'error', text: '', usage: { input_tokens: 0, output_tokens: 0 }, modelCalls: 0 };
    }
    await this.write(() => o.transcript?.flush());
    // A line that failed after the last model call still fails the turn (engram -p exits non-zero).
    const unsaved = result.reason === 'error' ? undefined : await transcriptFailure(o.transcript);
    if (unsaved) {
      this.emit({ type: 'error', kind: unsaved.kind, message: unsaved.message });
      result = { ...result, reason: 'error', error: unsaved };
    }
    if (side.calls > 0)
      result = { ...result, usage: addUsage(side.usage, result.usage), modelCalls: result.modelCalls + side.calls };
    this.emit({
      type: 'turnEnd',
      reason: result.reason,
      text: result.text,
      usage: result.usage,
      modelCalls: result.modelCalls,
    });
    await this.hooks.afterTurn.run({ agent: this, result, messages: this.history }, this.logger);
    return result;
  }

  private emit(event: AgentEvent): void {
    // A compaction inside a turn swaps the list: the recorded start no longer points into it.
    if (event.type === 'conversationReplaced' && this.running) this.lastTurn = undefined;
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (e) {
        this.logger.error('An agent event listener threw', e);
      }
    }
  }

  private async write(fn: () => Promise<unknown> | undefined): Promise<void> {
    try {
      await fn();
    } catch (e) {
      this.logger.error('Could not write to the transcript', e);
    }
  }
}
