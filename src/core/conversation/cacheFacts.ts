// What a transcript says about the prompt cache, for a resumed session's cost line and TTL choice: when
// the user's prompts were sent (the automatic TTL measures their pace), the last real response with its
// usage and time (the cache was written then), and whether a compaction came after it (the cached prefix
// no longer starts the conversation). Read from the end of the file, as lastMessageTime.ts does: a
// session's recent pace is in its last lines, and a 200 MB transcript is not read whole for it.
import { promises as fsp } from 'node:fs';
import { SYNTHETIC_MODEL } from './transcriptWriter';
import type { Usage } from './types';

const WINDOW = 4 * 1024 * 1024;

export interface TranscriptCacheFacts {
  /** Milliseconds since the epoch, oldest first. */
  promptTimes: number[];
  lastResponse?: { at: number; usage: Usage; model: string };
  /** A compact boundary follows the last response. */
  compactedAfter: boolean;
}

interface Line {
  type?: string;
  subtype?: string;
  timestamp?: string;
  isSidechain?: boolean;
  isMeta?: boolean;
  isCompactSummary?: boolean;
  message?: { content?: unknown; usage?: Usage; model?: string };
}

export async function readCacheFacts(file: string): Promise<TranscriptCacheFacts> {
  const handle = await fsp.open(file, 'r');
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, WINDOW);
    const { buffer } = await handle.read(Buffer.alloc(length), 0, length, size - length);
    const lines = buffer.toString('utf8').split('\n');
    return cacheFactsOf(length < size ? lines.slice(1) : lines);
  } finally {
    await handle.close();
  }
}

/** The facts of transcript lines (JSON text), oldest first; damaged lines are skipped. */
export function cacheFactsOf(lines: readonly string[]): TranscriptCacheFacts {
  const facts: TranscriptCacheFacts = { promptTimes: [], compactedAfter: false };
  for (const text of lines) {
    const line = parse(text);
    if (!line || line.isSidechain) continue;
    const at = Date.parse(line.timestamp ?? '');
    if (line.type === 'system' && /compact_boundary$/.test(line.subtype ?? '')) facts.compactedAfter = true;
    if (!Number.isFinite(at)) continue;
    if (line.type === 'user' && isPrompt(line)) facts.promptTimes.push(at);
    const usage = line.message?.usage;
    if (line.type === 'assistant' && usage && line.message?.model && line.message.model !== SYNTHETIC_MODEL) {
      facts.lastResponse = { at, usage, model: line.message.model };
      facts.compactedAfter = false;
    }
  }
  return facts;
}

/** A message the person typed: not a tool result, an engine note or a compaction summary. */
function isPrompt(line: Line): boolean {
  if (line.isMeta || line.isCompactSummary) return false;
  const content = line.message?.content;
  if (typeof content === 'string') return content.trim() !== '';
  return (
    Array.isArray(content) &&
    content.some((b: { type?: string }) => b?.type === 'text') &&
    !content.some((b: { type?: string }) => b?.type === 'tool_result')
  );
}

function parse(text: string): Line | undefined {
  if (text.trim() === '') return undefined;
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' ? (v as Line) : undefined;
  } catch {
    return undefined;
  }
}
