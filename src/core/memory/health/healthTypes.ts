// The shapes of memory health (issue 32), shared by the reference check, the repeat and contradiction
// finder, the use counts, the inspector's Health view, the chat's notice and `engram memory check`.
// A memory is one topic file of a memory folder (private, team, or Claude Code's when inspected).

/** What a memory names that can go stale. */
export type ReferenceKind = 'path' | 'symbol' | 'command';

/** One reference a memory makes, found in its text. */
export interface MemoryReference {
  /** As written in the memory (a path, a backticked symbol, a command such as `npm run lint`). */
  ref: string;
  kind: ReferenceKind;
  /** 1-based line in the topic file where it was found. */
  line: number;
}

/** A reference that no longer holds in the workspace as it is now. */
export interface StaleReference {
  ref: string;
  kind: ReferenceKind;
  /** Why, in words a person can act on: "no file or folder src/auth/session.ts", "no script 'lint' in package.json". */
  reason: string;
}

/** A reference the check could not judge, and why (outside the workspace, ignored build output). Never stale. */
export interface UncheckedReference {
  ref: string;
  kind: ReferenceKind;
  reason: string;
}

/** How the memory has been used (issue 32 item 4). */
export interface MemoryUse {
  /** Times recall attached it to a turn. */
  recalled: number;
  /** Times the turn that recalled it acted in line with it, with evidence (its words or references in the reply or tool calls). */
  used: number;
  /** Times a person clicked "not relevant" on it. */
  notRelevant: number;
  /** Times a later user message corrected it (each proposes an update through the review queue). */
  corrected: number;
  /** ISO time of the newest use, when there was one. */
  lastUsed?: string;
  /** The evidence of the newest "used" turns (the memory's words or references found in the reply or tool calls). */
  usedEvidence?: string[][];
  /** The newest corrections: when, and the person's message. */
  corrections?: Array<{ at: string; message: string }>;
}

/** The health of one memory: `engram memory check --json` prints an array of these under `memories`. */
export interface MemoryHealth extends MemoryUse {
  /** Topic file name, relative to its memory folder (e.g. "feedback_tabs.md"). */
  file: string;
  stale: StaleReference[];
  /** Topic files that say the same thing. */
  duplicates: string[];
  /** Topic files that give the opposite instruction on the same subject. */
  contradicts: string[];
  /** For each contradiction, the subject and both sides in words ("indentation: tabs vs spaces"), when told locally. */
  contradictionNotes?: string[];
  /** A team memory (its file is then `team/<name>`). */
  team?: boolean;
  /** References not checked, with the reason (never counted as stale). */
  unchecked?: UncheckedReference[];
  /** Said when the check was partial or the file could not be read ("only the first 500 of its 10000 references were checked"). */
  notes?: string[];
}
