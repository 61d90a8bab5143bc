import { groupDigits } from '../shared/gauge';
import { t } from './strings';

export function num(n: number): string {
  return groupDigits(n);
}

/** "3 min ago" from two epoch times. */
export function ago(at: number, now: number): string {
  const s = Math.max(0, Math.round((now - at) / 1000));
  if (s < 5) return t('justNow');
  if (s < 60) return t('secondsAgo', s);
  if (s < 3600) return t('minutesAgo', Math.floor(s / 60));
  if (s < 86_400) return t('hoursAgo', Math.floor(s / 3600));
  return t('daysAgo', Math.floor(s / 86_400));
}

/** "3 d" (an age without "ago", for compact rows). */
export function age(at: number, now: number): string {
  const s = Math.max(0, Math.round((now - at) / 1000));
  if (s < 60) return t('ageSeconds', s);
  if (s < 3600) return t('ageMinutes', Math.floor(s / 60));
  if (s < 86_400) return t('ageHours', Math.floor(s / 3600));
  return t('ageDays', Math.floor(s / 86_400));
}

export function clock(at: number): string {
  const d = new Date(at);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export function dateTime(at: number): string {
  const d = new Date(at);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${clock(at)}`;
}
