// File helpers shared by Read, Write, Edit and Grep: binary detection, staleness checks, atomic writes.
import { createHash, randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { ReadFileState } from './readFileState';
import { isErrno } from './toolSupport';

const IMAGE_EXTENSIONS = new Set(['.png', '.jpg', '.jpeg', '.gif', '.webp', '.bmp', '.ico', '.tif', '.tiff', '.heic', '.avif', '.psd']);

const BINARY_EXTENSIONS = new Set([
  '.zip', '.gz', '.tgz', '.bz2', '.xz', '.7z', '.rar', '.tar', '.zst', '.jar', '.war', '.vsix',
  '.exe', '.dll', '.so', '.dylib', '.o', '.a', '.lib', '.obj', '.class', '.pyc', '.pyo', '.wasm', '.node', '.bin',
  '.pdf', '.doc', '.docx', '.xls', '.xlsx', '.ppt', '.pptx', '.odt', '.ods',
  '.mp3', '.mp4', '.wav', '.ogg', '.flac', '.avi', '.mov', '.mkv', '.webm', '.m4a',
  '.ttf', '.otf', '.woff', '.woff2', '.eot', '.sqlite', '.db', '.pack', '.idx',
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

/**
 * Why a file must not be modified now, or null. A file that exists must have been read, and must not have
 * changed on disk since (mtime, or content when the mtime moved but the bytes did not).
 */
export async function staleReason(
  absPath: string,
  shown: string,
  readFiles: ReadFileState,
  current: { mtimeMs: number; content?: Buffer },
): Promise<string | null> {
  const rec = readFiles.get(absPath);
  if (!rec) {
    return `File ${shown} has not been read yet. Read it first, then retry.`;
  }
  if (rec.mtimeMs === current.mtimeMs) return null;
  if (rec.contentHash) {
    const content = current.content ?? (await fsp.readFile(absPath));
    if (sha1(content) === rec.contentHash) return null;
  }
  return `File ${shown} was modified since it was last read (by the user or another process). Read it again, then retry.`;
}

/**
 * Writes a file atomically: a temp file in the same directory, then a rename, so a crash or a concurrent
 * reader never sees half a file. Follows a symlink at the target so the link itself is kept, and keeps
 * the existing file's permission bits. Returns the new mtime.
 */
export async function writeFileAtomic(absPath: string, data: string | Buffer): Promise<number> {
  let target = absPath;
  let mode: number | undefined;
  try {
    target = await fsp.realpath(absPath);
    mode = (await fsp.stat(target)).mode & 0o7777;
  } catch (err) {
    if (!isErrno(err, 'ENOENT')) throw err;
    await fsp.mkdir(path.dirname(absPath), { recursive: true });
  }
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await fsp.writeFile(tmp, data, { flag: 'wx', mode: mode ?? 0o666 });
    if (mode !== undefined) await fsp.chmod(tmp, mode); // writeFile's mode is filtered by the umask
    await fsp.rename(tmp, target);
  } catch (err) {
    await fsp.rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
  return (await fsp.stat(target)).mtimeMs;
}
