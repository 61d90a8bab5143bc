// The Chat view's items for one window: what the person sees (their prompts, streamed answers, tool
// cards, permission prompts, notices), built from the session's agent events, with every change posted
// to the view. No vscode import: the host passes a `post` function.
import type { AgentEvent } from '../../core/host/sessions';
import type { ChatItem, HostToChat, RecalledMemory } from '../../protocol/messages';
import { clip, formatInput, turnTokens } from './chatItems';

type ToolItem = Extract<ChatItem, { kind: 'tool' }>;
export type NoticeLevel = 'info' | 'warning' | 'error';

/** Formats a host string in the person's language (vscode.l10n.t in the extension, plain `{0}` filling in tests). */
export type Translate = (message: string, ...args: Array<string | number>) => string;

const fill: Translate = (message, ...args) =>
  message.replace(/\{(\d+)\}/g, (m, i: string) => (args[Number(i)] !== undefined ? String(args[Number(i)]) : m));

/** What a person is told when a turn ends other than with an answer. */
const TURN_END_NOTICES: Partial<Record<string, [NoticeLevel, string]>> = {
  cancelled: ['info', 'Stopped.'],
  max_tokens: ['warning', 'The answer hit the output limit (engram.maxOutputTokens) and was cut.'],
  refusal: ['warning', 'The model declined to answer this request.'],
};

export class ChatItemsModel {
  private list: ChatItem[] = [];
  private nextId = 0;
  private thinking: { id: string; text: string } | undefined;
  /** Files the host linked in the chat: the only ones the view may ask to open. */
  readonly linkedPaths = new Set<string>();
  /** The action of an auth error: set an API key, or on a cloud provider, how to log in to it. */
  authAction: 'setApiKey' | 'cloudLogin' = 'setApiKey';

  constructor(
    private readonly post: (message: HostToChat) => void,
    private readonly t: Translate = fill,
  ) {}

  get items(): ChatItem[] {
    return this.list;
  }

  /** Replaces everything (a new chat, a resumed session). */
  reset(items: ChatItem[] = []): void {
    this.list = items;
    this.thinking = undefined;
  }

  /** Posts a message that is no item (a conversation rewind empties the prompt box). */
  tell(message: HostToChat): void {
    this.post(message);
  }

  find(id: string): ChatItem | undefined {
    return this.list.find((i) => i.id === id);
  }

  add(item: ChatItem): void {
    this.list.push(item);
    this.post({ type: 'item', item });
  }

  update(item: ChatItem): void {
    const index = this.list.findIndex((i) => i.id === item.id);
    if (index >= 0) this.list[index] = item;
    this.post({ type: 'item', item });
  }

  user(text: string, files: string[] = []): void {
    this.add({ kind: 'user', id: this.id(), text, ...(files.length > 0 ? { files } : {}) });
  }

  /** A local answer (`/help`, `/context`): shown, never sent to the model. */
  local(item: { kind: 'help' } | { kind: 'context'; gauge: Extract<ChatItem, { kind: 'context' }>['gauge'] }): void {
    this.add({ ...item, id: this.id() } as ChatItem);
  }

  /** The session's instruction files, one quiet line; nothing when there are none and none were skipped. */
  instructions(files: Array<{ label: string; path: string }>, skipped: boolean): void {
    if (files.length === 0 && !skipped) return;
    for (const f of files) this.linkedPaths.add(f.path);
    this.add({ kind: 'instructions', id: this.id(), files, skipped });
  }

  /**
   * Retry and edit: drops the last prompt and everything after it, returning that prompt's item (the
   * caller re-posts the list). Undefined when there is no prompt.
   */
  dropLastPrompt(): Extract<ChatItem, { kind: 'user' }> | undefined {
    const index = this.list.map((i) => i.kind).lastIndexOf('user');
    if (index < 0) return undefined;
    const item = this.list[index] as Extract<ChatItem, { kind: 'user' }>;
    this.list = this.list.slice(0, index);
    this.thinking = undefined;
    return item;
  }

  notice(level: NoticeLevel, text: string, action?: string, link?: { label: string; path: string }): void {
    if (link) this.linkedPaths.add(link.path);
    this.add({ kind: 'notice', id: this.id(), level, text, ...(action ? { action } : {}), ...(link ? { link } : {}) });
  }

  /**
   * A notice that says how things stand now ("3 memories wait for review") replaces the ones it makes
   * stale: the earlier notices with the same action are dropped. True when any was (the caller re-posts
   * the list).
   */
  dropNotices(action: string): boolean {
    const kept = this.list.filter((i) => !(i.kind === 'notice' && i.action === action));
    const dropped = kept.length !== this.list.length;
    this.list = kept;
    return dropped;
  }

  /**
   * With review on, the background agent's memories wait for the user: one line saying how many, with a
   * way there, in place of the earlier ones. True when earlier lines were dropped (re-post the list).
   */
  reviewWaiting(count: number): boolean {
    const dropped = this.dropNotices('reviewMemories');
    this.notice(
      'info',
      count === 1 ? this.t('1 memory waits for review.') : this.t('{0} memories wait for review.', count),
      'reviewMemories',
    );
    return dropped;
  }

  /** The memories recalled for the prompt just sent, under it. */
  recall(files: RecalledMemory[]): void {
    if (files.length > 0) this.add({ kind: 'recall', id: this.id(), files });
  }

  /**
   * Marks (or unmarks) one memory of a recall item not relevant; its words, or undefined when there is no
   * such memory.
   */
  markRecall(itemId: string, file: string, notRelevant: boolean): string[] | undefined {
    const item = this.find(itemId);
    const memory = item?.kind === 'recall' ? item.files.find((f) => f.file === file) : undefined;
    if (!item || item.kind !== 'recall' || !memory) return undefined;
    this.update({ ...item, files: item.files.map((f) => (f.file === file ? { ...f, notRelevant } : f)) });
    return memory.words;
  }

  toolWaiting(toolUseId: string): void {
    const tool = this.tool(toolUseId);
    if (tool) this.update({ ...tool, status: 'waiting' });
  }

  /** Streams, tool cards, permissions, errors and how a turn ended; the host handles retries and usage. */
  onAgentEvent(event: AgentEvent): void {
    switch (event.type) {
      case 'blockStart':
        if (event.block.type === 'text')
          this.add({ kind: 'assistant', id: `${event.messageId}:${event.index}`, text: '', streaming: true });
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
        this.add({
          kind: 'tool',
          id: `tool-${event.id}`,
          name: event.name,
          summary: event.summary,
          input: formatInput(event.input),
          status: 'running',
        });
        break;
      case 'permissionAnswered': {
        const tool = this.tool(event.toolUseId);
        if (tool && event.answer !== 'deny') this.update({ ...tool, status: 'running' });
        break;
      }
      case 'toolResult': {
        const tool = this.tool(event.id);
        if (tool) {
          const denied =
            tool.status === 'waiting' ||
            this.list.some((i) => i.kind === 'permission' && i.toolUseId === event.id && i.answered === 'deny');
          this.update({
            ...tool,
            result: clip(event.content),
            status: denied ? 'denied' : event.isError ? 'error' : 'done',
          });
        }
        break;
      }
      case 'assistantMessage':
        this.flushThinking();
        break;
      case 'error':
        this.notice('error', event.message, event.kind === 'auth' ? this.authAction : undefined);
        break;
      case 'turnEnd': {
        this.flushThinking();
        const words = TURN_END_NOTICES[event.reason];
        if (words) this.notice(words[0], this.t(words[1]));
        this.add({ kind: 'turn', id: this.id(), ...(event.modelCalls > 0 ? { tokens: turnTokens(event.usage) } : {}) });
        break;
      }
      default:
        break;
    }
  }

  /** A turn ended however it ended: nothing streams or runs any more. */
  finishStreaming(): void {
    for (const item of this.list) {
      if (item.kind === 'assistant' && item.streaming) this.update({ ...item, streaming: false });
      if (item.kind === 'tool' && (item.status === 'running' || item.status === 'waiting'))
        this.update({ ...item, status: 'error', result: item.result ?? 'Not finished.' });
    }
  }

  private tool(toolUseId: string): ToolItem | undefined {
    const item = this.find(`tool-${toolUseId}`);
    return item?.kind === 'tool' ? item : undefined;
  }

  private flushThinking(): void {
    if (this.thinking?.text) this.add({ kind: 'thinking', id: this.thinking.id, text: this.thinking.text });
    this.thinking = undefined;
  }

  private appendText(id: string, delta: string): void {
    const item = this.find(id);
    if (item?.kind !== 'assistant') return;
    item.text += delta;
    this.post({ type: 'textDelta', id, delta });
  }

  private id(): string {
    return `i${++this.nextId}`;
  }
}
