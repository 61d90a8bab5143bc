// A team sync's report in words, for the "Engram: Sync Team Memory" notification and the status bar's
// tooltip. No `vscode` here: the host passes vscode.l10n.t, tests a plain formatter, so the wording (and
// that every template has its Chinese line in l10n/bundle.l10n.zh-cn.json) is unit-tested.
import type { TeamSyncReport } from '../core/host/team';

/** Every template used here; the keys of the l10n bundle. */
export const TEAM_SYNC_WORDS = {
  counts: '{0} pulled, {1} pushed, {2} skipped, {3} blocked',
  synced: 'Engram: team memory of {0} synced: {1}.',
  failed: 'Engram: the team memory sync of {0} failed: {1}',
  blocked: '{0} was not uploaded: it holds a secret ({1}, rule {2}, line {3}). Remove the secret, then sync again.',
  /** A file skipped for its size or the server's cap; the detail says which, in words. */
  skipped: '{0} was not uploaded: {1}.',
  conflict: "{0}: the server's version won; your edit is kept at {1}.",
  more: '…and {0} more (see the Memory Inspector).',
  tooltipNever: 'Team memory: not synced yet.',
  tooltipSynced: 'Team memory of {0}: last sync {1}, {2}.',
  tooltipFailed: 'Team memory of {0}: the last sync ({1}) failed: {2}',
} as const;

/** vscode.l10n.t's shape: a template with {0}-style arguments. */
export type Translate = (message: string, ...args: Array<string | number | boolean>) => string;

/** At most this many files are named in a notification; the inspector lists them all. */
const NAMED_FILES = 3;

export interface TeamSyncMessage {
  level: 'info' | 'warning' | 'error';
  text: string;
}

/** The notification after a sync: counts, then each file that was held back or replaced, and why. */
export function describeTeamSync(report: TeamSyncReport, t: Translate): TeamSyncMessage {
  if (!report.ok) return { level: 'error', text: t(TEAM_SYNC_WORDS.failed, report.repo, report.error ?? '?') };
  const notes = [
    ...report.blocked.map((b) => t(TEAM_SYNC_WORDS.blocked, b.path, b.kind, b.rule, b.line)),
    ...report.skipped.map((s) => t(TEAM_SYNC_WORDS.skipped, s.path, s.detail)),
    ...report.pulled
      .filter((p) => p.reason === 'conflict')
      .map((p) => t(TEAM_SYNC_WORDS.conflict, p.path, p.keptAt ?? '.conflicts')),
  ];
  const named = notes.slice(0, NAMED_FILES);
  if (notes.length > NAMED_FILES) named.push(t(TEAM_SYNC_WORDS.more, notes.length - NAMED_FILES));
  const text = [t(TEAM_SYNC_WORDS.synced, report.repo, counts(report, t)), ...named].join(' ');
  return { level: notes.length ? 'warning' : 'info', text };
}

/** The status bar tooltip's line about the last sync. `time` formats the report's ISO time for people. */
export function teamSyncTooltip(report: TeamSyncReport | null, t: Translate, time: (iso: string) => string): string {
  if (!report) return t(TEAM_SYNC_WORDS.tooltipNever);
  return report.ok
    ? t(TEAM_SYNC_WORDS.tooltipSynced, report.repo, time(report.at), counts(report, t))
    : t(TEAM_SYNC_WORDS.tooltipFailed, report.repo, time(report.at), report.error ?? '?');
}

function counts(report: TeamSyncReport, t: Translate): string {
  return t(
    TEAM_SYNC_WORDS.counts,
    report.pulled.length,
    report.pushed.length,
    report.skipped.length,
    report.blocked.length,
  );
}
