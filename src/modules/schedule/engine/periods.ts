/** The period arithmetic of recurrence rules (§11.2): which local dates a rule gives in its p-th period. */
import type { Recurrence } from './types';
import { DAY_MS } from './tz';

export const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];
export const BYDAY_RE = /^([+-]?[1-5])?(MO|TU|WE|TH|FR|SA|SU)$/;

export const weekday = (day: number) => (new Date(day * DAY_MS).getUTCDay() + 6) % 7;
const ymd = (day: number) => {
  const d = new Date(day * DAY_MS);
  return { y: d.getUTCFullYear(), m: d.getUTCMonth(), d: d.getUTCDate() };
};
const dayOf = (y: number, m: number, d: number) => Math.floor(Date.UTC(y, m, d) / DAY_MS);
const daysInMonth = (y: number, m: number) => new Date(Date.UTC(y, m + 1, 0)).getUTCDate();

/** The local dates (day numbers, ascending) the rule gives in period `p`. */
export function periodDays(rec: Recurrence, startDay: number, p: number): number[] {
  const interval = Math.max(1, rec.interval ?? 1);
  const s = ymd(startDay);
  switch (rec.freq) {
    case 'daily':
      return [startDay + p * interval];
    case 'weekly': {
      const monday = startDay - weekday(startDay) + p * interval * 7;
      const days = rec.byDay?.length
        ? rec.byDay.map((t) => WEEKDAYS.indexOf(t.slice(-2))).filter((i) => i >= 0)
        : [weekday(startDay)];
      return [...new Set(days)].sort((a, b) => a - b).map((i) => monday + i);
    }
    case 'monthly': {
      const mi = s.y * 12 + s.m + p * interval;
      const y = Math.floor(mi / 12);
      const m = mi % 12;
      const last = daysInMonth(y, m);
      let days: number[] = [];
      if (rec.byDay?.length) {
        for (const token of rec.byDay) {
          const match = BYDAY_RE.exec(token);
          if (!match) continue;
          const wd = WEEKDAYS.indexOf(match[2] ?? '');
          const all: number[] = [];
          for (let d = 1; d <= last; d++) if (weekday(dayOf(y, m, d)) === wd) all.push(d);
          const n = match[1] ? Number(match[1]) : 0;
          if (n === 0) days.push(...all);
          else {
            const pick = n > 0 ? all[n - 1] : all[all.length + n];
            if (pick !== undefined) days.push(pick);
          }
        }
        if (rec.byMonthDay?.length) {
          const allowed = new Set(rec.byMonthDay.map((d) => (d === -1 ? last : d)));
          days = days.filter((d) => allowed.has(d));
        }
      } else {
        const wanted = rec.byMonthDay?.length ? rec.byMonthDay : [s.d];
        for (const d of wanted) {
          if (d === -1) days.push(last);
          else if (d >= 1 && d <= last) days.push(d);
        }
      }
      return [...new Set(days)].sort((a, b) => a - b).map((d) => dayOf(y, m, d));
    }
    case 'yearly': {
      const y = s.y + p * interval;
      return s.d <= daysInMonth(y, s.m) ? [dayOf(y, s.m, s.d)] : [];
    }
  }
}

export function periodLowerBound(rec: Recurrence, startDay: number, p: number): number {
  const interval = Math.max(1, rec.interval ?? 1);
  const s = ymd(startDay);
  switch (rec.freq) {
    case 'daily':
      return startDay + p * interval;
    case 'weekly':
      return startDay - weekday(startDay) + p * interval * 7;
    case 'monthly': {
      const mi = s.y * 12 + s.m + p * interval;
      return dayOf(Math.floor(mi / 12), mi % 12, 1);
    }
    case 'yearly':
      return dayOf(s.y + p * interval, 0, 1);
  }
}

export function firstPeriodFor(rec: Recurrence, startDay: number, day: number): number {
  const interval = Math.max(1, rec.interval ?? 1);
  if (day <= startDay) return 0;
  const s = ymd(startDay);
  const t = ymd(day);
  switch (rec.freq) {
    case 'daily':
      return Math.floor((day - startDay) / interval);
    case 'weekly':
      return Math.floor((day - (startDay - weekday(startDay))) / (7 * interval));
    case 'monthly':
      return Math.floor((t.y * 12 + t.m - (s.y * 12 + s.m)) / interval);
    case 'yearly':
      return Math.floor((t.y - s.y) / interval);
  }
}
