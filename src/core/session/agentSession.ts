// The agent half of a session: a new or resumed transcript under the data dir (resumed through the
// streaming loader, so memory stays bounded by the current conversation, not the file), the system
// prompt with environment and instructions, the tools, and the Agent on top. openEngramSession.ts adds
// the memory engine around it; hosts open sessions through that, not this.
import { randomUUID } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { queueTail } from '../conversation/appendQueue';
import { formatBranchReport, reportBranches, type BranchReport } from '../conversation/branches';
import { findGitRoot, subagentTranscriptIn } from '../conversation/projectKey';
import type { NormaliseReport } from '../conversation/normalise';
import {
  formatProblem,
  transcriptProblems,
  type CorruptLine,
  type TranscriptProblem,
} from '../conversation/transcriptReader';
import { TranscriptWriter } from '../conversation/transcriptWriter';
import type { ApiMessage, SystemBlock, ToolResultBlock } from '../conversation/types';
import type { ModelClient, ThinkingConfig } from '../llm/modelClient';
import { lastReport } from '../tokens/transcriptGauge';
import type { RetryOptions } from '../llm/retry';
import { loadInstructions, type InstructionFile } from '../memory/instructions';
import { sessionPathsFor, type SessionPaths } from '../memory/sessionPaths';
import { silentLogger, type Logger, type PermissionPrompt } from '../ports';
import { createDefaultTools } from '../tools/defaultTools';
import type { Tool } from '../tools/tool';
import { Agent, type AgentOptions } from '../agent/agent';
import type { SessionSearch } from '../agent/searchContext';
import type { ToolGate } from '../agent/permissions';
import { composeSystemPrompt, localDate, type SystemPromptInput, type SystemPromptParts } from '../agent/systemPrompt';
import { loadReplayedConversation, type RecordedEvent } from '../compaction/recordedCompactions';
import { TranscriptGuard, type SessionWriterOptions } from './transcriptGuard';
import { fileInTheWay } from '../fs/fileKind';

export interface SessionSetup {
  /** Repeated tool output goes to the model as a note (`engram.compaction.sendRepeatsOnce`). */
  sendRepeatsOnce?: boolean;
  dataDir: string;
  /** The project folder: tools work here, transcripts go under its project key. */
  cwd: string;
  /** Continue this session (its transcript must exist); a new session when absent. */
  resumeSessionId?: string;
  /**
   * The session's paths, made once as it opens (openEngramSession.ts passes them); without them (the
   * agent tests) they are made here from `dataDir`, `cwd` and the session id.
   */
  paths?: SessionPaths;
  /** One writer at a time on the transcript (transcriptGuard.ts); none: no lock (tests). */
  writer?: SessionWriterOptions;
  client: ModelClient;
  model: string;
  maxTokens: number;
  thinking?: ThinkingConfig;
  trusted: boolean;
  permissionPrompt: PermissionPrompt;
  gate?: ToolGate;
  /** Default: createDefaultTools(). */
  tools?: Tool[];
  /** The engine Grep and Glob search with and their bounds (the host's ripgrep and settings). */
  search?: SessionSearch;
  /** Tools offered after the built-ins, read before each model call (the MCP hub's). */
  moreTools?(): Tool[];
  /** Engram's version, recorded on transcript lines. */
  version: string;
  /** Recorded as `entrypoint` on transcript lines, e.g. `cli` or `vscode`. */
  entrypoint: string;
  /** Lines added to the system prompt for this entry point. */
  systemNotes?: string[];
  /** Auto memory's system prompt slot (autoMemory/memoryPrompts.ts memorySystemSlot). */
  memory?: SystemPromptInput['memory'];
  /** Team memory's system prompt slot, when it is on (autoMemory/memoryPrompts.ts teamSystemSlot). */
  teamMemoryIndex?: SystemPromptInput['teamMemory'];
  logger?: Logger;
  retry?: Omit<RetryOptions, 'onRetry'>;
  recoverPromptTooLong?: AgentOptions['recoverPromptTooLong'];
  now?: Date;
}

export interface OpenedSession {
  agent: Agent;
  /** The system prompt's sized parts (instructions, memory index, the rest), for the gauge. */
  promptParts: SystemPromptParts;
  /** The instruction files in the system prompt (CLAUDE.md, AGENTS.md and their imports), in prompt order. */
  instructionFiles: InstructionFile[];
  sessionId: string;
  transcriptPath: string;
  /**
   * For a resumed session: what the reader skipped or repaired, and the compactions recorded in the
   * transcript (their cuts are already replayed on the messages; the session rebuilds its timeline).
   */
  resumed?: {
    messages: number;
    corrupt: CorruptLine[];
    tornTail: boolean;
    report: NormaliseReport;
    compactions: RecordedEvent[];
    /** The lines skipped or repaired, by file and line, with the reason (engram -p prints them). */
    problems: TranscriptProblem[];
    /** Full outputs of the results the model got as notes, by tool_use id (the chat shows these). */
    fullOutputs: ReadonlyMap<string, ToolResultBlock['content']>;
    /**
     * Where the conversation branches (two writers at once): only the newest branch was read (engram -p
     * prints them).
     */
    branches: BranchReport[];
    /**
     * The last usage report among the messages (which message, its total): the gauge starts from it, as
     * `engram gauge` does.
     */
    lastReport?: { index: number; total: number };
  };
  warnings: string[];
  /** The session's claim on its transcript, when `writer` was given; the session releases it. */
  guard?: TranscriptGuard;
}

export class SessionNotFoundError extends Error {
  constructor(
    readonly sessionId: string,
    readonly file: string,
  ) {
    super(`No session ${sessionId} for this project (looked for ${file}).`);
    this.name = 'SessionNotFoundError';
  }
}

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** Session ids become file names: refuse anything that could point elsewhere. */
export function isValidSessionId(id: string): boolean {
  return SESSION_ID.test(id);
}

/** The id of the session to resume, or a new one; refused before it becomes a file name. */
export function checkedSessionId(resumeSessionId: string | undefined): string {
  const sessionId = resumeSessionId ?? randomUUID();
  if (!isValidSessionId(sessionId)) throw new Error(`Not a valid session id: ${JSON.stringify(sessionId)}`);
  return sessionId;
}

export async function openSession(setup: SessionSetup): Promise<OpenedSession> {
  const logger = setup.logger ?? silentLogger;
  const paths =
    setup.paths ??
    (await sessionPathsFor({
      dataDir: setup.dataDir,
      cwd: setup.cwd,
      sessionId: checkedSessionId(setup.resumeSessionId),
    }));
  const { sessionId, transcript: transcriptPath } = paths;
  await checkTranscriptFolder(paths.dataDir, transcriptPath);
  // A session that is not there is said before the lock would make its folder.
  if (setup.resumeSessionId !== undefined) await checkTranscriptFile(sessionId, transcriptPath);
  // Taken before the transcript is read: a writer that waited reads the turns of the one before it.
  const guard = setup.writer ? await TranscriptGuard.beforeRead(transcriptPath, setup.writer) : undefined;
  try {
    const opened = await openTranscript(setup, paths, logger);
    const transcript = opened.agent.transcript;
    if (guard && transcript) guard.watch(transcript);
    return { ...opened, ...(guard ? { guard } : {}) };
  } catch (e) {
    await guard?.release();
    throw e;
  }
}

/** A file where a folder must be would fail deep inside as "EEXIST ... mkdir": say which, in words. */
async function checkTranscriptFolder(dataDir: string, transcriptPath: string): Promise<void> {
  const blocked = await fileInTheWay(path.dirname(transcriptPath));
  if (blocked === undefined) return;
  if (blocked === path.resolve(dataDir)) {
    throw new Error(
      `Engram's data folder ${blocked} is a file, not a folder. Move the file away, ` +
        'or set engram.dataDir (--data-dir, ENGRAM_DATA_DIR) to a folder.',
    );
  }
  throw new Error(
    `Could not write the transcript ${transcriptPath}: ${blocked} is a file, not a folder. ` +
      'Move the file away and try again.',
  );
}

async function openTranscript(setup: SessionSetup, paths: SessionPaths, logger: Logger): Promise<OpenedSession> {
  const { cwd, sessionId, transcript: transcriptPath } = paths;
  const warnings: string[] = [];

  let messages: ApiMessage[] = [];
  let parentUuid: string | null = null;
  let resumed: OpenedSession['resumed'];
  if (setup.resumeSessionId !== undefined) {
    // Lines this process is still appending to it (a rewind marker, say) are part of what it resumes.
    await queueTail(transcriptPath);
    await checkTranscriptFile(sessionId, transcriptPath);
    // Streaming: only the lines the current conversation can reach are held, whatever the file's size.
    // The cuts the last process made are part of what it sent: replayed, so this one sends the same bytes.
    const read = await loadReplayedConversation(transcriptPath);
    const { entries, report } = read;
    messages = entries.map((e) => e.message);
    parentUuid = report.leafUuid ?? null;
    const problems = transcriptProblems(transcriptPath, read);
    const branches = await reportBranches(transcriptPath, read.branches);
    const reported = lastReport(entries, read.usageReports);
    resumed = {
      messages: messages.length,
      corrupt: read.corrupt,
      tornTail: read.tornTail,
      report,
      compactions: read.records,
      problems,
      fullOutputs: read.fullOutputs,
      branches,
      ...(reported ? { lastReport: reported } : {}),
    };
    warnings.push(...problems.map(formatProblem));
    warnings.push(...branches.map((b) => formatBranchReport(transcriptPath, b)));
    warnings.push(...read.replay.warnings.map((w) => `${transcriptPath}: ${w}`));
  }

  const { system, parts, instructionFiles, warnings: promptWarnings } = await sessionSystemPrompt({ ...setup, paths });
  warnings.push(...promptWarnings);

  // Every line records the working folder as `cwd`, as Claude Code's do.
  const common = { cwd, sessionId, version: setup.version, entrypoint: setup.entrypoint };
  const transcript = new TranscriptWriter({ ...common, file: transcriptPath, parentUuid });
  const agent = new Agent({
    client: setup.client,
    model: setup.model,
    maxTokens: setup.maxTokens,
    ...(setup.thinking ? { thinking: setup.thinking } : {}),
    system,
    tools: setup.tools ?? createDefaultTools(),
    ...(setup.moreTools ? { moreTools: setup.moreTools } : {}),
    trusted: setup.trusted,
    permissionPrompt: setup.permissionPrompt,
    ...(setup.gate ? { gate: setup.gate } : {}),
    ...(setup.search ? { search: setup.search } : {}),
    cwd,
    sessionId,
    transcript,
    openSubagentTranscript: (agentId) =>
      new TranscriptWriter({ ...common, file: subagentTranscriptIn(paths.sessionDir, agentId), agentId }),
    messages,
    logger,
    ...(setup.retry ? { retry: setup.retry } : {}),
    ...(setup.recoverPromptTooLong ? { recoverPromptTooLong: setup.recoverPromptTooLong } : {}),
    ...(setup.sendRepeatsOnce !== undefined ? { sendRepeatsOnce: setup.sendRepeatsOnce } : {}),
  });
  const opened = { agent, sessionId, transcriptPath, promptParts: parts, instructionFiles };
  return { ...opened, ...(resumed ? { resumed } : {}), warnings };
}

export type SystemPromptSetup = Pick<
  SessionSetup,
  'cwd' | 'dataDir' | 'trusted' | 'systemNotes' | 'memory' | 'teamMemoryIndex' | 'now'
> & {
  /** The session's paths (its git root is known then); without them the git root is looked for. */
  paths?: Pick<SessionPaths, 'cwd' | 'gitRoot'>;
};

/**
 * The session's system prompt: environment, CLAUDE.md instructions (read now) and the memory indexes.
 * Built once when a session opens, and again after a compaction (which breaks the cache anyway) so
 * that instructions and memory written since are seen.
 */
export async function sessionSystemPrompt(setup: SystemPromptSetup): Promise<{
  system: SystemBlock[];
  parts: SystemPromptParts;
  instructionFiles: InstructionFile[];
  warnings: string[];
}> {
  const cwd = setup.paths?.cwd ?? path.resolve(setup.cwd);
  const gitRoot = setup.paths ? setup.paths.gitRoot : await findGitRoot(cwd);
  const instructions = await loadInstructions({ cwd, configDir: setup.dataDir, trusted: setup.trusted });
  const { blocks: system, parts } = composeSystemPrompt({
    cwd,
    platform: process.platform,
    date: localDate(setup.now),
    isGitRepo: gitRoot !== undefined,
    instructions: instructions.text,
    ...(setup.systemNotes ? { notes: setup.systemNotes } : {}),
    ...(setup.memory ? { memory: setup.memory } : {}),
    ...(setup.teamMemoryIndex ? { teamMemory: setup.teamMemoryIndex } : {}),
  });
  // The files the prompt holds: renderInstructions leaves empty ones out.
  const instructionFiles = instructions.files.filter((f) => f.content.trim() !== '');
  return { system, parts, instructionFiles, warnings: instructions.warnings };
}

/** A session to resume has its transcript, and it is a file (a folder of that name would read as no session). */
async function checkTranscriptFile(sessionId: string, file: string): Promise<void> {
  const st = await fsp.stat(file).catch(() => undefined);
  if (!st) throw new SessionNotFoundError(sessionId, file);
  if (!st.isFile())
    throw new Error(
      `The transcript of session ${sessionId} is not a file: ` +
        `${file} is a ${st.isDirectory() ? 'folder' : 'special file'}. Move it away, or resume another session.`,
    );
}
