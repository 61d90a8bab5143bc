// The inspector's Health view (issue 32), as the host sends it: each memory's stale references, the
// memories it repeats or contradicts, and how it has been used, problems first, with a count of each
// kind of problem for the summary line. File names, references and reasons are data, shown as text.
import type { Shapes } from './shapes';

/** The Health view's requests: open a memory to fix it (at its first stale reference), merge it with its duplicate. */
export type HealthToHost =
  | { type: 'updateMemory'; group: 'private' | 'team'; file: string }
  | { type: 'mergePair'; group: 'private' | 'team'; file: string; other: string }
  /** The Health view's "Tidy memory…": runs Engram: Tidy Memory (the model proposes, the person accepts). */
  | { type: 'tidyMemory' };

export const HEALTH_TO_HOST_SHAPES: Shapes<HealthToHost> = {
  updateMemory: { group: 'enum:private|team', file: 'string' },
  mergePair: { group: 'enum:private|team', file: 'string', other: 'string' },
  tidyMemory: {},
};

/** A reference a memory makes that no longer holds in the workspace. */
export interface HealthStaleView {
  ref: string;
  kind: 'path' | 'symbol' | 'command';
  /** Why, in words a person can act on ("no file or folder src/auth/session.ts"). */
  reason: string;
  /** 1-based line of the topic file where it is written, when known (Update opens the file there). */
  line?: number;
}

/** Another memory this one repeats or contradicts. */
export interface HealthOtherView {
  /** As the check names it: relative to the private memory folder (`team/<name>` for team memory). */
  file: string;
  /** Its title in MEMORY.md, or the file name. */
  title: string;
}

/** One memory's health. */
export interface HealthEntryView {
  /** As the check names it (unique in the view): `<name>.md`, or `team/<name>.md`. */
  file: string;
  /** Its group and its name there: what prune and merge act on. */
  group: 'private' | 'team';
  entryFile: string;
  title: string;
  /** The topic file (Open, Update). */
  path: string;
  type: 'user' | 'feedback' | 'project' | 'reference' | null;
  stale: HealthStaleView[];
  duplicates: HealthOtherView[];
  contradicts: HealthOtherView[];
  /** The subject and both sides of each contradiction ("indentation: tabs vs spaces"), when told locally. */
  contradictionNotes: string[];
  recalled: number;
  used: number;
  notRelevant: number;
  corrected: number;
  /** ISO time. */
  lastUsed?: string;
  /** Said when the check was partial or could not read the file. */
  notes: string[];
}

export interface HealthView {
  /** Memories with a problem first (stale, then contradictions, then duplicates), then by title. */
  entries: HealthEntryView[];
  /** Memories with a stale reference; pairs of duplicates; pairs that contradict. */
  stale: number;
  duplicatePairs: number;
  contradictions: number;
  /** The workspace the references were checked against. */
  workspace?: string;
  /** When the shown result was computed (ms since the epoch); absent before the first check ends. */
  checkedAt?: number;
  /** A check is running (the first one after the session opened, or one after file changes). */
  checking: boolean;
  /** Why there is no result: memory is off, no folder is open, or the source is not the current workspace's. */
  unavailable?: 'memoryOff' | 'noWorkspace' | 'otherSource' | 'untrusted';
  /** The check failed: why. */
  error?: string;
}
