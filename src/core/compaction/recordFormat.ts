// The part of a compaction record that is Engram's own (DESIGN 3: Claude Code's fields stay as they
// are, readers skip what they do not know). It sits under `engram` in a boundary's metadata:
//
//   microcompact_boundary  microcompactMetadata: {trigger, preTokens, compactedToolIds,   (Claude Code's)
//                            postTokens, eventId, durationMs,                          (Engram's, unversioned)
//                            engram: {v: 1, maxChars, results: [{id, keptChars, totalChars, sha1}], imagesIn?,
//                                     dropped?}}
//   compact_boundary       compactMetadata: {trigger, preTokens, preservedSegment?,     (Claude Code's)
//                            stage, postTokens, modelCalls, durationMs, eventId, reactive?,
//                            engram: {v: 1, replacedUuids, replacedMessageIds, keptFrom, summaryUuid,
//                                     focus?, summaryEdited?, dropped?, pinsCarried?, maxChars?, results?,
//                                     imagesIn?, keptInstructions?}}
//   an undo                the same line types with engram: {v: 1, undoneEventId} (a compact
//                          boundary with stage "undo" and the restored lines after it, for a summary)
//
// `results` are the tool results that were cut, each with the sha1 of its original content so a
// reader replays a cut only on the bytes it was decided on; `imagesIn` names (by one of its results)
// each message whose loose images became notes. The cuts are derived from the conversation before and
// after the stage, so whatever a stage cut (microcompact, or the kept part of a reactive compaction)
// is recorded the same way.
import { createHash } from 'node:crypto';
import type { ApiMessage, ToolResultBlock } from '../conversation/types';
import type { PinsCarried } from './pinnedBlock';
import { outputChars } from './microcompact';
import type { DroppedFacts } from './types';

export const RECORD_VERSION = 1;

export interface TrimmedResultRecord {
  /** The tool_use id the result answers. */
  id: string;
  /** Characters of output left, and there were (notes not counted): for people and the inspector. */
  keptChars: number;
  totalChars: number;
  /** sha1 (hex) of the original result's content as JSON: the replay's check that it cuts the same bytes. */
  sha1: string;
}

export interface RecordedCuts {
  /** The limit each result was cut to (the setting when it was decided). */
  maxChars: number;
  results: TrimmedResultRecord[];
  /** Messages (named by the tool_use id of their first result) whose loose images became notes. */
  imagesIn?: string[];
}

export interface EngramRecordData extends Partial<RecordedCuts> {
  v: typeof RECORD_VERSION;
  /** Summarising stages: the line uuids and response ids of what was replaced, in order. */
  replacedUuids?: string[];
  replacedMessageIds?: string[];
  /** Index (in the conversation before) of the first message kept verbatim. */
  keptFrom?: number;
  /** The summary line that opens the new conversation. */
  summaryUuid?: string;
  focus?: string;
  /** A person edited the summary (or notes) in the preview before it applied. */
  summaryEdited?: boolean;
  /** What the stage's replacement no longer carries (droppedFacts.ts); absent in older records. */
  dropped?: DroppedFacts;
  /** Pins carried after the summary: {count, tokens, cut} (pinnedBlock.ts). */
  pinsCarried?: PinsCarried;
  /** An undo: the event it undid. */
  undoneEventId?: string;
  /** The instruction files (paths) in the system prompt rebuilt after the stage; absent on older records. */
  keptInstructions?: string[];
}

export function contentSha1(block: ToolResultBlock): string {
  return createHash('sha1').update(JSON.stringify(block.content)).digest('hex');
}

/**
 * The tool results that differ between a conversation and what a stage made of it (matched by
 * tool_use id, so it works for summaries that drop messages too), and the messages that lost their
 * loose images. Undefined when nothing was cut.
 */
export function cutsBetween(
  before: readonly ApiMessage[],
  after: readonly ApiMessage[],
  maxChars: number,
): RecordedCuts | undefined {
  const originals = new Map<string, ToolResultBlock>();
  const images = new Map<string, number>();
  for (const m of before) {
    const results = resultsOf(m);
    for (const r of results) originals.set(r.tool_use_id, r);
    if (results.length > 0) images.set(results[0].tool_use_id, imageCount(m));
  }
  const results: TrimmedResultRecord[] = [];
  const imagesIn: string[] = [];
  for (const m of after) {
    const here = resultsOf(m);
    for (const b of here) {
      const o = originals.get(b.tool_use_id);
      if (!o || o === b || JSON.stringify(o.content) === JSON.stringify(b.content)) continue;
      results.push({ id: b.tool_use_id, keptChars: outputChars(b), totalChars: outputChars(o), sha1: contentSha1(o) });
    }
    const first = here[0]?.tool_use_id;
    if (first !== undefined && (images.get(first) ?? 0) > imageCount(m)) imagesIn.push(first);
  }
  if (results.length === 0 && imagesIn.length === 0) return undefined;
  return { maxChars, results, ...(imagesIn.length > 0 ? { imagesIn } : {}) };
}

function resultsOf(m: ApiMessage): ToolResultBlock[] {
  if (m.role !== 'user' || typeof m.content === 'string') return [];
  return m.content.filter((b): b is ToolResultBlock => b.type === 'tool_result');
}

function imageCount(m: ApiMessage): number {
  return typeof m.content === 'string' ? 0 : m.content.reduce((n, b) => n + (b.type === 'image' ? 1 : 0), 0);
}
