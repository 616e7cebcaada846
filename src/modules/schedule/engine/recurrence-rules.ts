/** Validation of a `recurrence` object (§11.2 rules, §11.6 bad input). */
import { BYDAY_RE } from './periods';
import type { Recurrence } from './types';
import { DAY_MS, parseNaive } from './tz';

export interface RuleProblem {
  path: string;
  message: string;
}

/** Recurrence rules of §11.2 and the bad-input list of §11.6 (paths relative to the item body). */
export function validateRecurrence(rec: Recurrence, startLocal: string): RuleProblem[] {
  const problems: RuleProblem[] = [];
  const add = (path: string, message: string) => problems.push({ path: `/recurrence${path}`, message });
  if (!['daily', 'weekly', 'monthly', 'yearly'].includes(rec.freq))
    add('/freq', 'must be daily, weekly, monthly or yearly');
  const interval = rec.interval ?? 1;
  if (!Number.isInteger(interval) || interval < 1 || interval > 1000) add('/interval', 'must be 1–1000');
  (rec.byDay ?? []).forEach((token, i) => {
    const m = BYDAY_RE.exec(token);
    if (!m) add(`/byDay/${i}`, 'must be MO…SU, with an ordinal for monthly (1MO, -1FR)');
    else if (m[1] && rec.freq !== 'monthly') add(`/byDay/${i}`, 'an ordinal is allowed only for monthly');
  });
  (rec.byMonthDay ?? []).forEach((d, i) => {
    if (!Number.isInteger(d) || !((d >= 1 && d <= 31) || d === -1)) add(`/byMonthDay/${i}`, 'must be 1–31 or -1');
  });
  if (rec.until != null && rec.count != null) add('/until', 'cannot be given together with count');
  if (rec.count != null && (!Number.isInteger(rec.count) || rec.count < 1 || rec.count > 10000))
    add('/count', 'must be 1–10000');
  if (rec.until != null) {
    const u = parseNaive(rec.until);
    const s = parseNaive(startLocal);
    if (u === null) add('/until', 'must be a local date YYYY-MM-DD or date-time YYYY-MM-DDTHH:mm:ss');
    else if (s !== null && (rec.until.length <= 10 ? u + DAY_MS - 1 : u) < s)
      add('/until', 'must not be before the start');
  }
  return problems;
}
