// A session's pins (issue 24): what the person pinned in the chat (a message or a selection of one) or
// carried from a compaction's dropped list, written to the transcript as it happens (pinLines.ts) and
// read back when the session resumes. The compaction orchestrator asks for the list before each
// summarising stage; the surfaces hear of every change.
import { randomUUID } from 'node:crypto';
import { activePins, isPinLine, type Pin, type PinLine, type PinSource } from '../conversation/pinLines';
import { forEachTranscriptLine } from '../conversation/transcriptReader';
import type { TranscriptWriter } from '../conversation/transcriptWriter';
import { systemClock, type Clock } from '../ports';

export type { Pin, PinSource };

/** The pin lines of a transcript, in file order (the reader reports the ones it could not read). */
export async function readPinLines(file: string): Promise<PinLine[]> {
  const lines: PinLine[] = [];
  await forEachTranscriptLine(file, (line) => {
    if (isPinLine(line)) lines.push(line);
  });
  return lines;
}

export class SessionPins {
  private readonly pins: Pin[];
  private readonly listeners = new Set<(pins: readonly Pin[]) => void>();

  constructor(
    private readonly writer: TranscriptWriter | undefined,
    private readonly sessionId: string,
    recorded: readonly PinLine[] = [],
    private readonly clock: Clock = systemClock,
  ) {
    this.pins = activePins(recorded);
  }

  /** The pins in force, oldest first. */
  list(): readonly Pin[] {
    return this.pins.slice();
  }

  /** Pins `text` word for word; the same text pinned twice is one pin (the first stays). */
  async add(text: string, source: PinSource): Promise<Pin> {
    const same = this.pins.find((p) => p.text === text);
    if (same) return same;
    if (text.trim() === '') throw new Error('There is no text to pin.');
    const line: PinLine = { type: 'engram-pin', op: 'add', ...this.stamp(), text, source };
    await this.writer?.appendSideLine(line);
    const pin: Pin = { id: line.uuid, at: line.timestamp, text, source };
    this.pins.push(pin);
    this.changed();
    return pin;
  }

  /** Unpins; false when no pin has that id. */
  async remove(id: string): Promise<boolean> {
    const index = this.pins.findIndex((p) => p.id === id);
    if (index < 0) return false;
    await this.writer?.appendSideLine({ type: 'engram-pin', op: 'remove', ...this.stamp(), pinUuid: id });
    this.pins.splice(index, 1);
    this.changed();
    return true;
  }

  on(listener: (pins: readonly Pin[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private stamp(): { uuid: string; timestamp: string; sessionId: string } {
    return { uuid: randomUUID(), timestamp: new Date(this.clock.now()).toISOString(), sessionId: this.sessionId };
  }

  private changed(): void {
    const now = this.list();
    for (const l of this.listeners) l(now);
  }
}
