import { FULL_COMPACT_PERCENT, MICROCOMPACT_PERCENT, SESSION_MEMORY_COMPACT_PERCENT } from './thresholds';

/** The three compaction marks of the context gauge, with their `engram.compaction.*` setting names. */
export const COMPACTION_MARKS = [
  { setting: 'microcompactPercent', default: MICROCOMPACT_PERCENT },
  { setting: 'sessionMemoryPercent', default: SESSION_MEMORY_COMPACT_PERCENT },
  { setting: 'fullPercent', default: FULL_COMPACT_PERCENT },
] as const;
