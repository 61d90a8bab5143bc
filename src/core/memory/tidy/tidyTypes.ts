// The shapes of a memory tidy (issue 32 item 6): what the model proposed (per change, each file's text
// before and after), what was refused and why, and the record an applied tidy leaves for its undo.
// Shared by the proposer, the applier, the background cadence, `engram memory tidy` and VS Code's review.

/** What a change does: two or more files become the first; one file gets a new text; one file goes. */
export type TidyKind = 'merge' | 'rewrite' | 'delete';

/** One file a change touches: its text when proposed, and after (null: the file is removed). */
export interface TidyFileChange {
  /** Topic file name, relative to the memory folder. */
  file: string;
  before: string;
  after: string | null;
}

export interface TidyChange {
  /** Stable within the proposal ("c1", "c2", ...): what a person accepts. */
  id: string;
  kind: TidyKind;
  /** The model's one-sentence reason. */
  reason: string;
  /** The kept file first; for a merge the others follow (removed). */
  files: TidyFileChange[];
  proposedAt: string;
}

/** A change the model proposed that is not offered, with why (it would leave the folder, names no memory...). */
export interface TidyRefusal {
  kind: string;
  files: string[];
  reason: string;
}

export interface TidyProposal {
  id: string;
  memoryDir: string;
  createdAt: string;
  changes: TidyChange[];
  refused: TidyRefusal[];
  /** Said when nothing was asked ("no memories to tidy"). */
  note?: string;
}

/** One file as the whole tidy changes it, MEMORY.md included: what a diff shows. */
export interface TidyFileDiff {
  file: string;
  before: string;
  after: string | null;
}
