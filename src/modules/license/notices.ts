/**
 * What the licence tells people over time (§19 rules 3 and 4), worked out by `checkLicense`: at
 * install and removal (in their unit), at daemon start and every hour (jobs.ts).
 *
 * - Banners (§7 rule 4 keys `license:<status>`): `license:missing` while no licence is installed,
 *   `license:expired` once grace has ended. A banner someone cleared is shown again by the next
 *   check while its status holds ("stays shown"); one that is shown is left alone (not raised again
 *   every hour). Any other status clears both.
 * - `license.expiring` `{status, expiresAt, daysRemaining, licenseId}` once per milestone, 30, 14, 7
 *   and 1 days before `expiresAt`: the first check at or after each. When several are due at once (a
 *   licence installed with 10 days left, a daemon that was off), one event goes out for the nearest
 *   and the others count as sent. Past `expiresAt` no milestone is announced any more.
 *   The alerts module hears it in the same unit: the `license-expiry` rule opens one incident and
 *   notifies, and notifies again at each later milestone (modules/alerts/system.ts).
 * - `license.expired` once when grace ends.
 * Which went out is kept per licence (its id and `expiresAt`) in `state.json`, written after the
 * unit commits: reinstalling the same licence sends nothing again, a renewal starts afresh. A power
 * cut in the instant between the commit and that write could send one notice a second time; none is
 * ever lost.
 */
import { iso, isoOrNull } from '../../clock';
import type { Deps } from '../../deps';
import { emit, transact } from '../../realtime/emit';
import { clearNotificationsByKey } from '../notifications/clear';
import { findByKey } from '../notifications/service';
import { raiseNotification } from '../notifications/show';
import { DAY_MS, daysRemaining, graceEndsAt, type License, type LicenseStatus, statusAt } from './document';
import { judgedNow, loaded, machineId, saveState } from './store';

export const MILESTONE_DAYS = [30, 14, 7, 1] as const;

/** The data of `license.changed`, `license.expiring` and `license.expired` (§21). */
export function eventData(deps: Deps): Record<string, unknown> {
  const license = loaded(deps).installed?.license ?? null;
  const now = judgedNow(deps);
  return {
    status: license ? statusAt(license, now) : 'missing',
    expiresAt: isoOrNull(license?.expiresAt),
    daysRemaining: license ? daysRemaining(license, now) : null,
    licenseId: license?.licenseId ?? null,
  };
}

const day = (ms: number) => iso(ms).slice(0, 10);

function showBanner(deps: Deps, key: string, title: string, message: string, severity: 'warning' | 'error'): void {
  if (findByKey(deps, key)?.state === 'shown') return;
  raiseNotification(deps, { key, title, message, severity, source: { type: 'system' } });
}

function banners(deps: Deps, status: LicenseStatus, license: License | null): void {
  if (status === 'missing')
    showBanner(
      deps,
      'license:missing',
      'No license installed',
      `This appliance has no license. Everything works without limits until one is installed (PUT /api/v1/license). Machine id for the license request: ${machineId(deps)}.`,
      'warning',
    );
  // Clears only a shown one: nothing to do (and no event) otherwise.
  else clearNotificationsByKey(deps, 'license:missing');
  if (status === 'expired' && license)
    showBanner(
      deps,
      'license:expired',
      'The license has expired',
      `License ${license.licenseId} for ${license.customer} expired on ${day(license.expiresAt ?? 0)} and its grace period ended on ${day(graceEndsAt(license) ?? 0)}. Nothing stops working; creating subsystems, players and users stays within its limits. Install a renewed license.`,
      'error',
    );
  else clearNotificationsByKey(deps, 'license:expired');
}

/** Rule 4's events due at `now`; whether the record of what was sent changed. */
function announce(deps: Deps, license: License | null, status: LicenseStatus, now: number): boolean {
  const state = deps.license;
  if (!license || license.expiresAt === null) return false;
  const key = `${license.licenseId}@${iso(license.expiresAt)}`;
  const before = state.notices;
  const record = before?.key === key ? { ...before, sent: [...before.sent] } : { key, sent: [], expired: false };
  const left = license.expiresAt - now;
  const due = MILESTONE_DAYS.filter((days) => left <= days * DAY_MS && !record.sent.includes(days));
  if (due.length > 0 && left > 0) emit(deps, 'license.expiring', eventData(deps));
  record.sent.push(...due);
  if (status === 'expired' && !record.expired) {
    emit(deps, 'license.expired', eventData(deps));
    record.expired = true;
  }
  if (before?.key === key && due.length === 0 && record.expired === before.expired) return false;
  state.notices = record;
  return true;
}

/**
 * Banners and rule 4's events for the licence as it stands now, in one unit (the caller's when one
 * is open). The record of sent notices is saved once the unit has committed, and forgotten if it
 * rolls back.
 */
export function checkLicense(deps: Deps): void {
  const state = loaded(deps);
  const license = state.installed?.license ?? null;
  const now = judgedNow(deps);
  const status = license ? statusAt(license, now) : 'missing';
  const before = state.notices;
  transact(deps, (unit) => {
    banners(deps, status, license);
    if (!announce(deps, license, status, now)) return;
    unit.onUndo(() => {
      state.notices = before;
    });
    unit.afterCommit(() => saveState(deps));
  });
}
