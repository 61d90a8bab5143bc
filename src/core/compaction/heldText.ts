// Big texts of a transcript left on disk while a command works on its whole conversation (`engram gauge`,
// `engram compact`, the inspector's gauge of a session on disk). A session never compacted holds hundreds
// of megabytes of tool output, and holding all of it beside the tokenizer went past what a command may
// use (issue 31: 400 MB for a 200 MB transcript). So a long text in a line's content (a tool result, a
// text or thinking block, a tool call's input) and the tool's own copy of its output (`toolUseResult`) are
// not kept: the property reads the line again from the file each time it is read, parsed by the same
// rules, and gives the same value. Code that reads them needs no change and gets the same results; what
// it keeps of them (a trimmed copy, a count) is all that stays in memory. Assigning one keeps the value.
import fs from 'node:fs';
import { readLineAt, type LinePlace, type TranscriptLine } from '../conversation/transcriptReader';

/** Texts at least this long are read again when needed; shorter ones cost less than the way back to them. */
export const HOLD_CHARS = 1024;
/** Files from this size on have their long texts left on disk (ViewOptions.holdBigTexts 'big-files'). */
const HOLD_FILE_BYTES = 32 * 1024 * 1024;

/** The file read from (kept open while a command reads it) and the last line read again from it. */
let source: { file: string; fd: number; offset?: number; line?: TranscriptLine } | undefined;

type Picker = (line: TranscriptLine) => unknown;

/** Leaves the long texts of `line` (read at `place` of `file`) on disk; they read back on demand. */
export function holdBigTexts(file: string, line: TranscriptLine, place: LinePlace): void {
  if (place.length < HOLD_CHARS) return;
  const uuid = line.uuid;
  const again = (pick: Picker) => (): unknown => pick(readAgain(file, place, uuid));
  if (line.toolUseResult !== undefined && line.toolUseResult !== null)
    hold(
      line,
      'toolUseResult',
      again((l) => l.toolUseResult),
    );
  if (line.type !== 'user' && line.type !== 'assistant') return;
  const message = (line as { message: { content: unknown } }).message;
  const content = message.content;
  if (typeof content === 'string') {
    if (content.length >= HOLD_CHARS)
      hold(
        message,
        'content',
        again((l) => messageOf(l).content),
      );
    return;
  }
  if (!Array.isArray(content)) return;
  content.forEach((b: Record<string, unknown>, i) => {
    const block = (l: TranscriptLine): Record<string, unknown> =>
      (messageOf(l).content as Record<string, unknown>[])[i];
    for (const key of ['text', 'thinking'] as const)
      if (typeof b[key] === 'string' && (b[key] as string).length >= HOLD_CHARS)
        hold(
          b,
          key,
          again((l) => block(l)[key]),
        );
    if (b.type === 'tool_use' && b.input && JSON.stringify(b.input).length >= HOLD_CHARS)
      hold(
        b,
        'input',
        again((l) => block(l).input),
      );
    if (b.type !== 'tool_result') return;
    if (typeof b.content === 'string') {
      if (b.content.length >= HOLD_CHARS)
        hold(
          b,
          'content',
          again((l) => block(l).content),
        );
    } else if (Array.isArray(b.content)) {
      b.content.forEach((inner: Record<string, unknown>, j) => {
        if (typeof inner.text === 'string' && inner.text.length >= HOLD_CHARS)
          hold(
            inner,
            'text',
            again((l) => (block(l).content as Record<string, unknown>[])[j].text),
          );
      });
    }
  });
}

function messageOf(line: TranscriptLine): { content: unknown } {
  return (line as { message: { content: unknown } }).message;
}

function hold(holder: object, key: string, read: () => unknown): void {
  Object.defineProperty(holder, key, {
    enumerable: true,
    configurable: true,
    get: read,
    set(this: object, value: unknown) {
      Object.defineProperty(this, key, { value, writable: true, enumerable: true, configurable: true });
    },
  });
}

function readAgain(file: string, place: LinePlace, uuid: unknown): TranscriptLine {
  if (source?.file === file && source.offset === place.offset && source.line) return source.line;
  if (source?.file !== file) {
    releaseHeldTexts();
    source = { file, fd: fs.openSync(file, 'r') };
  }
  const line = readLineAt(source.fd, place);
  if (!line || line.uuid !== uuid)
    throw new Error(
      `${file}:${place.lineNo} changed while it was being read (the transcript was rewritten); run the command again.`,
    );
  source.offset = place.offset;
  source.line = line;
  return line;
}

/** Whether `file` is big enough to leave its long texts on disk (false when it cannot be read now). */
export async function isBigFile(file: string): Promise<boolean> {
  try {
    return (await fs.promises.stat(file)).size >= HOLD_FILE_BYTES;
  } catch {
    return false;
  }
}

/** Closes the file and forgets the line kept for repeated reads, once a command is done with a view. */
export function releaseHeldTexts(): void {
  if (source) fs.closeSync(source.fd);
  source = undefined;
}
