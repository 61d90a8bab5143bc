// The checkpoint store of one session in one workspace (issue 33): a snapshot of the workspace before the
// agent's first change in a turn and one as the turn ends, each a commit in the workspace's shadow
// repository on the session's own ref, with the session's own index and log, so two windows on one
// workspace never share either. A baseline snapshot is taken in the background as the store opens (the
// first full hashing of the workspace), and the loose objects are packed in the background once they
// pile up. Rewinds are planned from the log (rewindPlan.ts) and written under a journal (rewindApply.ts).
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../ports';
import { lockShared, prepareRepository, type RepoPaths, repoPaths, emptyGlobalConfig, seedIndex } from './repository';
import { applyRewind, recoverJournals, undoRewind } from './rewindApply';
import { planRewind } from './rewindPlan';
import { appendLog, type LogLine, publicTurn, readLog } from './sessionLog';
import { GitError, gitOnPath, ShadowGit } from './shadowGit';
import { diffSnapshots, type Snapshot, takeSnapshot } from './snapshot';
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

/** A snapshot nobody waits for: the baseline, and where a failed one leaves the turn. */
type Pending = Promise<Snapshot | undefined>;

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
  const recovered = await recoverJournals(git, paths, opts.logger);
  const store = new CheckpointStore(git, paths, opts, recovered);
  await store.start();
  return store;
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
  private baselineDone: Pending = Promise.resolve(undefined);
  private current: { turn: number; promptUuid?: string; at: number; before?: Pending } | undefined;
  private maintenance: Promise<void> | undefined;
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
    const head = await this.git
      .text(['rev-parse', '--verify', '-q', `${this.paths.ref}^{commit}`], { okCodes: [1] })
      .catch(() => '');
    if (head) this.parent = { commit: head, tree: await this.git.text(['rev-parse', `${head}^{tree}`]) };
    const started = Date.now();
    this.baselineDone = this.snapshot('baseline', false).then((s) => {
      this.baseline.tookMs = Date.now() - started;
      this.packLater();
      return s;
    });
  }

  /** Runs snapshots (and anything else using the session index) one at a time. */
  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** A snapshot, or undefined (with a warning) when git failed: a turn is never stopped by a checkpoint. */
  private snapshot(message: string, reportExcluded: boolean): Pending {
    return this.serial(async () => {
      const place = { git: this.git, ...this.paths, maxFileBytes: this.opts.maxFileBytes };
      const snap = await takeSnapshot(place, this.parent, message, { reportExcluded });
      this.parent = { commit: snap.commit, tree: snap.tree };
      return snap;
    }).catch((e: unknown) => {
      this.opts.logger.warn(`Checkpoints: the ${message} snapshot failed: ${e instanceof Error ? e.message : e}`);
      return undefined;
    });
  }

  beginTurn(turn: number, promptUuid?: string): void {
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
    await turn.before;
  }

  async endTurn(): Promise<TurnCheckpoint | undefined> {
    const turn = this.current;
    if (!turn) return undefined;
    this.current = undefined;
    const before = await (turn.before ?? Promise.resolve(undefined));
    const after = before ? await this.snapshot(`after turn ${turn.turn}`, true) : undefined;
    const base = { sessionId: this.opts.sessionId, turn: turn.turn, at: turn.at };
    let line: LogLine = {
      ...base,
      ...(turn.promptUuid ? { promptUuid: turn.promptUuid } : {}),
      files: [],
      skipped: [],
    };
    if (before && after) {
      const skipped = mergeSkipped(before.skipped, after.skipped);
      const left = new Set(after.skipped.map((s) => s.path));
      const changes = (await diffSnapshots(this.git, before.commit, after.commit)).filter(
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
    return publicTurn(line);
  }

  async list(): Promise<TurnCheckpoint[]> {
    return (await readLog(this.paths.log, this.opts.logger)).filter((l) => !l.rewind).map(publicTurn);
  }

  async planCodeRewind(toTurn: number, promptUuid?: string): Promise<CodeRewindPlan> {
    const lines = await readLog(this.paths.log, this.opts.logger);
    await this.baselineDone;
    const now = await this.snapshot('rewind preview', false);
    if (!now) throw new Error('Checkpoints could not take a snapshot of the workspace as it is now (see the log).');
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

  async dispose(): Promise<void> {
    this.disposed = true;
    await this.baselineDone;
    await this.queue;
    await this.maintenance;
  }

  /** Packs the loose objects in the background once they pile up (under the shared lock; never pruned). */
  private packLater(): void {
    if (this.maintenance || this.disposed) return;
    this.maintenance = this.pack()
      .catch((e: unknown) => this.opts.logger.warn(`Checkpoints: packing the shadow repository failed: ${e}`))
      .finally(() => {
        this.maintenance = undefined;
      });
  }

  private async pack(): Promise<void> {
    const counts = await this.git.text(['count-objects', '-v']);
    const loose = Number(/^count: (\d+)$/m.exec(counts)?.[1] ?? 0);
    if (loose <= LOOSE_OBJECTS_TO_PACK) return;
    const lock = await lockShared(this.paths.repo, 0).catch(() => undefined);
    if (!lock) return; // another window is packing
    try {
      await this.git.run(['repack', '-d', '-q']);
      await this.git.run(['prune-packed', '-q']);
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
