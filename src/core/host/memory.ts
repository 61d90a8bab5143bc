// Where a project's memory lives, as a host asks: the private auto-memory folder (keyed by the project's
// git root), the team folder inside it, and where a memory file named by a tool belongs. A host uses
// these to show, sync or confine memory; what goes into the files is the memory engine's business.
// Also the memory other agents reach through a host (`engram mcp`, VS Code's language model tools):
// search with the chat's recall, remember through the chat's writer, list, read, session notes.
import path from 'node:path';
import { findGitRoot } from '../conversation/projectKey';
import type { MemoryHealth } from '../memory/health/healthTypes';
import { memoryHealth, readMemoryTexts } from '../memory/health/memoryHealth';
import { type ModelCheckDeps, modelContradictions } from '../memory/health/modelContradictions';
import { recoverTidy } from '../memory/tidy/tidyApply';
import { proposeTidy, type TidyDeps } from '../memory/tidy/tidyPropose';
import type { TidyProposal } from '../memory/tidy/tidyTypes';
import {
  autoMemoryDir as memoryDirFor,
  memoryHome as homeOf,
  memoryWriteTarget as writeTargetIn,
  teamMemoryDir as teamDirIn,
} from '../memory/autoMemory/memoryPaths';
import {
  describeMatches,
  listMemoryEntries,
  memoryFileNames,
  MemoryRequestError,
  openMemoryScope,
  readMemoryEntry,
  readSessionNotes,
  searchMemory,
  type MemoryListEntry,
  type MemoryMatch,
  type MemoryScope,
  type SessionNotesRead,
} from '../memory/memoryService';
import {
  describeRemembered,
  rememberMemory,
  type RememberOutcome,
  type RememberRequest,
} from '../memory/memoryRemember';

export type { MergeResult } from '../memory/autoMemory/mergeEntries';

/** The project's private auto-memory folder for `cwd` under `dataDir` (found by its git root). */
export function autoMemoryDir(dataDir: string, cwd: string): Promise<string> {
  return memoryDirFor(dataDir, cwd);
}

/** The team memory folder inside the auto-memory folder `dir`. */
export function teamMemoryDir(dir: string): string {
  return teamDirIn(dir);
}

/** The memory folder and index that a memory file named `name` belongs to, under the auto-memory folder `dir`. */
export function memoryHome(dir: string, name: string): { dir: string; file: string; team: boolean } {
  return homeOf(dir, name);
}

/**
 * Whether a write to `absPath` is a write to a memory file under the auto-memory folder `dir`: its name
 * there, or the problem with it (a host lets the agent write memory files and nothing else of the folder).
 */
export function memoryWriteTarget(dir: string, absPath: string): { name: string } | { problem: string } {
  return writeTargetIn(dir, absPath);
}

// ---- Memory for other agents (`engram mcp`, VS Code's language model tools) ----

export type { MemoryListEntry, MemoryMatch, MemoryScope, RememberOutcome, RememberRequest, SessionNotesRead };

/** A refusal whose message is meant for the client that asked (bad name, missing file, a secret). */
export { MemoryRequestError };

/** The four memory types a topic file may have. */
export { MEMORY_TYPES } from '../memory/autoMemory/topicFile';

/**
 * One project's memory for another agent: the project at `cwd` under `dataDir`, with team memory when
 * `team` (its folder is then searched, listed and read too) and at most `maxFiles` files a search
 * (engram.memory.recall.maxFiles).
 */
export function memoryScope(
  dataDir: string,
  cwd: string,
  opts: { team?: boolean; maxFiles?: number } = {},
): Promise<MemoryScope> {
  return openMemoryScope(dataDir, cwd, opts);
}

/** What the chat's recall attaches for `query` (same ranking and bar, no model call), with each memory's text and why. */
export function searchProjectMemory(scope: MemoryScope, query: string, limit?: number): Promise<MemoryMatch[]> {
  return searchMemory(scope, query, limit);
}

/**
 * Saves a memory another agent asks for through the chat's writer (or the review queue when `review`),
 * after a secret scan; the file records the client. Rejects with MemoryRequestError when refused.
 */
export function rememberForClient(
  scope: MemoryScope,
  req: RememberRequest,
  opts: { review: boolean },
): Promise<RememberOutcome> {
  return rememberMemory(scope, req, opts);
}

/** The index entries (private, then team when on). */
export function listProjectMemories(scope: MemoryScope): Promise<MemoryListEntry[]> {
  return listMemoryEntries(scope);
}

/** Every topic file the scope reads, relative to the memory folder (`team/...` for team files). */
export function projectMemoryFiles(scope: MemoryScope): Promise<string[]> {
  return memoryFileNames(scope);
}

/** One memory file's text (MEMORY.md included), confined to the memory folders; MemoryRequestError when refused. */
export function readProjectMemory(scope: MemoryScope, file: string): Promise<string> {
  return readMemoryEntry(scope, file);
}

/** A session's notes, by default the newest session's; MemoryRequestError when there are none. */
export function readProjectSessionNotes(scope: MemoryScope, sessionId?: string): Promise<SessionNotesRead> {
  return readSessionNotes(scope, sessionId);
}

/** Search matches as a model reads them (title, file, type, why, text), or a line saying there are none. */
export function describeMemoryMatches(query: string, matches: readonly MemoryMatch[]): string {
  return describeMatches(query, matches);
}

/** What a remember did (saved with its index line, or waiting for review), in a sentence for the model. */
export function describeRememberOutcome(outcome: RememberOutcome): string {
  return describeRemembered(outcome);
}

// ---- Memory health (issue 32): stale references, repeats, use counts ----

export type { MemoryHealth } from '../memory/health/healthTypes';

/** The project's memory checked against its workspace: where each was read from, and each memory's health. */
export interface ProjectMemoryHealth {
  /** The private memory folder (its team folder is `team/` inside). */
  memoryDir: string;
  /** The workspace the references were checked against: the git root of `cwd`, or `cwd`. */
  workspace: string;
  memories: MemoryHealth[];
}

/**
 * The health of every memory (private and team) of the project at `cwd` under `dataDir` (Engram's data
 * dir or Claude Code's `~/.claude`), checked against the workspace as it is now. Reads only.
 */
export async function checkProjectMemory(dataDir: string, cwd: string): Promise<ProjectMemoryHealth> {
  const resolved = path.resolve(cwd);
  const workspace = (await findGitRoot(resolved)) ?? resolved;
  const memoryDir = await memoryDirFor(dataDir, resolved);
  return { memoryDir, workspace, memories: await memoryHealth({ memoryDir }, workspace) };
}

/**
 * checkProjectMemory, then one model call (`engram memory check --model`) for contradictions the local
 * rules cannot tell: each pair the model names joins both memories' `contradicts`, its note marked
 * "(model)". A failed call or a malformed answer rejects with the reason; the local check is not lost
 * to the caller, who can fall back to checkProjectMemory.
 */
export async function checkProjectMemoryWithModel(
  dataDir: string,
  cwd: string,
  deps: ModelCheckDeps,
): Promise<ProjectMemoryHealth> {
  const result = await checkProjectMemory(dataDir, cwd);
  const texts = await readMemoryTexts({ memoryDir: result.memoryDir });
  const pairs = await modelContradictions(
    texts.map((t) => ({ file: t.file, text: t.text })),
    deps,
  );
  const byFile = new Map(result.memories.map((m) => [m.file, m]));
  for (const pair of pairs)
    for (const [one, other] of [
      [pair.a, pair.b],
      [pair.b, pair.a],
    ]) {
      const m = byFile.get(one);
      if (!m || m.contradicts.includes(other)) continue;
      // One note per contradicting file, in the same order (a pair found locally may have none).
      const notes = [...(m.contradictionNotes ?? [])];
      while (notes.length < m.contradicts.length) notes.push('');
      m.contradicts.push(other);
      m.contradictionNotes = [...notes, `${pair.note} (model)`];
    }
  return result;
}

// ---- Memory tidy (issue 32 item 6): a model-proposed tidy, reviewed, applied as one undoable step ----

export type { TidyChange, TidyProposal } from '../memory/tidy/tidyTypes';
export type { TidyRecord } from '../memory/tidy/tidyApply';
export { applyTidy, listTidies, tidyDiffs, undoTidy } from '../memory/tidy/tidyApply';
export { clearPendingTidy, keepPendingTidy, noteSessionForTidy, pendingTidy } from '../memory/tidy/tidyCadence';
export { TidyAnswerError } from '../memory/tidy/tidyPropose';

/**
 * Asks the model once for a tidy of the private memory of the project at `cwd` under `dataDir`
 * (merges, rewrites of stale entries, deletions), checked against the workspace. Writes nothing; a
 * crash-interrupted earlier tidy is rolled back first.
 */
export async function proposeProjectTidy(
  dataDir: string,
  cwd: string,
  deps: TidyDeps,
): Promise<{ proposal: TidyProposal; recovered: string[] }> {
  const resolved = path.resolve(cwd);
  const workspace = (await findGitRoot(resolved)) ?? resolved;
  const memoryDir = await memoryDirFor(dataDir, resolved);
  const recovered = await recoverTidy(memoryDir);
  return { proposal: await proposeTidy(deps, { memoryDir, workspace }), recovered };
}
