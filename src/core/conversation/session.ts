// The live conversation of one session: the API messages the agent loop sends, which transcript lines
// each came from (compaction cuts by them), and the writer that records every change as it happens.
// Messages are only appended, never rewritten in place, so the request prefix stays byte-stable for the
// prompt cache (DESIGN 8); compaction replaces the whole list through replaceAll.
import type { NormalisedEntry } from './normalise';
import type { AssistantMessageInfo, TranscriptWriter } from './transcriptWriter';
import type { ApiMessage, AssistantBlock, ToolResultBlock, UserBlock } from './types';

export class Conversation {
  private readonly list: ApiMessage[] = [];
  private readonly uuids: string[][] = [];
  private openAssistantId: string | undefined;

  constructor(private readonly writer?: TranscriptWriter, entries: readonly NormalisedEntry[] = []) {
    for (const e of entries) {
      this.list.push(e.message);
      this.uuids.push([...e.uuids]);
    }
  }

  get messages(): readonly ApiMessage[] {
    return this.list;
  }

  /** uuids of the transcript lines behind message i. */
  lineUuidsOf(i: number): readonly string[] {
    return this.uuids[i] ?? [];
  }

  async addUserPrompt(content: string | UserBlock[], opts: { isMeta?: boolean; permissionMode?: string } = {}): Promise<ApiMessage> {
    this.openAssistantId = undefined;
    const line = await this.writer?.appendUserPrompt(content, opts);
    return this.push({ role: 'user', content }, line?.uuid);
  }

  /**
   * A streamed block of the model's response: the first block of a message id opens a new assistant
   * message, later ones join it.
   */
  async addAssistantBlock(info: AssistantMessageInfo, block: AssistantBlock): Promise<void> {
    const line = await this.writer?.appendAssistantBlock(info, block);
    const last = this.list[this.list.length - 1];
    if (this.openAssistantId === info.id && last?.role === 'assistant' && Array.isArray(last.content)) {
      last.content.push(block);
      if (line) this.uuids[this.uuids.length - 1].push(line.uuid);
      return;
    }
    this.openAssistantId = info.id;
    this.push({ role: 'assistant', content: [block] }, line?.uuid);
  }

  /** All results of one assistant message: one transcript line each, one user message together. */
  async addToolResults(results: ReadonlyArray<{ block: ToolResultBlock; toolUseResult?: unknown }>): Promise<ApiMessage> {
    this.openAssistantId = undefined;
    const lineUuids: string[] = [];
    for (const r of results) {
      const line = await this.writer?.appendToolResult(r.block, { toolUseResult: r.toolUseResult });
      if (line) lineUuids.push(line.uuid);
    }
    const message: ApiMessage = { role: 'user', content: results.map((r) => r.block) };
    this.list.push(message);
    this.uuids.push(lineUuids);
    return message;
  }

  /** Compaction's result replaces the conversation (the transcript keeps the old lines). */
  replaceAll(entries: readonly NormalisedEntry[]): void {
    this.openAssistantId = undefined;
    this.list.length = 0;
    this.uuids.length = 0;
    for (const e of entries) {
      this.list.push(e.message);
      this.uuids.push([...e.uuids]);
    }
  }

  private push(message: ApiMessage, uuid: string | undefined): ApiMessage {
    this.list.push(message);
    this.uuids.push(uuid ? [uuid] : []);
    return message;
  }
}
