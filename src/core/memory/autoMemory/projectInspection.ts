// What the inspector (and `engram inspect`) shows of a data root: per project, the auto memory (index
// entries, files no line points to, problems) and the sessions (size, unreadable lines, notes,
// compactions). The root is Engram's data dir or Claude Code's config dir: the layout is the same
// (DESIGN 3). Read-only: nothing under the root is changed.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { forEachTranscriptLine } from '../../conversation/transcriptReader';
import { loadMemoryIndex } from './memoryIndex';
import { MEMORY_DIR_NAME } from './memoryPaths';
import type { MemoryType } from './topicFile';

export interface InspectedEntry {
  title: string;
  file: string;
  hook: string;
  type: MemoryType | null;
  tokens: number | null;
  loaded: boolean;
  missing: boolean;
}

export interface InspectedCompaction {
  trigger: string | null;
  preTokens: number | null;
  timestamp: string | null;
}

export interface InspectedSession {
  id: string;
  lines: number;
  corruptLines: number;
  hasNotes: boolean;
  compactions: InspectedCompaction[];
}

export interface InspectedProject {
  key: string;
  memory: { dir: string; entries: InspectedEntry[]; unindexed: string[]; warnings: string[] };
  sessions: InspectedSession[];
}

export interface Inspection {
  root: string;
  projects: InspectedProject[];
}

export interface InspectOptions {
  /** Only these project keys (default: every folder under `projects/`). */
  keys?: string[];
  countTokens?: (text: string) => number;
}

export async function inspectRoot(root: string, opts: InspectOptions = {}): Promise<Inspection> {
  const projectsDir = path.join(root, 'projects');
  let keys: string[];
  try {
    const dirents = await fsp.readdir(projectsDir, { withFileTypes: true });
    keys = dirents.filter((d) => d.isDirectory()).map((d) => d.name);
  } catch {
    keys = [];
  }
  if (opts.keys) keys = keys.filter((k) => opts.keys?.includes(k));
  keys.sort();
  const projects: InspectedProject[] = [];
  for (const key of keys) projects.push(await inspectProject(path.join(projectsDir, key), key, opts));
  return { root, projects };
}

export async function inspectProject(dir: string, key: string, opts: InspectOptions = {}): Promise<InspectedProject> {
  const memoryDir = path.join(dir, MEMORY_DIR_NAME);
  const index = await loadMemoryIndex(memoryDir, opts.countTokens ? { countTokens: opts.countTokens } : {});
  const entries = index.entries.map((e): InspectedEntry => ({
    title: e.title,
    file: e.file,
    hook: e.hook,
    type: e.type,
    tokens: e.tokens,
    loaded: e.loaded,
    missing: e.missing,
  }));
  return {
    key,
    memory: { dir: memoryDir, entries, unindexed: index.unindexed, warnings: index.warnings },
    sessions: await inspectSessions(dir),
  };
}

async function inspectSessions(dir: string): Promise<InspectedSession[]> {
  let names: string[];
  try {
    names = (await fsp.readdir(dir, { withFileTypes: true })).filter((d) => d.isFile() && d.name.endsWith('.jsonl')).map((d) => d.name);
  } catch {
    return [];
  }
  names.sort();
  const out: InspectedSession[] = [];
  for (const name of names) {
    const id = name.slice(0, -'.jsonl'.length);
    const compactions: InspectedCompaction[] = [];
    let read;
    try {
      read = await forEachTranscriptLine(path.join(dir, name), (line) => {
        if (line.type !== 'system' || (line as { subtype?: unknown }).subtype !== 'compact_boundary') return;
        const meta = (line as { compactMetadata?: { trigger?: unknown; preTokens?: unknown } }).compactMetadata;
        const timestamp = (line as { timestamp?: unknown }).timestamp;
        compactions.push({
          trigger: typeof meta?.trigger === 'string' ? meta.trigger : null,
          preTokens: typeof meta?.preTokens === 'number' ? meta.preTokens : null,
          timestamp: typeof timestamp === 'string' ? timestamp : null,
        });
      });
    } catch {
      continue; // removed or unreadable while listing
    }
    out.push({
      id,
      lines: read.lineCount,
      corruptLines: read.corrupt.length + (read.tornTail ? 1 : 0),
      hasNotes: await isFile(path.join(dir, id, 'session-memory', 'summary.md')),
      compactions,
    });
  }
  return out;
}

async function isFile(p: string): Promise<boolean> {
  try {
    return (await fsp.stat(p)).isFile();
  } catch {
    return false;
  }
}
