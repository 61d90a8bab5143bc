import * as vscode from 'vscode';
import type { Agent } from '../core/agent/agent';
import type { AutoMemoryHandle } from '../core/memory/autoMemory/attach';
import type { AutoMemoryEvent } from '../core/memory/autoMemory/extraction';
import type { SessionNotesEvent } from '../core/memory/sessionNotes/events';
import type { SessionNotes } from '../core/memory/sessionNotes/updater';
import type { Logger } from '../core/ports';
import { CompactionController } from './compactionController';
import { dataDir, workspaceCwd } from './engineSettings';
import type { TimelineEntry } from './inspectorContext';
import { loadEngine } from './loadEngine';

/** What the memory of a session reports back to the chat. */
export interface SessionMemoryHost {
  notice(level: 'info' | 'warning' | 'error', text: string, link?: { label: string; path: string }): void;
  /** The conversation was rewritten (a compaction or its undo): recount the gauge. */
  conversationRewritten(): void;
  /** Something the inspector shows changed. */
  changed(): void;
}

/**
 * The memory engine attached to one chat session's agent: session notes, auto memory (extraction and
 * recall) and compaction, with settings read from `engram.*`, and the timeline of what they did.
 */
export class SessionMemory implements vscode.Disposable {
  readonly notes: SessionNotes | undefined;
  readonly memory: AutoMemoryHandle | undefined;
  readonly compaction: CompactionController;
  /** Notes updates, memory writes and compactions of this session, oldest first. */
  readonly timeline: TimelineEntry[] = [];

  constructor(
    private readonly agent: Agent,
    opts: { memoryDir: string | undefined; transcriptPath: string; sessionStart: Date },
    private readonly host: SessionMemoryHost,
    private readonly logger: Logger,
  ) {
    const engine = loadEngine();
    // The tokenizer takes about a second to load: start it while the first request is on its way.
    void engine.ensureTokenizer().catch((e: unknown) => logger.warn(`Tokenizer failed to load: ${String(e)}`));
    const trusted = vscode.workspace.isTrusted;
    if (opts.memoryDir) {
      const config = vscode.workspace.getConfiguration('engram.memory');
      this.memory = engine.attachAutoMemory(agent, {
        memoryDir: opts.memoryDir,
        transcriptPath: opts.transcriptPath,
        // Extraction writes files: not in an untrusted workspace, where the agent has no tools at all.
        extraction: trusted && config.get<boolean>('extraction.enabled', true),
        everyTurns: config.get<number>('extraction.everyTurns', 1),
        recall: config.get<boolean>('recall.enabled', true),
        recallMaxFiles: config.get<number>('recall.maxFiles', 5),
        logger,
      });
      this.memory.on((event) => this.onMemoryEvent(event));
    }
    const notesConfig = vscode.workspace.getConfiguration('engram.sessionNotes');
    // In an untrusted workspace the notes updater has no Edit tool to write with.
    if (trusted && notesConfig.get<boolean>('enabled', true)) {
      this.notes = engine.attachSessionNotes(agent, {
        dataDir: dataDir(),
        thresholds: {
          initTokens: notesConfig.get<number>('initTokens', 10_000),
          growthTokens: notesConfig.get<number>('updateGrowthTokens', 5_000),
          toolCalls: notesConfig.get<number>('updateToolCalls', 3),
        },
        logger,
        onEvent: (event) => this.onNotesEvent(event),
      });
    }
    this.compaction = new CompactionController(agent, this.notes, {
      notice: (level, text) => host.notice(level, text),
      compacted: (event) => {
        this.timeline.push({ kind: 'compaction', at: event.at, event });
        void this.refreshSystemPrompt(opts.sessionStart);
        host.conversationRewritten();
        host.changed();
      },
      undone: () => {
        host.conversationRewritten();
        host.changed();
      },
    }, logger);
  }

  get memoryDir(): string | undefined {
    return this.memory?.memoryDir;
  }

  /** Resolves when no background memory work runs (tests and shutdown). */
  async idle(): Promise<void> {
    await this.memory?.idle();
    await this.notes?.waitForUpdate(15_000);
  }

  /**
   * After a compaction the prompt cache is cold anyway: rebuild the system prompt so CLAUDE.md edits and
   * memories saved since the session began are in it from the next turn on.
   */
  private async refreshSystemPrompt(sessionStart: Date): Promise<void> {
    try {
      const engine = loadEngine();
      const cwd = workspaceCwd();
      const memoryEnabled = vscode.workspace.getConfiguration('engram.memory').get<boolean>('enabled', true);
      const memory = memoryEnabled ? await engine.prepareAutoMemory(dataDir(), cwd) : undefined;
      const { system } = await engine.sessionSystemPrompt({
        cwd, dataDir: dataDir(), trusted: vscode.workspace.isTrusted, now: sessionStart,
        ...(memory ? { memory: memory.systemSlot } : {}),
      });
      if (!this.disposed) this.agent.setSystem(system);
    } catch (error) {
      this.logger.warn(`Could not refresh the system prompt after a compaction: ${String(error)}`);
    }
  }

  private onMemoryEvent(event: AutoMemoryEvent): void {
    if (event.type === 'memorySaved' || event.type === 'extractionDone' || event.type === 'extractionFailed') {
      this.timeline.push({ kind: 'memory', at: Date.now(), event });
    }
    if (event.type === 'memorySaved') {
      const who = event.by === 'user' ? 'Memory saved' : 'Memory saved in the background';
      this.host.notice('info', `${who}: ${event.title}`, { label: 'Open', path: event.file });
      this.host.changed();
    } else if (event.type === 'memoryRecalled' && event.files.length > 0) {
      this.host.notice('info', `Recalled ${event.files.length} memor${event.files.length === 1 ? 'y' : 'ies'} for this message.`);
    } else if (event.type === 'extractionFailed') {
      this.logger.warn(`Memory extraction failed: ${event.error}`);
    }
  }

  private onNotesEvent(event: SessionNotesEvent): void {
    if (event.type === 'notesUpdated' || event.type === 'notesUpdateFailed' || event.type === 'notesCreated') {
      this.timeline.push({ kind: 'notes', at: Date.now(), event });
    }
    const link = { label: 'Open notes', path: event.path };
    if (event.type === 'notesUpdated') {
      const extra = event.condensed ? ' (condensed to stay under its caps)' : '';
      this.host.notice('info', `Session notes ${event.kind === 'init' ? 'written' : 'updated'}: ${event.tokens.toLocaleString('en-US')} tokens${extra}.`, link);
      this.host.changed();
    } else if (event.type === 'notesUpdateFailed') {
      this.host.notice('warning', `Session notes could not be updated: ${event.error}`, link);
    }
  }

  private disposed = false;

  dispose(): void {
    this.disposed = true;
    this.notes?.dispose();
    this.memory?.dispose();
    this.compaction.dispose();
  }
}
