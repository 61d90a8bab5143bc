// The usage each response reported, by its message id: where every gauge starts (transcriptGauge.ts for
// a transcript on disk, a session resumed from one), so all of them count the same reports. Responses
// Engram wrote itself as copies (model `<synthetic>`) and API error lines report no real usage.
import { SYNTHETIC_MODEL } from './transcriptWriter';
import type { AssistantLine, Usage } from './types';
import type { TranscriptLine } from './transcriptReader';

export interface UsageReport {
  /** The last line of the response: it carries the final usage. */
  uuid: string;
  usage: Usage;
}

export function usageReports(lines: readonly TranscriptLine[]): Map<string, UsageReport> {
  const reports = new Map<string, UsageReport>();
  for (const l of lines) {
    if (l.type !== 'assistant') continue;
    const a = l as AssistantLine;
    if (a.isApiErrorMessage || a.message.model === SYNTHETIC_MODEL || !a.message.usage) continue;
    reports.set(a.message.id, { uuid: a.uuid, usage: a.message.usage });
  }
  return reports;
}
