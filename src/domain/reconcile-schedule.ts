/**
 * When the server reconciles an incremental build with a full build of the same commit on its own
 * (ARCHIVE_RECONCILE_SCHEDULE). The grammar is small on purpose:
 *
 *   off            never on a schedule (the default; on demand only)
 *   <n>m | <n>h | <n>d   every n minutes (1-10080), hours (1-168) or days (1-7), at whole multiples
 *                  of the interval counted in UTC from 1970-01-01T00:00:00Z: `6h` runs at 00:00,
 *                  06:00, 12:00 and 18:00 UTC, `30m` at :00 and :30, so a restart never shifts it
 *   daily@HH:MM    once a day at this UTC time (00:00-23:59)
 *
 * Pure: parsing and "when next" only; the rebuilder decides whether there is anything to do then.
 */

export type ReconcileSchedule =
  | { kind: 'off' }
  | { kind: 'interval'; everyMs: number; text: string }
  | { kind: 'daily'; minuteOfDay: number; text: string };

export type ScheduleParse = { ok: true; schedule: ReconcileSchedule } | { ok: false; problem: string };

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
/** The longest interval: a week (and setTimeout's own limit is about 24.8 days). */
const MAX_INTERVAL_MS = 7 * DAY_MS;
const UNIT_MS: Record<string, number> = { m: MINUTE_MS, h: 60 * MINUTE_MS, d: DAY_MS };
const UNIT_WORD: Record<string, string> = { m: 'minutes', h: 'hours', d: 'days' };

/** What the grammar accepts, for messages. */
export const SCHEDULE_GRAMMAR =
  '"off", an interval such as "30m", "6h" or "1d" (at most 7 days), or "daily@HH:MM" (UTC)';

/** Parse a schedule; `problem` says what is wrong and what would be right (the caller names the setting). */
export function parseReconcileSchedule(raw: string): ScheduleParse {
  const text = raw.trim().toLowerCase();
  if (text === '' || text === 'off') return { ok: true, schedule: { kind: 'off' } };
  if (text.length > 32) return { ok: false, problem: `is too long; expected ${SCHEDULE_GRAMMAR}` };
  const interval = /^(\d{1,5})([mhd])$/.exec(text);
  if (interval) {
    const n = Number(interval[1]);
    const unit = interval[2]!;
    const everyMs = n * UNIT_MS[unit]!;
    if (n < 1 || everyMs > MAX_INTERVAL_MS)
      return {
        ok: false,
        problem: `"${raw}" is outside 1 to ${MAX_INTERVAL_MS / UNIT_MS[unit]!} ${UNIT_WORD[unit]} (at most 7 days)`,
      };
    return { ok: true, schedule: { kind: 'interval', everyMs, text } };
  }
  const daily = /^daily@(\d{2}):(\d{2})$/.exec(text);
  if (daily) {
    const hour = Number(daily[1]);
    const minute = Number(daily[2]);
    if (hour > 23 || minute > 59)
      return { ok: false, problem: `"${raw}" is not a time of day: use daily@HH:MM from 00:00 to 23:59 (UTC)` };
    return { ok: true, schedule: { kind: 'daily', minuteOfDay: hour * 60 + minute, text } };
  }
  return { ok: false, problem: `"${raw}" is not a schedule; expected ${SCHEDULE_GRAMMAR}` };
}

/** The first run time strictly after `nowMs` (epoch milliseconds), or null for `off`. */
export function nextReconcileAt(schedule: ReconcileSchedule, nowMs: number): number | null {
  switch (schedule.kind) {
    case 'off':
      return null;
    case 'interval':
      return (Math.floor(nowMs / schedule.everyMs) + 1) * schedule.everyMs;
    case 'daily': {
      const dayStart = Math.floor(nowMs / DAY_MS) * DAY_MS;
      const today = dayStart + schedule.minuteOfDay * MINUTE_MS;
      return today > nowMs ? today : today + DAY_MS;
    }
  }
}

/** The schedule as the setting spells it (`off`, `6h`, `daily@03:00`). */
export function scheduleText(schedule: ReconcileSchedule): string {
  return schedule.kind === 'off' ? 'off' : schedule.text;
}
