// Keeps one session's notes: decides after each main-conversation response whether they are due
// (trigger.ts), starts an update then (the forked agents that write the notes are notesUpdateRun.ts),
// records what it did (notesStateStore.ts) and tells listeners. Updates never overlap, and compaction
// can wait for a running one (waitForUpdate).
import type { ForkParent } from '../../agent/agent';
import { isErrno } from '../../fs/errno';
import type { ModelResponse } from '../../llm/modelClient';
import { silentLogger, systemClock, type Clock, type Logger } from '../../ports';
import { NOTES_WAIT_TIMEOUT_MS } from '../../thresholds';
import { usageTotal, type TokenCounter } from '../../tokens/accounting';
import type { NotesUpdateKind, SessionNotesEvent, SessionNotesListener } from './events';
import { createNotesFile, notesTokenCounter, readNotesText } from './notesFile';
import { NotesStateStore } from './notesStateStore';
import { assertEditOffered, runNotesUpdate } from './notesUpdateRun';
import type { SessionNotesPaths } from './paths';
import type { NotesState } from './stateFile';
import {
  DEFAULT_CAPS,
  DEFAULT_TEMPLATE,
  isTemplateOnly,
  loadTemplate,
  parseNotes,
  type NotesCaps,
  type ParsedNotes,
} from './template';
import { observeResponse, resolveThresholds, type TriggerDecision, type TriggerThresholds } from './trigger';

export interface SessionNotesOptions {
  paths: SessionNotesPaths;
  /** Where the user's template is looked for (`<configDir>/session-memory/config/template.md`). */
  configDir: string;
  thresholds?: Partial<TriggerThresholds>;
  caps?: Partial<NotesCaps>;
  /** Model calls per updater fork; default NOTES_UPDATER_MAX_TURNS (notesUpdateRun.ts). */
  maxTurns?: number;
  logger?: Logger;
  clock?: Clock;
  /** Counts tokens for the caps; default the exact tokenizer (loaded off the turn, on the first update). */
  countTokens?: TokenCounter;
}

/** The message an update covers: the response it was triggered by, and the context size then. */
export interface UpdateCover {
  messageId: string;
  contextTokens: number;
}

export type UpdateOutcome =
  | { status: 'done'; condensed: boolean; tokens: number }
  | { status: 'failed'; error: string }
  | { status: 'busy' }
  | { status: 'disposed' };

export interface Observation {
  decision: TriggerDecision;
  /** Set when the decision fired but no update started. */
  skipped?: 'busy' | 'disposed';
  /** The update this response started (running in the background). */
  update?: Promise<UpdateOutcome>;
}

/** Anything that can hand out a snapshot of the conversation to fork from (an Agent does). */
export interface ForkSource {
  forkContext(): ForkParent;
}

export class SessionNotes {
  readonly paths: SessionNotesPaths;
  /** When updates fire; a settings change replaces them (setThresholds). */
  thresholds: TriggerThresholds;
  readonly caps: NotesCaps;
  private readonly opts: SessionNotesOptions;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly listeners = new Set<SessionNotesListener>();
  private readonly disposers: Array<() => void> = [];
  private readonly abort = new AbortController();
  private readonly store: NotesStateStore;
  private loading: Promise<void> | undefined;
  private template = DEFAULT_TEMPLATE;
  private current: Promise<UpdateOutcome> | undefined;
  private disposed = false;
  private turnToolCalls = 0;
  private source: ForkSource | undefined;

  /** A user turn starts: 'the last turn had no tool call' is judged over the whole turn. */
  onTurnStart(): void {
    this.turnToolCalls = 0;
  }

  constructor(opts: SessionNotesOptions) {
    this.opts = opts;
    this.paths = opts.paths;
    this.thresholds = resolveThresholds(opts.thresholds);
    this.caps = { ...DEFAULT_CAPS, ...opts.caps };
    this.logger = opts.logger ?? silentLogger;
    this.clock = opts.clock ?? systemClock;
    this.store = new NotesStateStore(opts.paths, this.logger);
  }

  /** Reads the sidecar and the template once (later calls share the first read). */
  load(): Promise<void> {
    this.loading ??= (async () => {
      await this.store.load();
      this.template = (await loadTemplate(this.opts.configDir)).text;
    })();
    return this.loading;
  }

  get state(): Readonly<NotesState> {
    return this.store.state;
  }

  get updating(): boolean {
    return this.current !== undefined;
  }

  on(listener: SessionNotesListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Runs `fn` on dispose (attach.ts removes its hooks this way). */
  addDisposer(fn: () => void): void {
    this.disposers.push(fn);
  }

  /**
   * One response of the main conversation arrived: count it, and start an update when one is due. The
   * update runs in the background; its promise is returned for callers that want to wait.
   */
  async onModelResponse(
    source: ForkSource,
    response: Pick<ModelResponse, 'id' | 'usage' | 'content'>,
  ): Promise<Observation> {
    await this.load();
    const contextTokens = usageTotal(response.usage);
    const toolCalls = response.content.filter((b) => b.type === 'tool_use').length;
    this.turnToolCalls += toolCalls;
    const { state, decision } = observeResponse(
      this.store.state,
      { contextTokens, toolCalls, turnToolCalls: this.turnToolCalls },
      this.thresholds,
    );
    this.store.observed(state);
    if (!decision.fire) return { decision };
    if (this.disposed) return { decision, skipped: 'disposed' };
    // Not marked: the next response asks again, with this one's tool calls still counted.
    if (this.current !== undefined) return { decision, skipped: 'busy' };
    const update = this.runUpdate(source.forkContext(), decision.kind, { messageId: response.id, contextTokens });
    return { decision, update };
  }

  /** New settings: the next response is judged by these (the counts so far are kept). */
  setThresholds(partial: Partial<TriggerThresholds>): void {
    this.thresholds = resolveThresholds(partial);
  }

  /** The conversation that a catch-up forks from (attach.ts binds the main agent). */
  bindSource(source: ForkSource): void {
    this.source = source;
  }

  /**
   * Brings the notes up to date now, from the conversation as it is: what a session-memory compaction
   * asks for when the notes lag behind (compaction's NotesSource.catchUp). Waits for a running update
   * first, since that one may leave little to do but cannot be joined.
   */
  async catchUp(cover: UpdateCover): Promise<UpdateOutcome> {
    await this.load();
    if (!this.source) return { status: 'failed', error: 'No conversation to update the notes from.' };
    if (this.current !== undefined) await this.current;
    return this.runUpdate(this.source.forkContext(), this.store.state.initialized ? 'update' : 'init', cover);
  }

  /**
   * Updates the notes now from `parent` (a snapshot of the conversation), unless an update is running.
   * Also for an explicit "update the notes" command.
   */
  runUpdate(parent: ForkParent, kind: NotesUpdateKind, cover: UpdateCover): Promise<UpdateOutcome> {
    if (this.disposed) return Promise.resolve({ status: 'disposed' });
    if (this.current !== undefined) return Promise.resolve({ status: 'busy' });
    this.store.started(cover.contextTokens);
    const run = this.execute(parent, kind, cover).finally(() => {
      this.current = undefined;
    });
    this.current = run;
    // After `current` is set, so a listener that reacts by waiting for the update finds it running.
    this.emit({
      type: 'notesUpdateStarted',
      path: this.paths.summary,
      kind,
      contextTokens: cover.contextTokens,
      messageId: cover.messageId,
    });
    return run;
  }

  /**
   * For compaction: waits for a running update. 'idle' when none runs, 'done' when it finished in time
   * (successfully or not), 'timeout' when it is still running after `timeoutMs`.
   */
  async waitForUpdate(timeoutMs: number = NOTES_WAIT_TIMEOUT_MS): Promise<'idle' | 'done' | 'timeout'> {
    const running = this.current;
    if (!running) return 'idle';
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), Math.max(0, timeoutMs));
      timer.unref?.();
    });
    try {
      return await Promise.race([running.then(() => 'done' as const), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The notes as on disk, parsed, with the message they cover (undefined before they exist). For the
   * inspector, and for compaction: with isEmpty and waitForUpdate this is compaction's NotesSource.
   */
  async read(): Promise<{ text: string; parsed: ParsedNotes; lastSummarizedMessageId?: string } | undefined> {
    let text: string;
    try {
      text = await this.readText();
    } catch (e) {
      if (isErrno(e, 'ENOENT', 'ENOTDIR')) return undefined;
      throw e;
    }
    const cursor = this.store.state.lastSummarizedMessageId;
    return {
      text,
      parsed: parseNotes(text, await this.counter()),
      ...(cursor ? { lastSummarizedMessageId: cursor } : {}),
    };
  }

  /** True when the notes hold nothing beyond the template (compaction cannot stand on them). */
  isEmpty(text: string): boolean {
    return isTemplateOnly(text, this.template);
  }

  /** Writes the trigger counts when they changed (after a turn), so a reload carries on from them. */
  flushState(): Promise<void> {
    return this.store.flush();
  }

  /** Stops a running update and detaches; the notes and the sidecar stay on disk. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.abort.abort();
    for (const fn of this.disposers.splice(0)) {
      try {
        fn();
      } catch (e) {
        this.logger.error('Detaching the session notes failed', e);
      }
    }
    this.listeners.clear();
  }

  private async execute(parent: ForkParent, kind: NotesUpdateKind, cover: UpdateCover): Promise<UpdateOutcome> {
    const started = this.clock.now();
    const notesPath = this.paths.summary;
    try {
      assertEditOffered(parent);
      await this.ensureFile();
      const { parsed, over, condensed, agentIds, modelCalls } = await runNotesUpdate({
        parent,
        notesPath,
        caps: this.caps,
        count: await this.counter(),
        maxTurns: this.opts.maxTurns,
        signal: this.abort.signal,
        logger: this.logger,
      });
      await this.store.done(cover.messageId, condensed, this.clock.now());
      this.emit({
        type: 'notesUpdated',
        path: notesPath,
        kind,
        tokens: parsed.tokens,
        sections: parsed.sections.map((s) => ({ heading: s.heading, tokens: s.tokens })),
        condensed,
        overCap: over,
        lastSummarizedMessageId: cover.messageId,
        agentIds,
        modelCalls,
        durationMs: this.clock.now() - started,
      });
      return { status: 'done', condensed, tokens: parsed.tokens };
    } catch (e) {
      const error = e instanceof Error ? e.message : String(e);
      this.logger.warn(`Session notes ${kind} failed: ${error}`);
      await this.store.failed(error);
      this.emit({ type: 'notesUpdateFailed', path: notesPath, kind, error });
      return { status: 'failed', error };
    }
  }

  /** Creates the notes from the template unless they exist (never overwrites someone's notes). */
  private async ensureFile(): Promise<void> {
    const template = await loadTemplate(this.opts.configDir);
    this.template = template.text;
    if (await createNotesFile(this.paths, template.text))
      this.emit({ type: 'notesCreated', path: this.paths.summary, template: template.source });
  }

  private readText(): Promise<string> {
    return readNotesText(this.paths.summary);
  }

  /** Counts tokens for the caps: the one given in the options, else the exact tokenizer. */
  private counter(): Promise<TokenCounter> {
    return notesTokenCounter(this.opts.countTokens, this.logger);
  }

  private emit(event: SessionNotesEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (e) {
        this.logger.error('A session notes listener threw', e);
      }
    }
  }
}
