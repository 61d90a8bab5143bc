// What a file's bytes are: binary or text, how its text is encoded, which line endings it uses. Shared
// by the tools (Read, Write, Edit, Grep) and the memory files, so it sits below both.
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import path from 'node:path';

const IMAGE_EXTENSIONS = new Set([
  '.png',
  '.jpg',
  '.jpeg',
  '.gif',
  '.webp',
  '.bmp',
  '.ico',
  '.tif',
  '.tiff',
  '.heic',
  '.avif',
  '.psd',
]);

const BINARY_EXTENSIONS = new Set([
  '.zip',
  '.gz',
  '.tgz',
  '.bz2',
  '.xz',
  '.7z',
  '.rar',
  '.tar',
  '.zst',
  '.jar',
  '.war',
  '.vsix',
  '.exe',
  '.dll',
  '.so',
  '.dylib',
  '.o',
  '.a',
  '.lib',
  '.obj',
  '.class',
  '.pyc',
  '.pyo',
  '.wasm',
  '.node',
  '.bin',
  '.pdf',
  '.doc',
  '.docx',
  '.xls',
  '.xlsx',
  '.ppt',
  '.pptx',
  '.odt',
  '.ods',
  '.mp3',
  '.mp4',
  '.wav',
  '.ogg',
  '.flac',
  '.avi',
  '.mov',
  '.mkv',
  '.webm',
  '.m4a',
  '.ttf',
  '.otf',
  '.woff',
  '.woff2',
  '.eot',
  '.sqlite',
  '.db',
  '.pack',
  '.idx',
]);

/** How many leading bytes are checked for NUL bytes (git uses the same heuristic). */
export const BINARY_SNIFF_BYTES = 8192;

export type FileKind = 'image' | 'binary' | 'text';

export function kindByExtension(filePath: string): FileKind {
  const ext = path.extname(filePath).toLowerCase();
  if (IMAGE_EXTENSIONS.has(ext)) return 'image';
  if (BINARY_EXTENSIONS.has(ext)) return 'binary';
  return 'text';
}

export function looksBinary(buf: Uint8Array): boolean {
  const n = Math.min(buf.length, BINARY_SNIFF_BYTES);
  for (let i = 0; i < n; i++) if (buf[i] === 0) return true;
  return false;
}

/** Reads the first bytes of a file to sniff its kind without loading it. */
export async function sniffFile(filePath: string): Promise<Buffer> {
  const fh = await fsp.open(filePath, 'r');
  try {
    const buf = Buffer.alloc(BINARY_SNIFF_BYTES);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

export function sha1(text: string | Buffer): string {
  return createHash('sha1').update(text).digest('hex');
}

/** Strips a UTF-8 byte order mark; editors add it, models never type it. */
export function decodeText(buf: Buffer): { text: string; bom: boolean } {
  const bom = buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf;
  return { text: buf.toString('utf8', bom ? 3 : 0), bom };
}

/** The line ending most lines of the text use. */
export function dominantEol(text: string): '\n' | '\r\n' {
  let crlf = 0;
  let lf = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) {
    if (i > 0 && text.charCodeAt(i - 1) === 13) crlf++;
    else lf++;
  }
  return crlf > lf ? '\r\n' : '\n';
}

/** Rewrites every line ending of `text` to `eol`. */
export function withEol(text: string, eol: '\n' | '\r\n'): string {
  const lf = text.replace(/\r\n/g, '\n');
  return eol === '\n' ? lf : lf.replace(/\n/g, '\r\n');
}
