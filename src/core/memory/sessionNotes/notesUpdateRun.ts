// One update of the session notes, run by forked agents: a fork that shares the conversation's prefix
// (so its first call reads the prompt cache) but may only Edit the notes file; then the caps are
// checked, and an update that leaves the notes too big gets exactly one more fork, told to condense.
// Apart from the updater (updater.ts), which decides when this runs and records what it did: this
// file changes when the forks' prompts, tools or limits do.
import { promises as fsp } from 'node:fs';
import type { ForkParent } from '../../agent/agent';
import { fork, type ForkResult } from '../../agent/forkedAgent';
import { decodeText, sha1 } from '../../fs/fileText';
import type { Logger } from '../../ports';
import type { TokenCounter } from '../../tokens/accounting';
import { ReadFileState } from '../../tools/readFileState';
import { readNotesText } from './notesFile';
import { notesOnlyGate } from './notesGate';
import { buildCondensePrompt, buildUpdatePrompt } from './prompts';
import { capViolations, isOverCap, parseNotes, type CapReport, type NotesCaps, type ParsedNotes } from './template';

/**
 * Model calls one updater fork may make: a reply with all its edits (the fork ends there when they all
 * applied: a closing sentence would read the whole conversation again), retries when an old_string did
 * not match, and a closing reply. More would mean it is flailing; the notes stay as they are.
 */
export const NOTES_UPDATER_MAX_TURNS = 4;

export interface NotesUpdateRunInput {
  /** A snapshot of the conversation to fork from. */
  parent: ForkParent;
  notesPath: string;
  caps: NotesCaps;
  count: TokenCounter;
  /** Model calls per fork; default NOTES_UPDATER_MAX_TURNS. */
  maxTurns?: number;
  /** Stops a running fork (the session notes were disposed). */
  signal: AbortSignal;
  logger: Logger;
}

/** The notes after the run, and what the run cost, for the updater to record and report. */
export interface NotesUpdateRunResult {
  parsed: ParsedNotes;
  /** What is still over the caps (empty when nothing is). */
  over: CapReport;
  /** A second fork condensed the notes. */
  condensed: boolean;
  agentIds: string[];
  modelCalls: number;
}

/**
 * Throws when the conversation offers no Edit tool (an untrusted workspace offers none): the fork
 * could only talk, so the model call is spared.
 */
export function assertEditOffered(parent: ForkParent): void {
  if (!parent.tools.some((t) => t.name === 'Edit')) {
    throw new Error(
      'The conversation offers no Edit tool (is the workspace untrusted?), so the notes cannot be written.',
    );
  }
}

/**
 * Runs the update fork, and the condensing one when the notes end over their caps. Throws when the
 * first fork fails or is cancelled; a condensing fork that does not finish is only logged.
 */
export async function runNotesUpdate(input: NotesUpdateRunInput): Promise<NotesUpdateRunResult> {
  const { notesPath, caps, count, logger } = input;
  const agentIds: string[] = [];
  let modelCalls = 0;
  const runFork = async (prompt: (text: string) => string): Promise<ForkResult> => {
    const result = await forkOnce(input, prompt);
    agentIds.push(result.agentId);
    modelCalls += result.modelCalls;
    return result;
  };
  failIfNotRun(await runFork((text) => buildUpdatePrompt({ notesPath, notesText: text, caps })));
  let parsed = parseNotes(await readNotesText(notesPath), count);
  let over = capViolations(parsed, caps);
  const condensed = isOverCap(over);
  if (condensed) {
    const before = over;
    const second = await runFork((text) => buildCondensePrompt({ notesPath, notesText: text, caps, over: before }));
    if (second.reason === 'error' || second.reason === 'cancelled') {
      logger.warn(`Condensing the session notes did not finish (${second.error?.message ?? second.reason}).`);
    }
    parsed = parseNotes(await readNotesText(notesPath), count);
    over = capViolations(parsed, caps);
    if (isOverCap(over))
      logger.warn(`The session notes are still over their caps after condensing: ${describeOver(over)}.`);
  }
  return { parsed, over, condensed, agentIds, modelCalls };
}

/** One fork with the notes file marked as read (the fork cannot Read, and Edit wants a prior Read). */
async function forkOnce(input: NotesUpdateRunInput, prompt: (text: string) => string): Promise<ForkResult> {
  const { parent, notesPath } = input;
  const buf = await fsp.readFile(notesPath);
  const { mtimeMs } = await fsp.stat(notesPath);
  const readFiles = new ReadFileState();
  // Date.now(), not the injected clock: Edit stamps its records with it, and the gate compares them.
  readFiles.set(notesPath, { mtimeMs, contentHash: sha1(buf), partial: false, touchedAt: Date.now() });
  return fork({
    parent,
    extraUserMessage: prompt(decodeText(buf).text),
    canUseTool: notesOnlyGate({ notesPath, cwd: parent.cwd, readFiles }),
    maxTurns: input.maxTurns ?? NOTES_UPDATER_MAX_TURNS,
    signal: input.signal,
    readFiles,
    // Every edit applied: the closing sentence would cost a second read of the whole conversation.
    stopAfterTools: (outcomes) => outcomes.length > 0 && outcomes.every((o) => !o.block.is_error),
    // So the update is one call, and its prompt (the notes, the instructions) is read by nothing later.
    cacheTail: false,
  });
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
