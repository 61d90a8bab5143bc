// Checkpoints and rewinds as hosts reach them (issue 33). A live session offers them itself
// (EngramSession.turns, planRewind, applyRewind, undoRewind, and `checkpoints` for the diff views); the
// types are here. `engram rewind` works on a session on disk instead: openSessionOnDisk opens its
// checkpoints and its transcript and offers the same plan, apply and undo, writing the conversation's
// rewind line as the session's only writer (a process that holds the session makes it refuse).
import { promises as fsp } from 'node:fs';
import { TranscriptWriter } from '../conversation/transcriptWriter';
import { readTurnIndex } from '../conversation/turnIndex';
import { setReopened } from '../conversation/rewindLine';
import { isErrno } from '../fs/errno';
import { acquireWriterLock, describeHolder, LockBusyError, type WriterLock } from '../fs/writerLock';
import { sessionPathsFor } from '../memory/sessionPaths';
import { silentLogger, type Logger } from '../ports';
import { isValidSessionId, SessionNotFoundError } from '../session/agentSession';
import type { RewindForce, RewindOutcome, RewindPlan, RewindRequest, SessionTurn } from '../session/rewindTypes';
import { openSessionCheckpoints, type SessionCheckpointStore } from '../session/sessionCheckpoints';
import {
  applySessionRewind,
  planSessionRewind,
  sessionTurns,
  undoSessionRewind,
  type RewindTarget,
} from '../session/sessionRewind';
import type { EngramSettings } from '../settings/engramSettings';
import { ENGRAM_VERSION } from '../version';

export type { RewindForce, RewindOutcome, RewindPlan, RewindRequest, SessionTurn };

/** A session on disk, rewound without opening it (the CLI). */
export interface SessionOnDisk {
  readonly sessionId: string;
  readonly transcriptPath: string;
  /** Undefined never: the CLI's workspace is trusted by the person who runs it; unavailable says why. */
  readonly checkpoints: SessionCheckpointStore | undefined;
  turns(): Promise<SessionTurn[]>;
  plan(req: RewindRequest): Promise<RewindPlan>;
  apply(plan: RewindPlan, opts?: RewindForce): Promise<RewindOutcome>;
  undo(id: string, opts?: RewindForce): Promise<RewindOutcome>;
  /** Lets go of the checkpoints and of the session's writer lock. */
  close(): Promise<void>;
}

/** Opens the session `sessionId` of the project at `cwd` for a rewind; SessionNotFoundError when there is none. */
export async function openSessionOnDisk(o: {
  dataDir: string;
  cwd: string;
  sessionId: string;
  settings: EngramSettings;
  logger?: Logger;
  entrypoint?: string;
}): Promise<SessionOnDisk> {
  if (!isValidSessionId(o.sessionId))
    throw new Error(`"${o.sessionId}" is not a session id (engram inspect lists a project's sessions).`);
  const paths = await sessionPathsFor({ dataDir: o.dataDir, cwd: o.cwd, sessionId: o.sessionId });
  const file = paths.transcript;
  const stat = await fsp.stat(file).catch((e: unknown) => {
    if (isErrno(e, 'ENOENT')) return undefined;
    throw e;
  });
  if (!stat?.isFile()) throw new SessionNotFoundError(o.sessionId, file);
  const logger = o.logger ?? silentLogger;
  const checkpoints = await openSessionCheckpoints({
    trusted: true,
    settings: o.settings,
    dataDir: o.dataDir,
    cwd: paths.cwd,
    sessionId: o.sessionId,
    logger,
  });
  let lock: WriterLock | undefined;
  let writer: TranscriptWriter | undefined;
  const target: RewindTarget = {
    transcriptPath: file,
    checkpoints,
    busy: () => undefined,
    writer: () => {
      if (!writer) throw new Error('The transcript is not open for writing.');
      return writer;
    },
    beforeConversationWrite: async () => {
      if (writer) return;
      lock = await holdSession(o.sessionId, file);
      const index = await readTurnIndex(file);
      writer = new TranscriptWriter({
        file,
        cwd: paths.cwd,
        sessionId: o.sessionId,
        version: ENGRAM_VERSION,
        entrypoint: o.entrypoint ?? 'cli',
        parentUuid: index.leafUuid ?? null,
      });
      setReopened(writer, index.reopened);
    },
  };
  return {
    sessionId: o.sessionId,
    transcriptPath: file,
    checkpoints,
    turns: async () => (await sessionTurns(target)).turns,
    plan: (req) => planSessionRewind(target, req),
    apply: (plan, opts) => applySessionRewind(target, plan, opts),
    undo: (id, opts) => undoSessionRewind(target, id, opts),
    close: async () => {
      await writer?.flush().catch(() => undefined);
      if (checkpoints?.available) await checkpoints.dispose();
      await lock?.release();
    },
  };
}

/** The session's writer lock, at once or not at all: a conversation rewind under a running turn is refused. */
async function holdSession(sessionId: string, file: string): Promise<WriterLock> {
  try {
    return await acquireWriterLock(file, { waitMs: 0 });
  } catch (e) {
    if (!(e instanceof LockBusyError)) throw e;
    throw new Error(
      `${describeHolder(e.holder)} is writing session ${sessionId} (open in another window or run): ` +
        'its conversation cannot be rewound now. Wait for its turn to end, or rewind from that window; ' +
        '--code alone does not need the transcript.',
    );
  }
}
