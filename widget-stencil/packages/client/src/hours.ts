import type { Availability, BusinessHoursInterval } from './types.js';

export interface OpenState {
  /** Whether the team is within its business hours at `now` (always, when no hours are configured). */
  open: boolean;
  /** When closed: the next opening (an instant); `null` when open or when no interval is ever open. */
  nextOpening: Date | null;
}

const MINUTES_PER_DAY = 24 * 60;
const WEEKDAYS: Record<string, number> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 };

/**
 * Business hours in the integration's IANA time zone (via `Intl`, so daylight saving is the browser's tz data):
 * open when `now`'s local weekday and time fall in one of that weekday's intervals (`opens` included, `closes`
 * excluded; `24:00` is the end of the day). No hours configured: always open. An unknown time zone counts as UTC.
 */
export function isOpenNow(availability: Availability | null | undefined, now: Date): OpenState {
  const intervals = availability?.businessHours ?? [];
  if (intervals.length === 0) return { open: true, nextOpening: null };
  const zone = validZone(availability?.timeZone);
  const local = wallClock(now, zone);
  const minute = local.hour * 60 + local.minute;
  const open = intervals.some(
    (interval) =>
      interval.weekday === local.weekday && minutesOf(interval.opens) <= minute && minute < minutesOf(interval.closes),
  );
  if (open) return { open, nextOpening: null };
  return { open, nextOpening: nextOpening(intervals, local, minute, now, zone) };
}

function nextOpening(
  intervals: readonly BusinessHoursInterval[],
  local: WallClock,
  minute: number,
  now: Date,
  zone: string,
): Date | null {
  for (let day = 0; day <= 7; day++) {
    const weekday = ((local.weekday - 1 + day) % 7) + 1;
    const opens = intervals
      .filter((interval) => interval.weekday === weekday && minutesOf(interval.closes) > minutesOf(interval.opens))
      .map((interval) => minutesOf(interval.opens))
      .filter((opensAt) => day > 0 || opensAt > minute)
      .sort((a, b) => a - b);
    if (opens[0] === undefined) continue;
    // The wall-clock time written as if it were UTC, then moved by the zone's offset at (about) that instant.
    const wall = Date.UTC(local.year, local.month - 1, local.day + day, 0, opens[0]);
    let instant = wall - offsetMinutes(now, zone) * 60_000;
    instant = wall - offsetMinutes(new Date(instant), zone) * 60_000;
    return new Date(instant);
  }
  return null;
}

interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  weekday: number;
}

const formats = new Map<string, Intl.DateTimeFormat>();

function wallClock(date: Date, zone: string): WallClock {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      weekday: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
    formats.set(zone, format);
  }
  const parts: Record<string, string> = {};
  for (const part of format.formatToParts(date)) parts[part.type] = part.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    // Some engines write midnight as 24 even with h23.
    hour: Number(parts.hour) % 24,
    minute: Number(parts.minute),
    weekday: WEEKDAYS[parts.weekday ?? ''] ?? 1,
  };
}

/** The zone's offset from UTC at `date`, in minutes (east positive). */
function offsetMinutes(date: Date, zone: string): number {
  const local = wallClock(date, zone);
  const asUtc = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute);
  return Math.round((asUtc - Math.floor(date.getTime() / 60_000) * 60_000) / 60_000);
}

function minutesOf(clock: string): number {
  const [hours, minutes] = clock.split(':');
  const total = Number(hours) * 60 + Number(minutes);
  return Number.isFinite(total) ? Math.min(total, MINUTES_PER_DAY) : 0;
}

function validZone(zone: string | undefined): string {
  if (!zone) return 'UTC';
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone;
  } catch {
    return 'UTC';
  }
}
