// Keeps one session's notes: decides after each main-conversation response whether they are due
// (trigger.ts), and writes them with a forked agent that shares the conversation's prefix (so its first
// call reads the prompt cache) but may only Edit the notes file. After the fork the caps are checked; an
// update that leaves the notes too big gets exactly one more fork, told to condense. Updates never
// overlap, and compaction can wait for a running one (waitForUpdate).
import { promises as fsp } from 'node:fs';
import type { ForkParent } from '../../agent/agent';
import { fork, type ForkResult } from '../../agent/forkedAgent';
import { isErrno } from '../../fs/errno';
import { decodeText, sha1 } from '../../fs/fileText';
import type { ModelResponse } from '../../llm/modelClient';
import { silentLogger, systemClock, type Clock, type Logger } from '../../ports';
import { NOTES_WAIT_TIMEOUT_MS } from '../../thresholds';
import { defaultTokenCounter, usageTotal, type TokenCounter } from '../../tokens/accounting';
import { countTokens, ensureTokenizer } from '../../tokens/tokenizer';
import { ReadFileState } from '../../tools/readFileState';
import type { NotesUpdateKind, SessionNotesEvent, SessionNotesListener } from './events';
import { notesOnlyGate } from './notesGate';
import type { SessionNotesPaths } from './paths';
import { buildCondensePrompt, buildUpdatePrompt } from './prompts';
import { initialNotesState, readNotesState, writeNotesState, type NotesState } from './stateFile';
import {
  capViolations,
  DEFAULT_CAPS,
  DEFAULT_TEMPLATE,
  isOverCap,
  isTemplateOnly,
  loadTemplate,
  parseNotes,
  type CapReport,
  type NotesCaps,
  type ParsedNotes,
} from './template';
import {
  markStarted,
  observeResponse,
  resolveThresholds,
  type TriggerDecision,
  type TriggerThresholds,
} from './trigger';
import { isFile } from '../../fs/fileKind';

/**
 * Model calls one updater fork may make: a reply with all its edits (the fork ends there when they all
 * applied: a closing sentence would read the whole conversation again), retries when an old_string did
 * not match, and a closing reply. More would mean it is flailing; the notes stay as they are.
 */
export const NOTES_UPDATER_MAX_TURNS = 4;

export interface SessionNotesOptions {
  paths: SessionNotesPaths;
  /** Where the user's template is looked for (`<configDir>/session-memory/config/template.md`). */
  configDir: string;
  thresholds?: Partial<TriggerThresholds>;
  caps?: Partial<NotesCaps>;
  /** Model calls per updater fork; default NOTES_UPDATER_MAX_TURNS. */
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
  private data: NotesState = initialNotesState();
  private loading: Promise<void> | undefined;
  private template = DEFAULT_TEMPLATE;
  private current: Promise<UpdateOutcome> | undefined;
  private writes: Promise<void> = Promise.resolve();
  private dirty = false;
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
  }

  /** Reads the sidecar and the template once (later calls share the first read). */
  load(): Promise<void> {
    this.loading ??= (async () => {
      this.data = await readNotesState(this.paths.state, await isFile(this.paths.summary));
      this.template = (await loadTemplate(this.opts.configDir)).text;
    })();
    return this.loading;
  }

  get state(): Readonly<NotesState> {
    return this.data;
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
      this.data,
      { contextTokens, toolCalls, turnToolCalls: this.turnToolCalls },
      this.thresholds,
    );
    this.data = { ...this.data, ...state };
    this.dirty = true;
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
    return this.runUpdate(this.source.forkContext(), this.data.initialized ? 'update' : 'init', cover);
  }

  /**
   * Updates the notes now from `parent` (a snapshot of the conversation), unless an update is running.
   * Also for an explicit "update the notes" command.
   */
  runUpdate(parent: ForkParent, kind: NotesUpdateKind, cover: UpdateCover): Promise<UpdateOutcome> {
    if (this.disposed) return Promise.resolve({ status: 'disposed' });
    if (this.current !== undefined) return Promise.resolve({ status: 'busy' });
    const { awaitingResults: _done, ...rest } = this.data;
    this.data = { ...rest, ...markStarted(cover.contextTokens) };
    this.dirty = true;
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
    const cursor = this.data.lastSummarizedMessageId;
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
    if (!this.dirty || !this.data.initialized) return this.writes;
    return this.saveState();
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
    const agentIds: string[] = [];
    let modelCalls = 0;
    const runFork = async (prompt: (text: string) => string): Promise<ForkResult> => {
      const result = await this.forkOnce(parent, prompt);
      agentIds.push(result.agentId);
      modelCalls += result.modelCalls;
      return result;
    };
    try {
      // Without Edit among the conversation's tools (an untrusted workspace offers none) the fork could
      // only talk; spare the model call.
      if (!parent.tools.some((t) => t.name === 'Edit')) {
        throw new Error(
          'The conversation offers no Edit tool (is the workspace untrusted?), so the notes cannot be written.',
        );
      }
      await this.ensureFile();
      const count = await this.counter();
      failIfNotRun(await runFork((text) => buildUpdatePrompt({ notesPath, notesText: text, caps: this.caps })));
      let parsed = parseNotes(await this.readText(), count);
      let over = capViolations(parsed, this.caps);
      const condensed = isOverCap(over);
      if (condensed) {
        const before = over;
        const second = await runFork((text) =>
          buildCondensePrompt({ notesPath, notesText: text, caps: this.caps, over: before }),
        );
        if (second.reason === 'error' || second.reason === 'cancelled') {
          this.logger.warn(`Condensing the session notes did not finish (${second.error?.message ?? second.reason}).`);
        }
        parsed = parseNotes(await this.readText(), count);
        over = capViolations(parsed, this.caps);
        if (isOverCap(over))
          this.logger.warn(`The session notes are still over their caps after condensing: ${describeOver(over)}.`);
      }
      const { lastError: _cleared, ...rest } = this.data;
      this.data = {
        ...rest,
        lastSummarizedMessageId: cover.messageId,
        updatedAt: new Date(this.clock.now()).toISOString(),
        updates: rest.updates + 1,
        condensed,
        condenseRuns: rest.condenseRuns + (condensed ? 1 : 0),
      };
      await this.saveState();
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
      this.data = { ...this.data, lastError: error };
      await this.saveState();
      this.emit({ type: 'notesUpdateFailed', path: notesPath, kind, error });
      return { status: 'failed', error };
    }
  }

  /** One fork with the notes file marked as read (the fork cannot Read, and Edit wants a prior Read). */
  private async forkOnce(parent: ForkParent, prompt: (text: string) => string): Promise<ForkResult> {
    const notesPath = this.paths.summary;
    const buf = await fsp.readFile(notesPath);
    const { mtimeMs } = await fsp.stat(notesPath);
    const readFiles = new ReadFileState();
    // Date.now(), not the injected clock: Edit stamps its records with it, and the gate compares them.
    readFiles.set(notesPath, { mtimeMs, contentHash: sha1(buf), partial: false, touchedAt: Date.now() });
    return fork({
      parent,
      extraUserMessage: prompt(decodeText(buf).text),
      canUseTool: notesOnlyGate({ notesPath, cwd: parent.cwd, readFiles }),
      maxTurns: this.opts.maxTurns ?? NOTES_UPDATER_MAX_TURNS,
      signal: this.abort.signal,
      readFiles,
      // Every edit applied: the closing sentence would cost a second read of the whole conversation.
      stopAfterTools: (outcomes) => outcomes.length > 0 && outcomes.every((o) => !o.block.is_error),
      // So the update is one call, and its prompt (the notes, the instructions) is read by nothing later.
      cacheTail: false,
    });
  }

  /** Creates the notes from the template unless they exist (never overwrites someone's notes). */
  private async ensureFile(): Promise<void> {
    await fsp.mkdir(this.paths.dir, { recursive: true });
    const template = await loadTemplate(this.opts.configDir);
    this.template = template.text;
    try {
      await fsp.writeFile(this.paths.summary, template.text, { flag: 'wx' });
    } catch (e) {
      if (isErrno(e, 'EEXIST')) return;
      throw e;
    }
    this.emit({ type: 'notesCreated', path: this.paths.summary, template: template.source });
  }

  private async readText(): Promise<string> {
    return decodeText(await fsp.readFile(this.paths.summary)).text;
  }

  private async counter(): Promise<TokenCounter> {
    if (this.opts.countTokens) return this.opts.countTokens;
    try {
      await ensureTokenizer();
      return countTokens;
    } catch (e) {
      this.logger.warn(
        `The tokenizer did not load; notes sizes are estimates (${e instanceof Error ? e.message : String(e)}).`,
      );
      return defaultTokenCounter;
    }
  }

  /** Sidecar writes go one at a time, each writing the state as it is when its turn comes. */
  private saveState(): Promise<void> {
    this.dirty = false;
    this.writes = this.writes.then(async () => {
      try {
        await fsp.mkdir(this.paths.dir, { recursive: true });
        await writeNotesState(this.paths.state, this.data);
      } catch (e) {
        this.dirty = true;
        this.logger.error('Could not write the session notes state', e);
      }
    });
    return this.writes;
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

function failIfNotRun(result: ForkResult): void {
  if (result.reason === 'error')
    throw new Error(`The notes updater's model call failed: ${result.error?.message ?? 'unknown error'}`);
  if (result.reason === 'cancelled') throw new Error('The notes update was cancelled.');
}

function describeOver(over: CapReport): string {
  const parts = over.sections.map((s) => `"${s.heading}" ${s.tokens} tokens`);
  if (over.file) parts.push(`file ${over.file.tokens} tokens`);
  return parts.join(', ');
}
