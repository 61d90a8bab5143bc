// What became of the memories recall attached (issue 32 item 4): when a turn ends, each memory recalled
// for it is counted "used" in the folder's use counts when the reply or the tool calls that followed
// show its references or distinctive words (the words are kept as the evidence), and each memory
// recalled for this turn or the last one that recalled any is counted "corrected" when the person's
// message corrects it; a correction also queues a proposed update of the memory in the review queue (pendingQueue.ts),
// so nothing changes without the person's yes. The decisions are turnOutcome.ts's; this file only
// listens to the session's events and writes the counts.
import path from 'node:path';
import type { AgentEvent } from '../agent/events';
import type { ApiMessage } from '../conversation/types';
import type { AutoMemoryEvent } from '../memory/autoMemory/extraction';
import { readMemoryText } from '../memory/autoMemory/memoryFiles';
import { isIndexName, memoryHome } from '../memory/autoMemory/memoryPaths';
import { pendingFor, proposeMemory } from '../memory/autoMemory/pendingQueue';
import { recordOutcome } from '../memory/autoMemory/usageCounts';
import { clip, correctedText, correctionOf, usedEvidence, type TurnTrace } from '../memory/health/turnOutcome';
import type { Logger } from '../ports';
import { redactSecrets } from '../security/secretScan';

export interface MemoryOutcomeDeps {
  memoryDir: string;
  sessionId: string;
  onAgent(listener: (event: AgentEvent) => void): () => void;
  onMemory(listener: (event: AutoMemoryEvent) => void): () => void;
  /** A correction queued a proposed update of `file` (relative to the memory folder). */
  onProposed?(file: string): void;
  logger: Logger;
  now?: () => Date;
}

export interface MemoryOutcomeHandle {
  /** Resolves when every turn heard so far has been counted (tests, shutdown). */
  idle(): Promise<void>;
  dispose(): void;
}

/** Starts listening; counts each ended turn's outcomes in the background (a failure is logged, never thrown). */
export function linkMemoryOutcome(deps: MemoryOutcomeDeps): MemoryOutcomeHandle {
  let turn: { prompt: string; recalled: string[]; reply: string[]; tools: string[] } | undefined;
  let previous: string[] = [];
  let work: Promise<void> = Promise.resolve();
  const offAgent = deps.onAgent((event) => {
    if (event.type === 'turnStart') turn = { prompt: event.prompt, recalled: [], reply: [], tools: [] };
    else if (!turn) return;
    else if (event.type === 'toolCall') turn.tools.push(`${event.name} ${JSON.stringify(event.input)}`);
    else if (event.type === 'assistantMessage' && !event.partial) turn.reply.push(textOf(event.message));
    else if (event.type === 'turnEnd') {
      const done = turn;
      turn = undefined;
      const trace: TurnTrace = { prompt: done.prompt, reply: done.reply.join('\n'), toolCalls: done.tools };
      const earlier = previous;
      if (done.recalled.length > 0) previous = done.recalled;
      const acted = event.reason !== 'cancelled' && event.reason !== 'error';
      work = work.then(() => countTurn(deps, trace, acted ? done.recalled : [], earlier));
    }
  });
  const offMemory = deps.onMemory((event) => {
    if (event.type === 'memoryRecalled' && turn) turn.recalled.push(...event.files.filter((f) => !isIndexName(f)));
  });
  return {
    idle: () => work,
    dispose: () => {
      offAgent();
      offMemory();
    },
  };
}

/** One ended turn: corrections of what this turn or the last recalled, then "used" for the rest of this turn's. */
async function countTurn(deps: MemoryOutcomeDeps, trace: TurnTrace, recalled: string[], earlier: string[]) {
  const now = deps.now?.() ?? new Date();
  for (const file of new Set([...recalled, ...earlier])) {
    try {
      const home = memoryHome(deps.memoryDir, file);
      const text = await readMemoryText(home.dir, path.join(home.dir, home.file));
      const note = correctionOf(text, trace.prompt);
      if (note) {
        // The message is kept in the counts and may become memory: a secret in it never does.
        const said = (await redactSecrets(trace.prompt)).text;
        await recordOutcome(home.dir, home.file, { corrected: clip(said, 300) }, { now, logger: deps.logger });
        await proposeCorrection(deps, file, text, said, note, now);
        continue;
      }
      if (!recalled.includes(file)) continue;
      const found = usedEvidence(text, trace);
      // Evidence is printed by engram memory check: a token the memory holds is not.
      const evidence = await Promise.all(found.map(async (w) => (await redactSecrets(w)).text));
      if (evidence.length > 0)
        await recordOutcome(home.dir, home.file, { used: evidence }, { now, logger: deps.logger });
    } catch (e) {
      deps.logger.warn(`Could not count what became of the memory ${file}: ${(e as Error).message}`);
    }
  }
}

/** Queues the memory with the correction noted (on top of a proposal already waiting for it). */
async function proposeCorrection(
  deps: MemoryOutcomeDeps,
  file: string,
  text: string,
  message: string,
  note: string,
  now: Date,
): Promise<void> {
  const waiting = await pendingFor(deps.memoryDir, file);
  const content = correctedText(waiting?.content ?? text, message, note, now);
  await proposeMemory(deps.memoryDir, { file, content, sessionId: deps.sessionId, messageId: '' }, now);
  deps.onProposed?.(file);
}

function textOf(message: ApiMessage): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n');
}
