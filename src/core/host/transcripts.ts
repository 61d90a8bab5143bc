// Transcripts as the CLI's commands work on them outside a session: what is in a data folder (projects,
// sessions, memory, compactions), a transcript's gauge, compacting one, merging the branches a rewind
// left behind, and the words for a transcript's problems and branches. Each reads or writes the files
// Claude Code and Engram share, so the rules for them live in core, not in a host.
import { mergeBranches as mergeLostBranches, type MergeOutcome } from '../conversation/branchMerge';
import {
  compactTranscript as compact,
  type TranscriptCompactionInput,
  type TranscriptCompactionOutcome,
} from '../compaction/transcriptCompaction';
import {
  inspectRoot as inspectDataRoot,
  memoryFileName as memoryFileNameOf,
  type InspectOptions,
  type InspectedProject,
  type Inspection,
} from '../inspection/projectInspection';
import {
  formatBranchReport as branchReportText,
  formatProblem as problemText,
  gaugeTranscript as gaugeOf,
  type BranchReport,
  type TranscriptMeasure,
  type TranscriptProblem,
} from '../inspection/transcriptInspection';
import type { EngramSettings } from '../settings/engramSettings';

export type { BranchReport, InspectedProject, Inspection, InspectOptions, MergeOutcome, TranscriptMeasure };
export type { TranscriptCompactionInput, TranscriptCompactionOutcome, TranscriptProblem };
export type { ChainStage } from '../compaction/transcriptCompaction';
export type { DroppedFacts } from '../compaction/types';

/** The stages `engram compact --stage` offers, in the order the automatic chain tries them. */
export { TRANSCRIPT_STAGES } from '../compaction/transcriptCompaction';

/** Thrown by compactTranscript when the session's notes exist but cannot be read (nothing is written). */
export { UnreadableNotesError } from '../compaction/transcriptCompaction';

/** Every project under a data root (Engram's or Claude Code's), with its sessions, memory and compactions. */
export function inspectRoot(root: string, opts: InspectOptions = {}): Promise<Inspection> {
  return inspectDataRoot(root, opts);
}

/** A memory file's name under the memory folder as the inspection lists it (team files under `team/`). */
export function memoryFileName(entry: Pick<InspectedProject['memory']['entries'][number], 'group' | 'file'>): string {
  return memoryFileNameOf(entry);
}

/**
 * A transcript's context gauge as the settings frame it (the live gauge replayed on its current
 * conversation), with the exact tokenizer loaded first.
 */
export function gaugeTranscript(file: string, settings: EngramSettings): Promise<TranscriptMeasure> {
  return gaugeOf(file, settings);
}

/** Compacts a transcript on disk at one stage (or the automatic chain), appending the result to it. */
export function compactTranscript(input: TranscriptCompactionInput): Promise<TranscriptCompactionOutcome> {
  return compact(input);
}

/**
 * Joins a transcript that two writers branched: the turns of every branch a resume leaves out are
 * appended after the branch it reads (append-only: the old lines stay).
 */
export function mergeBranches(file: string, opts: { version: string; entrypoint?: string }): Promise<MergeOutcome> {
  return mergeLostBranches(file, opts);
}

/** A transcript's problem (a broken line, a missing parent) in one line for a command's output. */
export function formatProblem(problem: TranscriptProblem): string {
  return problemText(problem);
}

/** The branches found in a transcript, in words for a command's output. */
export function formatBranchReport(file: string, report: BranchReport): string {
  return branchReportText(file, report);
}
