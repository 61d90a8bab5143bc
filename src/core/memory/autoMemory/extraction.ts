// Background extraction: after a complete turn, a forked agent (same prefix, so its first call reads
// the main conversation's prompt cache) looks at the messages since its cursor and saves what is worth
// keeping, under the narrow rule of memoryPermissions.ts and at most EXTRACTION_MAX_TURNS model calls.
//
// Lifecycle of one extractor (one per main conversation):
//
//   idle --trigger(snapshot)--> running --done--> idle
//                                  |  ^
//          trigger(snapshot) ------+  |   (kept: only the newest snapshot, however many triggers)
//                                     +-- trailing run with the kept snapshot, then idle
//
// A run: find the cursor in the snapshot (gone: start from the first message); nothing new -> skip;
// the main agent saved memory in the new messages -> skip and move the cursor (it did the job, and two
// writers would fight); else fork, then stamp provenance on every topic file it wrote, make sure each
// has an index line, and move the cursor. A failed fork leaves the cursor where it was, to retry.
// With review on, the fork's Write/Edit of a topic file queue a proposal instead (pendingTools.ts), and
// nothing is stamped or indexed until the user accepts it (pendingQueue.ts).
import { randomBytes } from 'node:crypto';
import type { Agent, ForkParent } from '../../agent/agent';
import { fork } from '../../agent/forkedAgent';
import type { ApiMessage, ContentBlock, Usage } from '../../conversation/types';
import type { Logger } from '../../ports';
import { EXTRACTION_MAX_TURNS } from '../../thresholds';
import { loadMemoryIndex } from './memoryIndex';
import { isIndexName, memoryHome, type TeamMemoryScope } from './memoryPaths';
import { memoryWriteOf, extractionCanUseTool } from './memoryPermissions';
import { extractionPrompt, type ExtractionHealth } from './memoryPrompts';
import { recordTopicFile, settleIndexEntry } from './memoryWriter';
import { listPending } from './pendingQueue';
import { reviewTools } from './pendingTools';
import {
  messageKeys,
  messagesAfter,
  readCursor,
  readTranscriptTail,
  writeCursor,
  type MemoryCursor,
} from './messageCursor';

export type AutoMemoryEvent =
  /** `file` is relative to the memory folder (`team/...` for the team folder, then `team` is true). */
  | { type: 'memorySaved'; file: string; title: string; by: 'user' | 'extraction'; team?: boolean }
  /** With review on: the run queued `files` (relative to the memory folder); `waiting` items are in the queue now. */
  | { type: 'memoryPending'; files: string[]; waiting: number }
  /**
   * `matched`: per file, the message's words it matched (as typed), for the chat's attachment line;
   * `stale`: what it names that no longer exists (attached with a caveat); `skipped`: stale files left out.
   */
  | {
      type: 'memoryRecalled';
      files: string[];
      matched?: Array<{ file: string; title: string; words: string[]; stale?: string[] }>;
      skipped?: Array<{ file: string; title: string; stale: string[] }>;
    }
  | { type: 'extractionStarted'; newMessages: number; trailing: boolean }
  | { type: 'extractionDone'; saved: string[]; modelCalls: number; usage: Usage; reason: string }
  | { type: 'extractionSkipped'; reason: string }
  | { type: 'extractionFailed'; error: string };

export interface ExtractorDeps {
  /** The main conversation (its model, system prompt and tools are shared with the fork). */
  agent: Pick<Agent, 'forkContext' | 'sessionId'>;
  memoryDir: string;
  cwd: string;
  /** Where the cursor is kept between runs and sessions; in memory only when absent. */
  cursorFile?: string;
  /** The session transcript, to record real message uuids as provenance. */
  transcriptPath?: string;
  maxTurns?: number;
  /** Team memory is on: the agent may also write the team folder (secret-checked) and is told how to choose. */
  team?: TeamMemoryScope;
  /** engram.memory.extraction.review, asked at each run: on, what the agent saves waits in the review queue. */
  review?: () => boolean;
  /** The run wrote into the team folder (names relative to the memory folder). */
  onTeamWrite?(files: string[]): void;
  /** Stale and repeated entries now (health/extractionHealth.ts), told to the agent so it updates, not adds. */
  health?(): Promise<ExtractionHealth | undefined>;
  emit(event: AutoMemoryEvent): void;
  logger: Logger;
}

export const SKIP_NO_NEW_MESSAGES = 'no new messages since the last extraction';
export const SKIP_MAIN_AGENT_WROTE = 'the main agent saved memory in these messages';
export const SKIP_NO_TOOLS = 'the conversation offers no Write or Edit tool (untrusted workspace)';

export class MemoryExtractor {
  private running: Promise<void> | undefined;
  private pending: readonly ApiMessage[] | undefined;
  private cursor: MemoryCursor | undefined;
  private cursorLoaded = false;
  private readonly controller = new AbortController();

  constructor(private readonly deps: ExtractorDeps) {}

  get busy(): boolean {
    return this.running !== undefined;
  }

  /** Starts a run on this snapshot of the conversation, or keeps it for one trailing run. */
  trigger(snapshot: readonly ApiMessage[]): void {
    if (this.controller.signal.aborted) return;
    if (this.running !== undefined) {
      this.pending = snapshot;
      return;
    }
    this.running = this.loop(snapshot).finally(() => {
      this.running = undefined;
    });
  }

  /** Resolves when no run is active or waiting. */
  async idle(): Promise<void> {
    while (this.running !== undefined) await this.running;
  }

  /** Stops a running fork (it ends cleanly) and refuses new triggers. */
  dispose(): void {
    this.pending = undefined;
    this.controller.abort();
  }

  private async loop(first: readonly ApiMessage[]): Promise<void> {
    let next: readonly ApiMessage[] | undefined = first;
    let trailing = false;
    while (next && !this.controller.signal.aborted) {
      try {
        await this.runOnce(next, trailing);
      } catch (e) {
        this.deps.logger.error('Memory extraction failed', e);
        this.deps.emit({ type: 'extractionFailed', error: e instanceof Error ? e.message : String(e) });
      }
      next = this.pending;
      this.pending = undefined;
      trailing = true;
    }
  }

  private async runOnce(snapshot: readonly ApiMessage[], trailing: boolean): Promise<void> {
    const d = this.deps;
    if (!this.cursorLoaded) {
      this.cursor = await readCursor(d.cursorFile);
      this.cursorLoaded = true;
    }
    const keys = messageKeys(snapshot);
    const { start } = messagesAfter(keys, this.cursor);
    const fresh = snapshot.slice(start);
    if (fresh.length === 0) {
      d.emit({ type: 'extractionSkipped', reason: SKIP_NO_NEW_MESSAGES });
      return;
    }
    const tail = await readTranscriptTail(d.transcriptPath);
    const endKey = keys[keys.length - 1];
    const end = { key: endKey, uuid: tail.lastUuid ?? endKey };

    if (memoryWritesIn(fresh, d.memoryDir, d.cwd).length > 0) {
      await this.moveCursor(end);
      d.emit({ type: 'extractionSkipped', reason: SKIP_MAIN_AGENT_WROTE });
      return;
    }

    const review = d.review?.() === true;
    const proposed: string[] = [];
    const context = d.agent.forkContext();
    const parent: ForkParent = {
      ...context,
      messages: snapshot,
      ...(review
        ? {
            tools: reviewTools(context.tools, {
              memoryDir: d.memoryDir,
              cwd: d.cwd,
              sessionId: d.agent.sessionId,
              messageId: end.uuid,
              onProposed: (f) => proposed.push(f),
            }),
          }
        : {}),
    };
    if (!parent.tools.some((t) => t.name === 'Write' || t.name === 'Edit')) {
      // An untrusted workspace offers no tools: a fork could not save anything.
      d.emit({ type: 'extractionSkipped', reason: SKIP_NO_TOOLS });
      return;
    }
    const index = await loadMemoryIndex(d.memoryDir);
    const team = d.team ? { ...d.team, topics: (await loadMemoryIndex(d.team.dir)).topics } : undefined;
    const waiting = review ? (await listPending(d.memoryDir)).items.map((i) => i.file) : [];
    const health = await d.health?.().catch((e: unknown) => {
      d.logger.warn(`Memory health for the extraction prompt failed: ${String(e)}`);
      return undefined;
    });
    d.emit({ type: 'extractionStarted', newMessages: fresh.length, trailing });
    const result = await fork({
      parent,
      extraUserMessage: extractionPrompt({
        memoryDir: d.memoryDir,
        newMessages: fresh.length,
        topics: index.topics,
        maxTurns: d.maxTurns,
        ...(team ? { team } : {}),
        ...(review ? { review: { waiting } } : {}),
        ...(health ? { health } : {}),
      }),
      canUseTool: extractionCanUseTool(d.memoryDir, d.cwd, { team: team !== undefined }),
      maxTurns: d.maxTurns ?? EXTRACTION_MAX_TURNS,
      signal: this.controller.signal,
      agentId: `memory-${randomBytes(6).toString('hex')}`,
    });

    // Whatever the fork managed to write is kept and accounted for, even if it failed later.
    if (review && proposed.length > 0) {
      d.emit({
        type: 'memoryPending',
        files: [...new Set(proposed)],
        waiting: (await listPending(d.memoryDir)).items.length,
      });
    }
    const written = review ? [] : memoryWritesIn(result.messages.slice(snapshot.length), d.memoryDir, d.cwd);
    const saved: string[] = [];
    for (const file of written) {
      if (isIndexName(file)) continue;
      const home = memoryHome(d.memoryDir, file);
      const entry = await recordTopicFile(home.dir, home.file, {
        originSessionId: d.agent.sessionId,
        originMessageId: end.uuid,
      });
      await settleIndexEntry(home.dir, home.file);
      saved.push(file);
      d.emit({
        type: 'memorySaved',
        file,
        title: entry?.title ?? file,
        by: 'extraction',
        ...(home.team ? { team: true } : {}),
      });
    }
    const teamWrites = written.filter((f) => memoryHome(d.memoryDir, f).team);
    if (teamWrites.length > 0) d.onTeamWrite?.(teamWrites);
    if (result.reason === 'error' || result.reason === 'cancelled') {
      d.emit({
        type: 'extractionFailed',
        error:
          result.error?.message ?? `the memory agent was ${result.reason === 'cancelled' ? 'stopped' : 'interrupted'}`,
      });
      return;
    }
    await this.moveCursor(end);
    d.emit({
      type: 'extractionDone',
      saved,
      modelCalls: result.modelCalls,
      usage: result.usage,
      reason: result.reason,
    });
  }

  private async moveCursor(end: { key: string; uuid: string }): Promise<void> {
    this.cursor = { lastMemoryMessageUuid: end.uuid, messageKey: end.key, updatedAt: new Date().toISOString() };
    try {
      await writeCursor(this.deps.cursorFile, this.cursor);
    } catch (e) {
      this.deps.logger.warn(`Could not save the memory cursor: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

/**
 * Memory files (names relative to the folder) that Write/Edit calls in `messages` changed, in order,
 * counting only calls whose result was not an error.
 */
export function memoryWritesIn(messages: readonly ApiMessage[], memoryDir: string, cwd: string): string[] {
  const failed = new Set<string>();
  const answered = new Set<string>();
  for (const m of messages) {
    if (m.role !== 'user' || typeof m.content === 'string') continue;
    for (const b of m.content) {
      if (b.type !== 'tool_result') continue;
      answered.add(b.tool_use_id);
      if (b.is_error) failed.add(b.tool_use_id);
    }
  }
  const out: string[] = [];
  for (const m of messages) {
    if (m.role !== 'assistant' || typeof m.content === 'string') continue;
    for (const b of m.content as ContentBlock[]) {
      if (b.type !== 'tool_use' || !answered.has(b.id) || failed.has(b.id)) continue;
      const target = memoryWriteOf(memoryDir, cwd, b.name, b.input);
      if (target && 'name' in target && !out.includes(target.name)) out.push(target.name);
    }
  }
  return out;
}
