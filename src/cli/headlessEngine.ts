// The memory engine for headless runs, so `engram -p` is the same engine as the Chat view: the project's
// memory index in the system prompt (and writes into the memory folder allowed), recall, session notes,
// and compaction before every model call. Background extraction costs a model call per turn, so the
// CLI runs it only when asked (--extract-memories).
import type { Agent } from '../core/agent/agent';
import type { ToolGate } from '../core/agent/permissions';
import type { SystemPromptInput } from '../core/agent/systemPrompt';
import { CompactionOrchestrator } from '../core/compaction/orchestrator';
import { attachAutoMemory, prepareAutoMemory, type AutoMemoryHandle } from '../core/memory/autoMemory/attach';
import { memoryWriteGate } from '../core/memory/autoMemory/memoryPermissions';
import { attachSessionNotes } from '../core/memory/sessionNotes/attach';
import type { SessionNotes } from '../core/memory/sessionNotes/updater';
import type { Logger } from '../core/ports';

export interface HeadlessMemory {
  /** For SessionSetup.memory. */
  systemSlot: SystemPromptInput['memory'];
  /** The tool rule, extended so the agent may write into the project's memory folder. */
  gate: ToolGate;
  dir: string;
}

export async function prepareHeadlessMemory(dataDir: string, cwd: string, gate: ToolGate): Promise<HeadlessMemory> {
  const memory = await prepareAutoMemory(dataDir, cwd);
  return { systemSlot: memory.systemSlot, gate: memoryWriteGate(memory.dir, cwd, gate), dir: memory.dir };
}

export interface HeadlessEngine {
  /** Waits for background notes and memory work, then detaches (call before the process exits). */
  finish(): Promise<void>;
}

export function attachHeadlessEngine(agent: Agent, opts: {
  dataDir: string;
  contextWindow: number;
  transcriptPath: string;
  memory?: HeadlessMemory;
  extractMemories: boolean;
  logger: Logger;
}): HeadlessEngine {
  const notes: SessionNotes = attachSessionNotes(agent, { dataDir: opts.dataDir, logger: opts.logger });
  const orchestrator = new CompactionOrchestrator({ settings: { contextWindow: opts.contextWindow }, notes, logger: opts.logger });
  const detachCompaction = orchestrator.attach(agent);
  orchestrator.on((e) => {
    if (e.type === 'compacted') opts.logger.info(`compacted (${e.event.stage}): ${e.event.tokensBefore} -> ${e.event.tokensAfter} tokens`);
    if (e.type === 'autoCompactionStopped') opts.logger.warn(`automatic compaction stopped: ${e.reason}`);
  });
  let memory: AutoMemoryHandle | undefined;
  if (opts.memory) {
    memory = attachAutoMemory(agent, {
      memoryDir: opts.memory.dir,
      transcriptPath: opts.transcriptPath,
      extraction: opts.extractMemories,
      logger: opts.logger,
    });
  }
  return {
    async finish() {
      await notes.waitForUpdate(60_000);
      await memory?.idle();
      await notes.flushState();
      memory?.dispose();
      notes.dispose();
      detachCompaction();
    },
  };
}
