// Plans a code rewind from a session's checkpoint log: every turn after the chosen one is undone. Each
// file those turns changed goes back to how it was before the earliest of them changed it (so an edit the
// person made before that turn is kept), unless the person touched it after the agent: then it is a
// conflict, left as it is unless forced. Paths now blocked (a folder where the file was, a folder that
// leads outside the workspace through a link, a file over the size limit) are conflicts that even a
// forced rewind does not write.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { isWithin } from '../fs/pathGuard';
import type { LogLine } from './sessionLog';
import type { ShadowGit } from './shadowGit';
import type { Snapshot } from './snapshot';
import type { CodeRewindPlan, RewindFile, SkippedPath } from './types';

/** `mode oid` of each path in a commit (only the given paths; a path that is a folder there is absent). */
export async function statesAt(git: ShadowGit, commit: string, paths: readonly string[]): Promise<Map<string, string>> {
  const states = new Map<string, string>();
  const wanted = new Set(paths);
  for (let i = 0; i < paths.length; i += 500) {
    const out = await git.list([
      '--literal-pathspecs',
      'ls-tree',
      '-r',
      '-z',
      commit,
      '--',
      ...paths.slice(i, i + 500),
    ]);
    for (const entry of out) {
      const tab = entry.indexOf('\t');
      const [mode, type, oid] = entry.slice(0, tab).split(' ');
      const p = entry.slice(tab + 1);
      if (type === 'blob' && wanted.has(p)) states.set(p, `${mode} ${oid}`);
    }
  }
  return states;
}

/** The oid part of `mode oid`. */
export function oidOf(state: string | null | undefined): string | undefined {
  return state ? state.slice(state.indexOf(' ') + 1) : undefined;
}

/**
 * Why a path cannot be written at all, or undefined: it is a folder now, or a folder on its way leads
 * outside the workspace (a symbolic link), or it resolves outside.
 */
export async function blockedReason(workspace: string, rel: string): Promise<string | undefined> {
  const abs = path.resolve(workspace, rel);
  if (!isWithin(workspace, abs)) return 'lies outside the workspace; it is never written';
  const st = await fsp.lstat(abs).catch(() => undefined);
  if (st?.isDirectory()) return 'is a folder now (it was a file); a rewind does not replace a folder';
  let dir = path.dirname(abs);
  while (isWithin(workspace, dir) && dir !== workspace) {
    const real = await fsp.realpath(dir).catch(() => undefined);
    if (real !== undefined) {
      if (!isWithin(workspace, real))
        return `its folder ${path.relative(workspace, dir)} leads outside the workspace (to ${real}); it is never written through`;
      break;
    }
    dir = path.dirname(dir);
  }
  return undefined;
}

interface Touch {
  /** "turn 3", or "the rewind" for a line a rewind wrote. */
  by: string;
  from: string | null;
  to: string | null;
}

/** The log line the rewind goes back to (-1: before the first turn). */
function targetIndex(lines: readonly LogLine[], toTurn: number, promptUuid?: string): number {
  if (toTurn === 0) return -1;
  const byUuid = promptUuid ? lines.findLastIndex((l) => !l.rewind && l.promptUuid === promptUuid) : -1;
  const index = byUuid !== -1 ? byUuid : lines.findLastIndex((l) => !l.rewind && l.turn === toTurn);
  if (index === -1) {
    const known = lines.filter((l) => !l.rewind).map((l) => l.turn);
    throw new Error(
      `Turn ${toTurn} has no checkpoint in this session` +
        (known.length ? ` (it has turns ${Math.min(...known)} to ${Math.max(...known)}).` : ' (it has none yet).'),
    );
  }
  return index;
}

function conflictOf(touches: readonly Touch[], now: string | null): string | undefined {
  for (let i = 1; i < touches.length; i++) {
    const [a, b] = [touches[i - 1] as Touch, touches[i] as Touch];
    if (a.to !== b.from) return `changed by you between ${a.by} and ${b.by}`;
  }
  const last = touches[touches.length - 1] as Touch;
  if (last.to === now) return undefined;
  return now === null ? `deleted by you after ${last.by}` : `changed by you after ${last.by}`;
}

export async function planRewind(
  git: ShadowGit,
  sessionId: string,
  lines: readonly LogLine[],
  to: { toTurn: number; promptUuid?: string },
  now: Snapshot,
): Promise<CodeRewindPlan> {
  const undone = lines.slice(targetIndex(lines, to.toTurn, to.promptUuid) + 1);
  const touches = new Map<string, Touch[]>();
  for (const line of undone)
    for (const [p, [from, to]] of Object.entries(line.blobs ?? {})) {
      const list = touches.get(p) ?? [];
      list.push({ by: line.rewind ? 'the last rewind' : `turn ${line.turn}`, from, to });
      touches.set(p, list);
    }
  const paths = [...touches.keys()].sort();
  const nowStates = paths.length ? await statesAt(git, now.commit, paths) : new Map<string, string>();
  const tooBig = new Map(now.skipped.filter((s) => s.reason === 'too-big').map((s) => [s.path, s.bytes ?? 0]));
  const files: RewindFile[] = [];
  for (const p of paths) {
    const list = touches.get(p) as Touch[];
    const target = (list[0] as Touch).from;
    const nowState = nowStates.get(p) ?? null;
    if (target === nowState && !tooBig.has(p)) continue;
    const action = target === null ? 'delete' : nowState === null ? 'recreate' : 'restore';
    const big = tooBig.get(p);
    const conflict =
      (await blockedReason(git.workspace, p)) ??
      (big !== undefined
        ? `is ${formatBytes(big)} now, over the checkpoint size limit, so no copy of it could be kept; it is left as it is`
        : conflictOf(list, nowState));
    const nowOid = oidOf(nowState);
    const targetOid = oidOf(target);
    files.push({
      path: p,
      action,
      ...(conflict ? { conflict } : {}),
      ...(nowOid ? { now: nowOid } : {}),
      ...(targetOid ? { target: targetOid } : {}),
    });
  }
  const skipped = new Map<string, SkippedPath>();
  for (const line of undone) for (const s of line.skipped) skipped.set(`${s.reason}\0${s.path}`, s);
  return {
    sessionId,
    toTurn: to.toTurn,
    turns: undone.filter((l) => !l.rewind).map((l) => l.turn),
    files,
    skipped: [...skipped.values()],
    now: now.commit,
  };
}

export function formatBytes(n: number): string {
  if (n >= 2 ** 30) return `${(n / 2 ** 30).toFixed(1)} GB`;
  if (n >= 2 ** 20) return `${(n / 2 ** 20).toFixed(1)} MB`;
  return `${Math.round(n / 1024)} KB`;
}
