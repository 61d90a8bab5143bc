// What the inspector needs from the chat session to undo a compaction. The session implements it next
// to its compaction wiring; until it does, the inspector shows no Undo button.

export interface CompactionControl {
  /**
   * Undoes the newest compaction of the live session (CompactionOrchestrator.undoLast): the replaced
   * messages come back from the transcript. Resolves false when there is nothing it can undo.
   */
  undoLastCompaction(): Promise<boolean>;
}

export function canUndoCompactions(session: object): session is CompactionControl {
  return typeof (session as Partial<CompactionControl>).undoLastCompaction === 'function';
}
