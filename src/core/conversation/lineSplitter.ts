// Splits a file into lines while streaming it, so a transcript of any size is read in bounded memory
// (one chunk plus the line being assembled). Unlike readline it tells whether the last line ended with
// a newline: a missing one marks a write cut short by a crash (a torn tail). Splitting on the byte 0x0A
// is safe for UTF-8, where that byte never occurs inside a multi-byte character.
import fs from 'node:fs';

/** Read size: large enough that per-chunk overhead vanishes, small enough to stay bounded. */
const CHUNK_BYTES = 1 << 20;

/**
 * Called once per line with its bytes (`buf[start..end)`, newline excluded). `terminated` is false only
 * for a last line that has no trailing newline. `offset` is where the line starts in the file (in bytes),
 * so a caller can read it again later (readFileLine). Return false to stop reading.
 */
export type LineVisitor = (
  buf: Buffer,
  start: number,
  end: number,
  lineNo: number,
  terminated: boolean,
  offset: number,
) => boolean | void;

export interface SplitStats {
  bytes: number;
  /** Lines seen, counting a final line without a newline. */
  lines: number;
  /** True when the visitor asked to stop before the end. */
  stopped: boolean;
}

export async function splitFileLines(file: string, visit: LineVisitor): Promise<SplitStats> {
  const stream = fs.createReadStream(file, { highWaterMark: CHUNK_BYTES });
  const pending: Buffer[] = [];
  let bytes = 0;
  let lineNo = 0;
  /** Where the line being assembled from `pending` starts in the file. */
  let pendingOffset = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const chunkOffset = bytes;
      bytes += chunk.length;
      let start = 0;
      let nl = chunk.indexOf(10, start);
      while (nl !== -1) {
        lineNo++;
        let cont: boolean | void;
        if (pending.length > 0) {
          pending.push(chunk.subarray(start, nl));
          const whole = Buffer.concat(pending);
          pending.length = 0;
          cont = visit(whole, 0, whole.length, lineNo, true, pendingOffset);
        } else {
          cont = visit(chunk, start, nl, lineNo, true, chunkOffset + start);
        }
        if (cont === false) return { bytes, lines: lineNo, stopped: true };
        start = nl + 1;
        nl = chunk.indexOf(10, start);
      }
      // Copy the remainder: the stream may reuse the chunk's memory.
      if (start < chunk.length) {
        if (pending.length === 0) pendingOffset = chunkOffset + start;
        pending.push(Buffer.from(chunk.subarray(start)));
      }
    }
  } finally {
    stream.destroy();
  }
  if (pending.length > 0) {
    const whole = Buffer.concat(pending);
    lineNo++;
    visit(whole, 0, whole.length, lineNo, false, pendingOffset);
  }
  return { bytes, lines: lineNo, stopped: false };
}

/** Decodes a line, dropping a CR of CRLF files and a UTF-8 byte order mark on the first line. */
export function decodeLine(buf: Buffer, start: number, end: number, lineNo: number): string {
  if (end > start && buf[end - 1] === 13) end--;
  if (lineNo === 1 && end - start >= 3 && buf[start] === 0xef && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf) {
    start += 3;
  }
  return buf.toString('utf8', start, end);
}

/** Reused for lines read again (readFileLine), up to this size; longer ones get their own buffer. */
const SCRATCH_BYTES = 1 << 20;
let scratch: Buffer | undefined;

/**
 * The bytes `offset .. offset + length` of an open file, read again (a line splitFileLines reported).
 * The buffer is valid until the next call: decode it before reading another line.
 */
export function readFileLine(fd: number, offset: number, length: number): Buffer {
  let buf: Buffer;
  if (length > SCRATCH_BYTES) buf = Buffer.allocUnsafe(length);
  else {
    scratch ??= Buffer.allocUnsafe(SCRATCH_BYTES);
    buf = scratch;
  }
  let got = 0;
  while (got < length) {
    const n = fs.readSync(fd, buf, got, length - got, offset + got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}
