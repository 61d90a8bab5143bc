// The health of every memory of a project (issue 32), as `engram memory check` prints it and the
// inspector's Health view shows it: per topic file of the private and team folders, its stale
// references, its repeats and contradictions, and its use counts. Read only: topic files are opened
// through the memory folder's confinement (memoryFiles.ts), the use counts are read, never written,
// so it runs as well on Claude Code's folders (`--data-dir ~/.claude`).
// `memoryHealth` is the one entry point; duplicates and contradictions come from repeats.ts, the
// "used" / "corrected" counts from the use counts (written by session/memoryOutcomeLink.ts).
import path from 'node:path';
import { readMemoryText } from '../autoMemory/memoryFiles';
import { loadMemoryIndex } from '../autoMemory/memoryIndex';
import { TEAM_DIR_NAME, teamMemoryDir } from '../autoMemory/memoryPaths';
import { frontMatterBlock } from '../autoMemory/topicFile';
import { readUsage } from '../autoMemory/usageCounts';
import { redactSecrets } from '../../security/secretScan';
import { MemoryHealthIndex } from './healthIndex';
import type { MemoryHealth } from './healthTypes';
import { findRepeats, type Repeats } from './repeats';

/** The memory folders to check: the private folder, and its team folder (when `team` is not false and it exists). */
export interface HealthScope {
  memoryDir: string;
  team?: boolean;
}

/** One topic file as read for a check. */
export interface MemoryText {
  /** Relative to the private memory folder (`team/<name>` for team memory). */
  file: string;
  /** The file's text with the front matter blanked except its description (line numbers kept). */
  text: string;
  team: boolean;
  /** The folder it lives in, and its name there (for the use counts). */
  dir: string;
  name: string;
}

/**
 * The health of every topic file of `scope`, checked against `workspace` (a folder, listed now, or an
 * index a host keeps up to date). Sorted: memories with stale references first, then by file name.
 */
export async function memoryHealth(scope: HealthScope, workspace: string | MemoryHealthIndex): Promise<MemoryHealth[]> {
  const texts = await readMemoryTexts(scope);
  const index = typeof workspace === 'string' ? await MemoryHealthIndex.open(workspace) : workspace;
  await index.setMemories(texts);
  const usage = new Map<string, Awaited<ReturnType<typeof readUsage>>>();
  for (const dir of new Set(texts.map((t) => t.dir))) usage.set(dir, await readUsage(dir));
  const out: MemoryHealth[] = texts.map((t) => {
    const check = index.result(t.file);
    const u = usage.get(t.dir)?.[t.name];
    return {
      file: t.file,
      stale: check?.stale ?? [],
      duplicates: [],
      contradicts: [],
      recalled: u?.recalls ?? 0,
      used: u?.used ?? 0,
      notRelevant: u?.notRelevant?.length ?? 0,
      corrected: u?.corrected ?? 0,
      ...(u?.lastUsed ? { lastUsed: u.lastUsed } : {}),
      ...(u?.usedEvidence ? { usedEvidence: u.usedEvidence } : {}),
      ...(u?.corrections ? { corrections: u.corrections } : {}),
      team: t.team,
      unchecked: check?.unchecked ?? [],
      notes: check?.notes ?? [],
    };
  });
  addRepeats(out, findRepeats(texts));
  await redactReported(out);
  return out.sort((a, b) => Number(b.stale.length > 0) - Number(a.stale.length > 0) || a.file.localeCompare(b.file));
}

/** Fills `duplicates`, `contradicts` and `contradictionNotes` of each entry from the pairs found (repeats.ts). */
function addRepeats(entries: MemoryHealth[], found: Repeats): void {
  const byFile = new Map(entries.map((e) => [e.file, e]));
  for (const d of found.duplicates) {
    byFile.get(d.a)?.duplicates.push(d.b);
    byFile.get(d.b)?.duplicates.push(d.a);
  }
  for (const c of found.contradictions) {
    for (const [self, other] of [
      [c.a, c.b],
      [c.b, c.a],
    ]) {
      const e = byFile.get(self);
      if (!e) continue;
      // One note per contradicting file, in the order of `contradicts` (two subjects share a note).
      const notes = e.contradictionNotes ?? [];
      const at = e.contradicts.indexOf(other);
      if (at < 0) {
        e.contradicts.push(other);
        notes.push(c.note);
      } else notes[at] = `${notes[at]}; ${c.note}`;
      e.contradictionNotes = notes;
    }
  }
}

/**
 * A secret written into a memory (a token in backticks looks like a symbol) must not be printed back by
 * the check: every reported reference and reason goes through one secret scan, redacted in place.
 */
async function redactReported(entries: MemoryHealth[]): Promise<void> {
  const items = entries.flatMap((e) => [...e.stale, ...(e.unchecked ?? [])]);
  if (items.length === 0) return;
  const lines = items.flatMap((i) => [i.ref, i.reason]);
  const { text, findings } = await redactSecrets(lines.join('\n'));
  if (findings.length === 0) return;
  let redacted = text.split('\n');
  // A finding across a line end would shift the lines: then each line is scanned on its own.
  if (redacted.length !== lines.length)
    redacted = await Promise.all(lines.map(async (l) => (await redactSecrets(l)).text));
  items.forEach((item, k) => {
    item.ref = redacted[2 * k];
    item.reason = redacted[2 * k + 1];
  });
}

/** Every readable topic file of the private folder and (unless `team` is false) of its team folder. */
export async function readMemoryTexts(scope: HealthScope): Promise<MemoryText[]> {
  const folders: Array<{ dir: string; prefix: string }> = [{ dir: scope.memoryDir, prefix: '' }];
  if (scope.team !== false) {
    try {
      folders.push({ dir: teamMemoryDir(scope.memoryDir), prefix: `${TEAM_DIR_NAME}/` });
    } catch {
      // a team folder that links out of the memory folder is not read
    }
  }
  const out: MemoryText[] = [];
  for (const { dir, prefix } of folders) {
    const index = await loadMemoryIndex(dir).catch(() => undefined);
    for (const t of index?.topics ?? []) {
      if (prefix === '' && t.file.startsWith(`${TEAM_DIR_NAME}/`)) continue;
      let raw: string;
      try {
        raw = await readMemoryText(dir, path.join(dir, t.file));
      } catch {
        continue; // gone or refused since the index listed it
      }
      out.push({ file: `${prefix}${t.file}`, text: checkedText(raw), team: prefix !== '', dir, name: t.file });
    }
  }
  return out;
}

/** The text references are taken from: the body and the description, front matter lines blanked. */
function checkedText(raw: string): string {
  const block = frontMatterBlock(raw);
  if (!block?.closed) return raw;
  const head = raw.slice(0, raw.length - block.body.length).split(/\r?\n/);
  head.pop(); // the part after the closing line's end belongs to the body
  const kept = head.map((l) => (/^description\s*:/.test(l) ? l.replace(/^description\s*:\s*/, '') : ''));
  return `${kept.join('\n')}\n${block.body}`;
}
