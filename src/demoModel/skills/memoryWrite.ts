// Saving one memory with the real tools, shared by "remember ..." and the background memory pass:
// the topic file by Write, and its line added to MEMORY.md by Write after a Read of the index (Write
// refuses to replace a file it has not seen). When the index is not known to exist it is written
// straight away; if it turns out to exist after all, it is read and written again, once.
import path from 'node:path';
import { MEMORY_INDEX_FILE } from '../../core/memory/autoMemory/memoryPaths';
import { contentFromRead, stepsOn, type DemoRequest } from '../request';
import { indexWithLine, type MemoryNote } from '../memoryNote';

export type MemoryWriteStep =
  | { next: Array<{ name: string; input: Record<string, unknown> }> }
  | { done: { topic: string; index: string; indexed: boolean } }
  | { failed: string };

const NOT_READ = /has not been read yet|was modified since it was last read/;

export function memoryWriteStep(
  req: DemoRequest,
  dir: string,
  note: MemoryNote,
  opts: { readIndexFirst: boolean },
): MemoryWriteStep {
  const index = path.join(dir, MEMORY_INDEX_FILE);
  const topic = path.join(dir, note.file);
  const reads = stepsOn(req, 'Read', index);
  const indexWrites = stepsOn(req, 'Write', index);
  const topicWrite = stepsOn(req, 'Write', topic).at(-1);
  const lastRead = reads.at(-1);
  const known = lastRead?.result && !lastRead.result.isError ? contentFromRead(lastRead.result.text) : undefined;
  const writeIndex = { name: 'Write', input: { file_path: index, content: indexWithLine(known ?? '', note) } };

  if (opts.readIndexFirst && !lastRead) return { next: [{ name: 'Read', input: { file_path: index } }] };
  if (!topicWrite) return { next: [{ name: 'Write', input: { file_path: topic, content: note.content } }, writeIndex] };
  if (!topicWrite.result) return { failed: 'the topic file was not written' };
  if (topicWrite.result.isError) return { failed: topicWrite.result.text };
  const lastWrite = indexWrites.at(-1);
  if (lastWrite?.result?.isError && NOT_READ.test(lastWrite.result.text) && indexWrites.length < 2) {
    // The index exists after all: read it, then write it with the line added.
    if (!lastRead || lastRead.round < lastWrite.round) return { next: [{ name: 'Read', input: { file_path: index } }] };
    if (known !== undefined) return { next: [writeIndex] };
  }
  return { done: { topic, index, indexed: lastWrite?.result?.isError === false } };
}
