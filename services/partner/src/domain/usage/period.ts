import { InvalidArgument } from '@svc/kit';

/** A calendar month in UTC, `YYYY-MM`: the unit of usage (docs/decisions/0250). */
export type Period = string;

const PERIOD = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** The most months one history answers. */
export const MAX_HISTORY_MONTHS = 36;
/** The months of a history when `from` is not given. */
export const DEFAULT_HISTORY_MONTHS = 12;

/** The UTC month an instant falls in. */
export function periodOf(at: Date): Period {
  return at.toISOString().slice(0, 7);
}

function monthIndex(period: Period): number {
  const [year, month] = period.split('-').map(Number) as [number, number];
  return year * 12 + (month - 1);
}

function periodOfIndex(index: number): Period {
  const year = Math.floor(index / 12);
  return `${String(year).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}`;
}

/** The first instant of the month and of the next one. */
export function boundsOf(period: Period): { start: Date; end: Date } {
  const index = monthIndex(period);
  const at = (i: number) => new Date(Date.UTC(Math.floor(i / 12), i % 12, 1));
  return { start: at(index), end: at(index + 1) };
}

export function parsePeriod(text: string, field: string): Period {
  if (!PERIOD.test(text)) throw new InvalidArgument(`${field} must be a month as YYYY-MM`, { field });
  return text;
}

/**
 * The months of a history, oldest first: `to` defaults to the current month, `from` to 11 months before `to`; `from`
 * after `to` or more than MAX_HISTORY_MONTHS months are INVALID_ARGUMENT.
 */
export function historyPeriods(from: string | undefined, to: string | undefined, current: Period): Period[] {
  const last = to === undefined ? current : parsePeriod(to, 'to');
  const first =
    from === undefined ? periodOfIndex(monthIndex(last) - (DEFAULT_HISTORY_MONTHS - 1)) : parsePeriod(from, 'from');
  const count = monthIndex(last) - monthIndex(first) + 1;
  if (count < 1) throw new InvalidArgument('from must not be after to', { field: 'from' });
  if (count > MAX_HISTORY_MONTHS) {
    throw new InvalidArgument(`at most ${MAX_HISTORY_MONTHS} months per history`, { field: 'from' });
  }
  return Array.from({ length: count }, (_, i) => periodOfIndex(monthIndex(first) + i));
}
