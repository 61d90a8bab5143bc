// The checkpoint store of one session in one workspace (issue 33): a snapshot of the workspace before the
// agent's first change in a turn and one as the turn ends, each a commit in the workspace's shadow
// repository on the session's own ref, with the session's own index and log, so two windows on one
// workspace never share either. A baseline snapshot is taken in the background as the store opens (the
// first full hashing of the workspace; the first turn's snapshot waits for it), and the loose objects are
// packed once they pile up, at low priority in a quiet gap between turns. Rewinds are planned from the log
// (rewindPlan.ts) and written under a journal (rewindApply.ts).
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { acquireWriterLock } from '../fs/writerLock';
import type { Logger } from '../ports';
import {
  lockPacking,
  lockShared,
  prepareRepository,
  type RepoPaths,
  repoPaths,
  emptyGlobalConfig,
  seedIndex,
} from './repository';
import { applyRewind, recoverJournals, undoRewind } from './rewindApply';
import { planRewind } from './rewindPlan';
import { appendLog, type LogLine, publicTurn, readLog } from './sessionLog';
import { GitError, gitOnPath, ShadowGit } from './shadowGit';
import { type Snapshot, takeSnapshot } from './snapshot';
import type {
  Checkpoints,
  CheckpointsUnavailable,
  CodeRewindPlan,
  CodeRewindResult,
  SkippedPath,
  TurnCheckpoint,
} from './types';

export interface OpenCheckpointsOptions {
  /** Engram's data folder: the shadow repository goes in `<dataDir>/checkpoints/<project key>/`. */
  dataDir: string;
  /** The workspace folder (absolute), keyed like the transcripts. */
  workspace: string;
  sessionId: string;
  /** Files over this size are left out of checkpoints and reported (engram.checkpoints.maxFileSizeMB). */
  maxFileBytes: number;
  logger: Logger;
  /** More files than this in the workspace (outside .gitignore and heavy folders): checkpoints are off. */
  maxFiles?: number;
}

const DEFAULT_MAX_FILES = 100_000;
/** Loose objects past this count are packed in the background. */
const LOOSE_OBJECTS_TO_PACK = 2_000;
/** How long the session must be quiet before packing starts. */
const PACK_WHEN_IDLE_MS = 1_500;
/** More packs than this are merged into one. */
const PACKS_TO_MERGE = 20;

/** The turn under way: begun, and its before-snapshot once a change was announced. */
interface OpenTurn {
  turn: number;
  promptUuid?: string;
  at: number;
  before?: Pending;
}

/** A snapshot, or why it failed (kept as a value: a turn's callers share it, and the turn goes on). */
type Pending = Promise<Snapshot | Error>;

/**
 * Opens the checkpoints of a session: makes the workspace's shadow repository if needed, finishes a
 * rewind a crash interrupted (said once in `recovered`), and starts the baseline snapshot. Resolves
 * with CheckpointsUnavailable, in plain words, when git is missing or the workspace is too large.
 */
export async function openCheckpoints(opts: OpenCheckpointsOptions): Promise<CheckpointStore | CheckpointsUnavailable> {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(opts.sessionId) || opts.sessionId.endsWith('.lock'))
    return { available: false, reason: `Checkpoints cannot use the session id "${opts.sessionId}".` };
  if (!(await gitOnPath())) return { available: false, reason: 'Checkpoints need git, which was not found on PATH.' };
  const workspace = await fsp.realpath(opts.workspace).catch(() => undefined);
  if (!workspace) return { available: false, reason: `Checkpoints: the workspace ${opts.workspace} is not there.` };
  const paths = repoPaths(opts.dataDir, path.resolve(opts.workspace), opts.sessionId);
  try {
    const git = new ShadowGit(paths.repo, workspace, await emptyGlobalConfig(opts.dataDir));
    await prepareRepository(git, opts.dataDir, paths);
    await seedIndex(paths.index);
    const maxFiles = opts.maxFiles ?? DEFAULT_MAX_FILES;
    const count = await git.countZ(['ls-files', '-z', '--cached', '--others', '--exclude-standard'], maxFiles, {
      index: paths.index,
      config: [`core.excludesFile=${paths.baseExcludes}`],
    });
    if (count > maxFiles)
      return {
        available: false,
        reason:
          `Checkpoints are off for this workspace: it has more than ${maxFiles.toLocaleString('en-US')} files ` +
          'outside .gitignore and node_modules. Add the large folders to .gitignore to turn them on.',
      };
    const lock = await lockShared(paths.repo);
    const recovered = await recoverJournals(git, paths, opts.maxFileBytes, opts.logger).finally(() => lock.release());
    const store = new CheckpointStore(git, paths, opts, recovered);
    await store.start();
    return store;
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    opts.logger.warn(`Checkpoints: could not open ${paths.repo}: ${why}`);
    return { available: false, reason: `Checkpoints could not open their repository (${paths.repo}): ${why}` };
  }
}

/** Timings of the baseline snapshot, for the benchmark and the log. */
export interface BaselineTiming {
  /** How long the baseline snapshot took (ms); unset while it runs. */
  tookMs?: number;
  /** How long the first beforeChange waited for it (ms). */
  waitedMs?: number;
}

export class CheckpointStore implements Checkpoints {
  readonly available = true as const;
  readonly baseline: BaselineTiming = {};
  private parent: { commit: string; tree: string } | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private baselineDone: Pending = Promise.resolve(new Error('not started'));
  private current: OpenTurn | undefined;
  /** An endTurn is taking its snapshot. */
  private ending = false;
  private maintenance: Promise<void> | undefined;
  private packTimer: NodeJS.Timeout | undefined;
  /** Until the first snapshot, the index may hold another session's files (it is seeded from theirs). */
  private indexMatchesParent = false;
  private stamp: string | undefined;
  private disposed = false;

  constructor(
    private readonly git: ShadowGit,
    private readonly paths: RepoPaths,
    private readonly opts: OpenCheckpointsOptions,
    /** A rewind a crash interrupted, finished as the store opened: said once to the person. */
    readonly recovered?: string,
  ) {}

  /** Reads the session's newest snapshot and starts the baseline in the background. */
  async start(): Promise<void> {
    await this.readParent();
    const started = Date.now();
    this.baselineDone = this.snapshot('baseline', false).then((s) => {
      this.baseline.tookMs = Date.now() - started;
      this.packLater();
      return s;
    });
  }

  /** The session's newest snapshot, as its ref says. */
  private async readParent(): Promise<void> {
    const head = await this.git
      .text(['rev-parse', '--verify', '-q', `${this.paths.ref}^{commit}`], { okCodes: [1] })
      .catch(() => '');
    this.parent = head ? { commit: head, tree: await this.git.text(['rev-parse', `${head}^{tree}`]) } : undefined;
  }

  /** Tells the session index as this store last left it from one another process wrote. */
  private async indexStamp(): Promise<string> {
    const st = await fsp.stat(this.paths.index).catch(() => undefined);
    return st ? `${st.ino}:${st.size}:${st.mtimeMs}` : '';
  }

  /** Runs snapshots (and anything else using the session index) one at a time. */
  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** A snapshot, or the Error (logged as a warning) when git failed. */
  private snapshot(message: string, reportExcluded: boolean, diffFrom?: string): Pending {
    return this.serial(async () => {
      // One snapshot at a time per session across processes too (the CLI's store and the window's).
      const lock = await acquireWriterLock(`${this.paths.index}.snapshot`, { waitMs: 60_000, pollMs: 20 });
      try {
        return await this.snapshotLocked(message, reportExcluded, diffFrom);
      } finally {
        await lock.release();
      }
    }).catch((e: unknown) => {
      const error = e instanceof Error ? e : new Error(String(e));
      this.opts.logger.warn(`Checkpoints: the ${message} snapshot failed: ${error.message}`);
      return error;
    });
  }

  /** A snapshot, holding the session's snapshot lock. */
  private async snapshotLocked(message: string, reportExcluded: boolean, diffFrom?: string): Promise<Snapshot> {
    const place = { git: this.git, ...this.paths, maxFileBytes: this.opts.maxFileBytes };
    if ((await this.indexStamp()) !== this.stamp) {
      // Another process of this session (`engram rewind` while the window runs) wrote the index.
      this.indexMatchesParent = false;
      await this.readParent();
    }
    const snap = await takeSnapshot(place, this.parent, message, {
      reportExcluded,
      indexMatchesParent: this.indexMatchesParent,
      ...(diffFrom ? { diffFrom } : {}),
    });
    this.parent = { commit: snap.commit, tree: snap.tree };
    this.indexMatchesParent = true;
    this.stamp = await this.indexStamp();
    return snap;
  }

  beginTurn(turn: number, promptUuid?: string): void {
    if (this.packTimer) this.packLater();
    this.current = { turn, at: Date.now(), ...(promptUuid ? { promptUuid } : {}) };
  }

  async beforeChange(): Promise<void> {
    const turn = this.current;
    if (!turn) return;
    if (!turn.before) {
      const waitFrom = Date.now();
      turn.before = this.baselineDone.then(() => {
        this.baseline.waitedMs ??= Date.now() - waitFrom;
        return this.snapshot(`before turn ${turn.turn}`, false);
      });
    }
    const before = await turn.before;
    // The details went to the log; the person hears it in a few words.
    if (before instanceof Error) throw new Error('the snapshot before its first change failed (the log says why)');
  }

  async endTurn(): Promise<TurnCheckpoint | undefined> {
    const turn = this.current;
    if (!turn) return undefined;
    this.current = undefined;
    this.ending = true;
    try {
      return await this.finishTurn(turn);
    } finally {
      this.ending = false;
    }
  }

  /** The turn's after-snapshot, its changes and its line in the log. */
  private async finishTurn(turn: OpenTurn): Promise<TurnCheckpoint> {
    const before = await (turn.before ?? Promise.resolve(undefined));
    const after =
      before && !(before instanceof Error)
        ? await this.snapshot(`after turn ${turn.turn}`, true, before.commit)
        : undefined;
    const base = { sessionId: this.opts.sessionId, turn: turn.turn, at: turn.at };
    let line: LogLine = {
      ...base,
      ...(turn.promptUuid ? { promptUuid: turn.promptUuid } : {}),
      files: [],
      skipped: [],
    };
    if (before && !(before instanceof Error) && after && !(after instanceof Error)) {
      const skipped = mergeSkipped(before.skipped, after.skipped);
      const left = new Set(after.skipped.map((s) => s.path));
      const changes = (after.changes ?? []).filter(
        (c) => !(c.change === 'deleted' && left.has(c.path)), // grew past the limit: reported as skipped
      );
      line = {
        ...line,
        before: before.commit,
        after: after.commit,
        files: changes.map((c) => ({ path: c.path, change: c.change })),
        skipped,
        blobs: Object.fromEntries(changes.map((c) => [c.path, [c.from ?? null, c.to ?? null] as const])),
      };
    }
    await appendLog(this.paths.log, line);
    this.packLater();
    // The line is written (the turn is listed, without snapshots); the caller hears the turn is not covered.
    if (after instanceof Error) throw new Error('the snapshot at the end of the turn failed (the log says why)');
    return publicTurn(line);
  }

  async list(): Promise<TurnCheckpoint[]> {
    return (await readLog(this.paths.log, this.opts.logger)).filter((l) => !l.rewind).map(publicTurn);
  }

  async planCodeRewind(toTurn: number, promptUuid?: string): Promise<CodeRewindPlan> {
    const lines = await readLog(this.paths.log, this.opts.logger);
    await this.baselineDone;
    const now = await this.snapshot('rewind preview', false);
    if (now instanceof Error)
      throw new Error(`Checkpoints could not take a snapshot of the workspace as it is now: ${now.message}`);
    return planRewind(this.git, this.opts.sessionId, lines, { toTurn, ...(promptUuid ? { promptUuid } : {}) }, now);
  }

  async applyCodeRewind(
    plan: CodeRewindPlan,
    opts: { force?: boolean | readonly string[] } = {},
  ): Promise<CodeRewindResult> {
    const lines = await readLog(this.paths.log, this.opts.logger);
    return this.serial(() => applyRewind(this.git, this.paths, this.opts.maxFileBytes, plan, lines, opts.force));
  }

  async undoCodeRewind(id: string, opts: { force?: boolean | readonly string[] } = {}): Promise<CodeRewindResult> {
    return this.serial(() => undoRewind(this.git, this.paths, this.opts.maxFileBytes, id, opts.force));
  }

  async readFile(commit: string, file: string): Promise<Buffer | undefined> {
    if (!/^[0-9a-f]{40,64}$/.test(commit)) return undefined;
    try {
      return await this.git.run(['cat-file', 'blob', `${commit}:${file}`]);
    } catch (e) {
      if (e instanceof GitError) return undefined;
      throw e;
    }
  }

  /** Waits for the snapshots under way, then packs what is left loose. */
  async dispose(): Promise<void> {
    this.disposed = true;
    clearTimeout(this.packTimer);
    await this.baselineDone;
    await this.queue;
    await this.packNow();
  }

  /**
   * Packs the loose objects in the background once they pile up (under the packing lock; nothing is ever
   * pruned), when no turn is under way and none was for PACK_WHEN_IDLE_MS: packing takes seconds of disk and CPU,
   * which belong in the gaps between turns, not in them.
   */
  private packLater(): void {
    if (this.disposed) return;
    clearTimeout(this.packTimer);
    this.packTimer = setTimeout(() => {
      if (this.current !== undefined || this.ending)
        this.packLater(); // a turn is under way: later
      else void this.packNow();
    }, PACK_WHEN_IDLE_MS);
    this.packTimer.unref();
  }

  private packNow(): Promise<void> {
    this.maintenance ??= this.pack()
      .catch((e: unknown) => this.opts.logger.warn(`Checkpoints: packing the shadow repository failed: ${e}`))
      .finally(() => {
        this.maintenance = undefined;
      });
    return this.maintenance;
  }

  private async pack(): Promise<void> {
    const counts = await this.git.text(['count-objects', '-v']);
    const loose = Number(/^count: (\d+)$/m.exec(counts)?.[1] ?? 0);
    const packs = Number(/^packs: (\d+)$/m.exec(counts)?.[1] ?? 0);
    if (loose <= LOOSE_OBJECTS_TO_PACK && packs <= PACKS_TO_MERGE) return;
    const lock = await lockPacking(this.paths.repo).catch(() => undefined);
    if (!lock) return; // another window is packing
    // One thread, so a core stays free for the agent's turns. A workspace's first pack is mostly
    // different files, where a delta search costs seconds and saves little: none then. Merging packs
    // keeps what no ref reaches (what a rewind overwrote, a snapshot another window is taking).
    const big = loose > 5 * LOOSE_OBJECTS_TO_PACK;
    const config = ['pack.threads=1', ...(big ? ['pack.window=0', 'pack.compression=1'] : [])];
    const args = packs > PACKS_TO_MERGE ? ['-a', '--keep-unreachable'] : [];
    try {
      await this.git.run(['repack', '-d', '-q', ...args], { background: true, config });
      await this.git.run(['prune-packed', '-q'], { background: true });
    } finally {
      await lock.release();
    }
  }
}

/** Both snapshots' skipped paths, once each (the later one's figures win). */
function mergeSkipped(a: readonly SkippedPath[], b: readonly SkippedPath[]): SkippedPath[] {
  const byPath = new Map<string, SkippedPath>();
  for (const s of [...a, ...b]) byPath.set(s.path, s);
  return [...byPath.values()].sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
}
