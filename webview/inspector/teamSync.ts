// How the team group shows sync: a badge per file (synced, local change, blocked with its rule, skipped,
// conflict, and what the last pull did), the long form for the details panel, and the group header's
// line about the last sync. Everything here is text: rule names and errors come from files and servers.
import type { TeamFileSyncView, TeamMemoryView } from '../../src/protocol/messages';
import { ago, dateTime } from './format';
import { t, type StringKey } from './strings';

/**
 * The badge's words and its class (`badge-sync-<state>`, so tests and themes can find it). One badge a
 * file: a synced file the last pull wrote says so instead of "synced".
 */
export function syncBadgeText(sync: TeamFileSyncView): { text: string; className: string } {
  const s = sync.status;
  const className = `badge badge-sync badge-sync-${s.state}`;
  if (s.state === 'synced' && sync.pulled) return { text: pulledText(sync), className: `${className} badge-pulled` };
  return { text: s.state === 'blocked' ? t('sync_blocked', s.rule) : t(`sync_${s.state}` as StringKey), className };
}

/** The state in a sentence: why a file was not uploaded, where a conflict's local copy went. */
export function syncLongText(sync: TeamFileSyncView, serverMaxEntries: number | null): string {
  const s = sync.status;
  switch (s.state) {
    case 'blocked':
      return t('syncLong_blocked', s.kind, s.rule, s.line);
    case 'skipped':
      return s.reason === 'too_large'
        ? t('syncLong_too_large', s.detail)
        : t('syncLong_server_max_entries', s.detail, serverMaxEntries ?? '?');
    case 'conflict':
      return t('syncLong_conflict', s.keptAt);
    default:
      return t(`syncLong_${s.state}` as StringKey);
  }
}

/** What the last pull did to the file, or ''. */
export function pulledText(sync: TeamFileSyncView): string {
  return sync.pulled ? t(`pulled_${sync.pulled}` as StringKey) : '';
}

type LastSync = NonNullable<TeamMemoryView['lastSync']>;

/** What the last sync moved: every count (`full`, the details panel), or only those above zero (the header). */
export function syncCounts(last: LastSync, full: boolean): string {
  const parts = (
    [
      ['count_pulled', last.pulled],
      ['count_pushed', last.pushed],
      ['count_skipped', last.skipped],
      ['count_blocked', last.blocked],
    ] as const
  )
    .filter(([, n]) => full || n > 0)
    .map(([key, n]) => t(key, n));
  if (last.conflicts) parts.push(t('count_conflicts', last.conflicts));
  return parts.length ? parts.join(' · ') : t('teamNoChanges');
}

/** The team group header's line: when the last sync ran and what it did (or why it failed). */
export function teamSyncSummary(
  team: TeamMemoryView | undefined,
  now: number,
): { text: string; title: string; failed: boolean } {
  const last = team?.lastSync;
  const where = team?.repo && team.server ? t('teamRepo', team.repo, team.server) : '';
  if (!last) return { text: t('teamNeverSynced'), title: where, failed: false };
  const at = Date.parse(last.at);
  const when = Number.isFinite(at) ? ago(at, now) : last.at;
  const title = [where, Number.isFinite(at) ? dateTime(at) : ''].filter(Boolean).join(' · ');
  if (!last.ok) return { text: t('teamLastSyncFailed', when, last.error ?? '?'), title, failed: true };
  return { text: t('teamLastSync', when, syncCounts(last, false)), title, failed: false };
}
