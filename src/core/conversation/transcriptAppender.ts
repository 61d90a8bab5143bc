// Gets a transcript writer's lines onto disk and keeps the file whole when a write fails. Each line goes
// out in one appendFile of `JSON.stringify(line) + '\n'`, so a crash loses at most the line being written
// (the reader reports it as a torn tail). Before the first write and after a failed one, a torn last line
// gets its newline first, so the new line is not glued onto it (losing both and breaking the chain after
// them). A line whose write failed (a full disk) is written again ahead of the next one, so the chain on
// disk has no gap once writes work again; until then `failure` says why, and the agent fails the turn.
// Apart from the line format (transcriptWriter.ts): this is what changes when durability does.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { appendText, enqueue, queueTail } from './appendQueue';

export class TranscriptAppender {
  private dirMade = false;
  /** Check for a torn last line before the next write (the first one, and after a failure). */
  private checkTail = true;
  private unwritten = ''; // lines whose write failed
  private failed: Error | undefined;
  private written = 0;

  constructor(readonly file: string) {}

  /** Why the newest write failed, until a later one gets it on disk: lines a resume would not see. */
  get failure(): Error | undefined {
    return this.failed;
  }

  /** Bytes appended to the file through this appender. */
  get appendedBytes(): number {
    return this.written;
  }

  /**
   * Turns `line` into its JSONL text now (so a line that cannot be written fails at call time, and the
   * chain goes on from the previous line) and queues its write behind earlier appends to the file.
   * `onSerialised` runs once the text is made, before the write is queued.
   */
  append<T>(line: T, onSerialised: () => void): Promise<T> {
    let text: string;
    try {
      text = JSON.stringify(line) + '\n';
    } catch (e) {
      // E.g. a value nested too deep for JSON.stringify: this line can never be written. The chain
      // goes on from the previous line, which is on disk.
      const reason = e instanceof Error ? e.message : String(e);
      this.failed = new Error(`a line could not be turned into JSON (${reason})`);
      return Promise.reject(this.failed);
    }
    onSerialised();
    return enqueue(this.file, () => this.write(text)).then(() => line);
  }

  /** Resolves when every line appended so far is on disk. */
  flush(): Promise<void> {
    return queueTail(this.file);
  }

  private async write(text: string): Promise<void> {
    const out = this.unwritten + text;
    try {
      if (!this.dirMade) await fsp.mkdir(path.dirname(this.file), { recursive: true });
      this.dirMade = true;
      this.written += await appendText(this.file, out, this.checkTail);
    } catch (e) {
      this.unwritten = out;
      this.failed = e instanceof Error ? e : new Error(String(e));
      this.checkTail = true; // a failed write may have left part of a line
      throw e;
    }
    this.unwritten = '';
    this.failed = undefined;
    this.checkTail = false;
  }
}
