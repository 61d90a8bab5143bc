import * as vscode from 'vscode';
import type { Agent } from '../core/agent/agent';
import type { SessionNotes } from '../core/memory/sessionNotes/updater';
import type { AgentEvent } from '../core/agent/events';
import { projectDir } from '../core/conversation/projectKey';
import type { Logger, PermissionAnswer, PermissionPrompt, PermissionRequest } from '../core/ports';
import { COMPACTION_MARKS } from '../core/compactionMarks';
import { ConversationGauge } from '../core/tokens/conversationGauge';
import { ENGRAM_VERSION } from '../core/version';
import type { ChatItem, ChatSnapshot, GaugeState, HostToChat, PermissionChoice, SessionSummary } from '../protocol/messages';
import type { ChatBackend } from './chatBackend';
import { clip, formatInput, itemsFromMessages } from './chatItems';
import { dataDir, resolveModel, workspaceCwd, type ResolvedModel } from './engineSettings';
import type { InspectorContext } from './inspectorContext';
import { fixedPartsFor, gaugeCategories, recalledTokens } from './inspector/gaugeParts';
import { loadEngine } from './loadEngine';
import { SessionMemory } from './sessionMemory';

type ToolItem = Extract<ChatItem, { kind: 'tool' }>;

/**
 * The chat of one window: owns the Agent of the current session, turns its events into Chat view items,
 * answers permission prompts from the view, and keeps the context gauge. Built on first use.
 */
export class ChatSession implements ChatBackend, PermissionPrompt, vscode.Disposable {
  private items: ChatItem[] = [];
  private busy = false;
  private agent: Agent | undefined;
  private sessionId: string | undefined;
  private model: ResolvedModel | undefined;
  private readonly gaugeCounter = new ConversationGauge();
  private readonly emitter = new vscode.EventEmitter<HostToChat>();
  private readonly inspectorChanged = new vscode.EventEmitter<void>();
  private readonly pendingPermissions = new Map<string, (answer: PermissionAnswer) => void>();
  private agentSubscription: (() => void) | undefined;
  private nextId = 0;
  private thinking: { id: string; text: string } | undefined;
  /** Notes, auto memory and compaction of the current session. */
  private engine: SessionMemory | undefined;
  private transcriptPath: string | undefined;
  /** Files the host linked in the chat; the only ones `openPath` may open. */
  private readonly linkedPaths = new Set<string>();

  private readonly trustSubscription: vscode.Disposable;

  constructor(private readonly context: vscode.ExtensionContext, private readonly logger: Logger) {
    // An untrusted session was built without tools or project instructions: once the user trusts the
    // workspace, the next message continues the same session with both.
    this.trustSubscription = vscode.workspace.onDidGrantWorkspaceTrust(() => {
      if (!this.agent) return;
      const sessionId = this.sessionId;
      this.stop();
      this.detachAgent();
      this.resumeOnNextSend = sessionId;
      this.notice('info', 'Workspace trusted: tools and project instructions are on from your next message.');
    });
  }

  private resumeOnNextSend: string | undefined;

  onEvent(listener: (message: HostToChat) => void): vscode.Disposable {
    return this.emitter.event(listener);
  }

  gauge(): GaugeState {
    const config = vscode.workspace.getConfiguration('engram');
    // System prompt, instructions, memory index and tool schemas, sized once per system prompt.
    if (this.agent) this.gaugeCounter.setFixed(fixedPartsFor(this.agent.systemPrompt, this.agent.offeredTools));
    const breakdown = this.gaugeCounter.breakdown();
    return {
      usedTokens: this.agent ? this.gaugeCounter.used() : 0,
      window: config.get<number>('contextWindow', 200_000),
      reservedForOutput: config.get<number>('maxOutputTokens', 16_000),
      marks: COMPACTION_MARKS.map((m) => config.get<number>(`compaction.${m.setting}`, m.default)),
      breakdown: this.agent ? gaugeCategories(breakdown, { recalled: recalledTokens(this.agent.messages) }) : [],
    };
  }

  snapshot(): ChatSnapshot {
    const config = vscode.workspace.getConfiguration('engram');
    const demo = config.get<boolean>('offlineDemo', false) || process.env.ENGRAM_OFFLINE_DEMO === '1';
    return {
      sessionId: this.sessionId,
      items: this.items,
      busy: this.busy,
      gauge: this.gauge(),
      modelLabel: demo ? 'offline demo model' : (this.model?.model ?? config.get<string>('model', '')),
      trusted: vscode.workspace.isTrusted,
    };
  }

  get currentSessionId(): string | undefined {
    return this.sessionId;
  }

  async send(text: string, display = text): Promise<void> {
    if (this.busy) return;
    const trimmed = text.trim();
    if (!trimmed) return;
    if (trimmed === '/new') return this.newChat();
    const remember = /^\/remember\s+([\s\S]+)$/.exec(trimmed);
    if (remember) return this.remember(remember[1]);
    const compact = /^\/compact(?:\s+([\s\S]+))?$/.exec(trimmed);
    if (compact) {
      await this.compact(compact[1] ? 'full' : 'auto', compact[1]?.trim());
      return;
    }
    this.add({ kind: 'user', id: this.id(), text: display });
    this.setBusy(true);
    try {
      const agent = await this.ensureAgent(this.resumeOnNextSend);
      this.resumeOnNextSend = undefined;
      if (!agent) return;
      void loadEngine().appendHistory(dataDir(), { display, timestamp: Date.now(), project: workspaceCwd(), sessionId: agent.sessionId })
        .catch((e) => this.logger.warn(`Could not append to history.jsonl: ${String(e)}`));
      await agent.runTurn(text);
    } catch (error) {
      this.logger.error('The chat turn failed', error);
      this.notice('error', `Something went wrong: ${error instanceof Error ? error.message : String(error)}. See "Engram: Show Log".`);
    } finally {
      this.finishStreaming();
      this.setBusy(false);
      this.inspectorChanged.fire();
    }
  }

  stop(): void {
    this.agent?.cancel();
    for (const resolve of this.pendingPermissions.values()) resolve('deny');
    this.pendingPermissions.clear();
  }

  newChat(): void {
    this.stop();
    this.detachAgent();
    this.transcriptPath = undefined;
    this.sessionId = undefined;
    this.items = [];
    this.gaugeCounter.sync([]);
    this.emitter.fire({ type: 'snapshot', state: this.snapshot() });
    this.inspectorChanged.fire();
  }

  async resume(sessionId: string): Promise<void> {
    if (this.busy) return;
    this.newChat();
    this.setBusy(true, 'Loading the session…');
    try {
      const agent = await this.ensureAgent(sessionId);
      if (agent) {
        this.items = itemsFromMessages(agent.messages, (name, input) => this.summarize(name, input));
        this.emitter.fire({ type: 'snapshot', state: this.snapshot() });
      }
    } finally {
      this.setBusy(false);
    }
  }

  async listSessions(): Promise<SessionSummary[]> {
    const sessions = await loadEngine().listSessions(projectDir(dataDir(), workspaceCwd())).catch(() => []);
    return sessions.map((s) => ({ id: s.sessionId, title: s.firstPrompt ?? '', modified: s.mtime.getTime() }));
  }

  async openPath(path: string): Promise<void> {
    if (!this.linkedPaths.has(path)) {
      this.logger.warn(`chat: refused to open a path it did not link: ${path}`);
      return;
    }
    await vscode.window.showTextDocument(vscode.Uri.file(path), { preview: true });
  }

  /** The session notes of the current session, for compaction and the inspector. */
  get sessionNotes(): SessionNotes | undefined {
    return this.engine?.notes;
  }

  private detachAgent(): void {
    this.agentSubscription?.();
    this.agentSubscription = undefined;
    this.engine?.dispose();
    this.engine = undefined;
    this.agent = undefined;
  }

  /** The project's auto-memory folder, once a session has started. */
  get memoryDirectory(): string | undefined {
    return this.engine?.memoryDir;
  }

  /** Resolves when no background memory work runs (tests and shutdown). */
  async idleForTests(): Promise<void> {
    await this.engine?.idle();
  }

  /**
   * Compacts now (commands and `/compact [focus]`): `auto` runs the stages in order, the others one stage.
   * Not while a turn runs: the conversation is being added to.
   */
  async compact(stage: 'auto' | 'micro' | 'session-memory' | 'full', focus?: string): Promise<boolean> {
    if (this.busy) {
      this.notice('warning', 'Wait for the current answer (or stop it) before compacting.');
      return false;
    }
    if (!this.agent || this.agent.messages.length === 0) {
      this.notice('info', 'Nothing to compact yet: the conversation is empty.');
      return false;
    }
    this.setBusy(true, 'Compacting…');
    try {
      return (await this.engine?.compaction.compactNow(stage, focus)) ?? false;
    } catch (error) {
      this.logger.error('Compaction failed', error);
      this.notice('error', `Compaction failed: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    } finally {
      this.setBusy(false);
    }
  }

  /** Undoes the latest compaction (the inspector's "Undo compaction"). */
  async undoLastCompaction(): Promise<boolean> {
    if (this.busy || !this.engine) return false;
    return this.engine.compaction.undoLast();
  }

  /** "Engram: Remember" and `/remember`: the main agent writes the memory file and its index line. */
  async remember(text: string): Promise<void> {
    const trimmed = text.trim();
    if (trimmed) await this.send(loadEngine().rememberPrompt(trimmed), `Remember: ${trimmed}`);
  }

  // ---- permission prompts (the PermissionPrompt port, answered from the Chat view) ----

  ask(request: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer> {
    const id = `perm-${request.toolUseId}`;
    const tool = this.findTool(request.toolUseId);
    if (tool) this.update({ ...tool, status: 'waiting' });
    this.add({ kind: 'permission', id, toolUseId: request.toolUseId, toolName: request.toolName, summary: request.summary });
    return new Promise<PermissionAnswer>((resolve) => {
      const done = (answer: PermissionAnswer) => {
        this.pendingPermissions.delete(id);
        signal.removeEventListener('abort', onAbort);
        resolve(answer);
      };
      const onAbort = () => done('deny');
      signal.addEventListener('abort', onAbort, { once: true });
      this.pendingPermissions.set(id, done);
    });
  }

  answerPermission(requestId: string, choice: PermissionChoice): void {
    const resolve = this.pendingPermissions.get(requestId);
    const item = this.items.find((i) => i.id === requestId);
    if (!resolve || !item || item.kind !== 'permission') return;
    this.update({ ...item, answered: choice });
    resolve(choice);
  }

  // ---- the agent ----

  private async ensureAgent(resumeSessionId?: string): Promise<Agent | undefined> {
    if (this.agent) return this.agent;
    this.model = await resolveModel(this.context.secrets, this.logger);
    if (!this.model.apiKey) {
      this.notice('error', 'No Anthropic API key. Run "Engram: Set Anthropic API Key", set ANTHROPIC_API_KEY, or turn on the "engram.offlineDemo" setting to try Engram offline.', 'setApiKey');
      return undefined;
    }
    const { openSession, createAnthropicClient, prepareAutoMemory, memoryWriteGate } = loadEngine();
    const memoryEnabled = vscode.workspace.getConfiguration('engram.memory').get<boolean>('enabled', true);
    const cwd = workspaceCwd();
    const memory = memoryEnabled ? await prepareAutoMemory(dataDir(), cwd) : undefined;
    for (const warning of memory?.index.warnings ?? []) this.notice('warning', `Memory: ${warning}`);
    let agentRef: Agent | undefined;
    const sessionStart = new Date();
    const opened = await openSession({
      now: sessionStart,
      dataDir: dataDir(),
      cwd,
      ...(memory ? {
        memory: memory.systemSlot,
        // Writing into the project's memory folder is what "remember" means: no prompt for that.
        gate: memoryWriteGate(memory.dir, cwd, (tool, input, call) => agentRef!.permissions.gate(tool, input, call)),
      } : {}),
      ...(resumeSessionId ? { resumeSessionId } : {}),
      client: createAnthropicClient(this.model, this.logger),
      model: this.model.model,
      maxTokens: this.model.maxOutputTokens,
      trusted: vscode.workspace.isTrusted,
      permissionPrompt: this,
      version: ENGRAM_VERSION,
      entrypoint: 'vscode',
      logger: this.logger,
    });
    for (const warning of opened.warnings) this.notice('warning', warning);
    agentRef = opened.agent;
    this.transcriptPath = opened.transcriptPath;
    this.agent = opened.agent;
    this.sessionId = opened.sessionId;
    this.gaugeCounter.sync(opened.agent.messages);
    this.agentSubscription = opened.agent.on((event) => this.onAgentEvent(event));
    this.engine = new SessionMemory(opened.agent, { memoryDir: memory?.dir, transcriptPath: opened.transcriptPath, sessionStart }, {
      notice: (level, text, link) => this.notice(level, text, undefined, link),
      conversationRewritten: () => {
        if (this.agent) this.gaugeCounter.sync(this.agent.messages);
        this.emitter.fire({ type: 'gauge', gauge: this.gauge() });
      },
      changed: () => this.inspectorChanged.fire(),
    }, this.logger);
    this.logger.info(`Session ${opened.sessionId} (${resumeSessionId ? 'resumed' : 'new'}): ${opened.transcriptPath}`);
    return opened.agent;
  }

  private onAgentEvent(event: AgentEvent): void {
    switch (event.type) {
      case 'blockStart':
        if (event.block.type === 'text') this.add({ kind: 'assistant', id: `${event.messageId}:${event.index}`, text: '', streaming: true });
        if (event.block.type === 'thinking') this.thinking = { id: `${event.messageId}:${event.index}`, text: '' };
        break;
      case 'textDelta':
        this.appendText(`${event.messageId}:${event.index}`, event.text);
        break;
      case 'thinkingDelta':
        if (this.thinking) this.thinking.text += event.thinking;
        break;
      case 'toolCall':
        this.flushThinking();
        this.add({ kind: 'tool', id: `tool-${event.id}`, name: event.name, summary: event.summary, input: formatInput(event.input), status: 'running' });
        break;
      case 'permissionAnswered': {
        const tool = this.findTool(event.toolUseId);
        if (tool && event.answer !== 'deny') this.update({ ...tool, status: 'running' });
        break;
      }
      case 'toolResult': {
        const tool = this.findTool(event.id);
        if (tool) {
          const denied = tool.status === 'waiting' || this.items.some((i) => i.kind === 'permission' && i.toolUseId === event.id && i.answered === 'deny');
          this.update({ ...tool, result: clip(event.content), status: denied ? 'denied' : event.isError ? 'error' : 'done' });
        }
        break;
      }
      case 'assistantMessage':
        this.flushThinking();
        break;
      case 'usage':
        if (this.agent) this.gaugeCounter.onResponse(event.usage, this.agent.messages);
        this.emitter.fire({ type: 'gauge', gauge: this.gauge() });
        break;
      case 'retrying':
        this.setBusy(true, `${event.reason} Retrying in ${Math.ceil(event.delayMs / 1000)} s (attempt ${event.attempt} of ${event.maxRetries}).`);
        break;
      case 'error':
        this.notice('error', event.message, event.kind === 'auth' ? 'setApiKey' : undefined);
        break;
      case 'turnEnd':
        this.flushThinking();
        if (this.agent) this.gaugeCounter.sync(this.agent.messages);
        this.emitter.fire({ type: 'gauge', gauge: this.gauge() });
        if (event.reason === 'cancelled') this.notice('info', 'Stopped.');
        if (event.reason === 'max_tokens') this.notice('warning', 'The answer hit the output limit (engram.maxOutputTokens) and was cut.');
        if (event.reason === 'refusal') this.notice('warning', 'The model declined to answer this request.');
        break;
      default:
        break;
    }
  }

  private summarize(name: string, input: Record<string, unknown>): string {
    const tool = this.agent?.offeredTools.find((t) => t.name === name);
    try {
      return tool ? tool.summarize(input) : name;
    } catch {
      return name;
    }
  }

  private findTool(toolUseId: string): ToolItem | undefined {
    const item = this.items.find((i) => i.id === `tool-${toolUseId}`);
    return item?.kind === 'tool' ? item : undefined;
  }

  private flushThinking(): void {
    if (this.thinking?.text) this.add({ kind: 'thinking', id: this.thinking.id, text: this.thinking.text });
    this.thinking = undefined;
  }

  private finishStreaming(): void {
    for (const item of this.items) {
      if (item.kind === 'assistant' && item.streaming) this.update({ ...item, streaming: false });
      if (item.kind === 'tool' && (item.status === 'running' || item.status === 'waiting')) this.update({ ...item, status: 'error', result: item.result ?? 'Not finished.' });
    }
  }

  private appendText(id: string, delta: string): void {
    const item = this.items.find((i) => i.id === id);
    if (item?.kind !== 'assistant') return;
    item.text += delta;
    this.emitter.fire({ type: 'textDelta', id, delta });
  }

  private notice(level: 'info' | 'warning' | 'error', text: string, action?: string, link?: { label: string; path: string }): void {
    if (link) this.linkedPaths.add(link.path);
    this.add({ kind: 'notice', id: this.id(), level, text, ...(action ? { action } : {}), ...(link ? { link } : {}) });
  }

  private add(item: ChatItem): void {
    this.items.push(item);
    this.emitter.fire({ type: 'item', item });
  }

  private update(item: ChatItem): void {
    const index = this.items.findIndex((i) => i.id === item.id);
    if (index >= 0) this.items[index] = item;
    this.emitter.fire({ type: 'item', item });
  }

  private setBusy(busy: boolean, status?: string): void {
    this.busy = busy;
    this.emitter.fire({ type: 'busy', busy, ...(status ? { status } : {}) });
  }

  private id(): string {
    return `i${++this.nextId}`;
  }

  /** The live session as the Memory Inspector sees it. */
  inspectorContext(): InspectorContext {
    return {
      sessionId: this.sessionId,
      cwd: workspaceCwd(),
      dataDir: dataDir(),
      transcriptPath: this.transcriptPath,
      gauge: this.gauge(),
      notes: this.engine?.notes,
      memoryDir: this.engine?.memoryDir,
      timeline: this.engine?.timeline ?? [],
    };
  }

  /** Fires when anything the inspector shows may have changed (turn end, notes, memory, compaction). */
  onInspectorChange(listener: () => void): vscode.Disposable {
    return this.inspectorChanged.event(listener);
  }

  /** Lets the inspector link to a file from the chat too (e.g. after it opened a memory entry). */
  allowPath(path: string): void {
    this.linkedPaths.add(path);
  }

  dispose(): void {
    this.trustSubscription.dispose();
    this.stop();
    this.detachAgent();
    this.emitter.dispose();
    this.inspectorChanged.dispose();
  }
}
