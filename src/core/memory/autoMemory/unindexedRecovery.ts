// Topic files that no MEMORY.md line points to. A writer that stopped between writing a topic file and
// its index line (a crash, a kill, a cancelled turn in an older version) leaves one: never loaded, never
// recalled, and no later session would know of it. Each session, as it opens, gives every such file
// with sound front matter its line, marks its origin `recovered` when it has none (no session can be
// named for it), and says so; a file whose front matter is broken is reported and left alone, since a
// line built from it would be a guess. The loader already skips hidden folders (.trash, .pending) and
// keeps the team folder apart; the team folder is recovered into its own index.
import path from 'node:path';
import { readMemoryFile } from './memoryFiles';
import type { MemoryIndex } from './memoryIndex';
import { RECOVERED_ORIGIN, recordTopicFile } from './memoryWriter';
import { parseTopicFile } from './topicFile';

export interface Recovery {
  /** What a person is told, one line per file indexed. */
  notices: string[];
  /** Files left unindexed, and why. */
  problems: string[];
}

/**
 * Indexes the unindexed topic files of `index` that have sound front matter; `label` names the index
 * (MEMORY.md, team/MEMORY.md).
 */
export async function recoverUnindexed(index: MemoryIndex, label: string): Promise<Recovery> {
  const recovery: Recovery = { notices: [], problems: [] };
  for (const file of index.unindexed) {
    const problem = await frontMatterProblem(index.dir, file);
    if (problem) {
      recovery.problems.push(
        `${file} has no ${label} line and was not indexed: ${problem}. Fix it and add its line, or delete it.`,
      );
      continue;
    }
    try {
      const entry = await recordTopicFile(index.dir, file, { originSessionId: RECOVERED_ORIGIN });
      if (entry?.added) {
        recovery.notices.push(
          `Recovered a memory: ${file} ("${entry.title}") had no ${label} line ` +
            '(a run stopped before writing it); it is indexed now.',
        );
      }
    } catch (e) {
      recovery.problems.push(
        `${file} has no ${label} line and could not be indexed: ${e instanceof Error ? e.message : String(e)}.`,
      );
    }
  }
  return recovery;
}

/** Why the file's front matter cannot give an index line, or undefined when it can. */
async function frontMatterProblem(dir: string, file: string): Promise<string | undefined> {
  let parsed;
  try {
    parsed = parseTopicFile((await readMemoryFile(dir, path.join(dir, file))).data);
  } catch (e) {
    return `it could not be read (${e instanceof Error ? e.message : String(e)})`;
  }
  if (parsed.binary) return 'it is not text';
  if (!parsed.hasFrontMatter) return parsed.warnings[0] ?? 'it has no front matter (name, description, type)';
  if (parsed.warnings.length > 0) return `its front matter is broken (${parsed.warnings.join('; ')})`;
  if (!parsed.type) return 'its front matter has no type (user, feedback, project or reference)';
  if (!parsed.description?.trim() && !parsed.name?.trim())
    return 'its front matter has neither a name nor a description';
  // What "forget" leaves when it takes everything out of a file: not a memory to bring back.
  if (parsed.body.trim() === '') return 'it holds nothing after its front matter';
  return undefined;
}
