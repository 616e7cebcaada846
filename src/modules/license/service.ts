/**
 * Licence (§19): the status document, install and removal. See the module note in routes.ts for
 * the decisions where the contract is silent.
 */
import { isoOrNull } from '../../clock';
import { type AuditSubject, audit } from '../../core/platform-log';
import type { Principal } from '../../core/principal';
import type { Deps } from '../../deps';
import { invalid } from '../../http/errors';
import { emit, transact } from '../../realtime/emit';
import { DAY_MS, daysRemaining, type License, statusAt } from './document';
import { envelopeText } from './envelope';
import { usage } from './limits';
import type { LicenseStatusDto } from './model';
import { checkLicense, eventData } from './notices';
import type { InstalledLicense } from './state';
import { checkLicenseFile, judgedNow, loaded, machineId, replaceLicenseFile } from './store';

const NO_LIMITS = { subsystems: null, players: null, users: null };

/** GET /license: status, the licence's fields, limits, usage and this appliance's machine id. */
export function licenseStatus(deps: Deps): LicenseStatusDto {
  const license = loaded(deps).installed?.license ?? null;
  const now = judgedNow(deps);
  return {
    status: license ? statusAt(license, now) : 'missing',
    licenseId: license?.licenseId ?? null,
    customer: license?.customer ?? null,
    edition: license?.edition ?? null,
    issuedAt: isoOrNull(license?.issuedAt),
    validFrom: isoOrNull(license?.validFrom),
    expiresAt: isoOrNull(license?.expiresAt),
    graceDays: license?.graceDays ?? null,
    daysRemaining: license ? daysRemaining(license, now) : null,
    machineId: machineId(deps),
    limits: license ? { ...license.limits } : NO_LIMITS,
    usage: usage(deps),
  };
}

const subject = (license: License): AuditSubject => ({
  kind: 'license',
  name: `license ${license.licenseId} (${license.customer})`,
});

const FIELDS = [
  'licenseId',
  'customer',
  'edition',
  'issuedAt',
  'validFrom',
  'expiresAt',
  'graceDays',
  'machineId',
  'limits',
] as const;

function changedFields(before: License | undefined, after: License): string[] {
  return FIELDS.filter((f) => JSON.stringify(before?.[f]) !== JSON.stringify(after[f]));
}

/** Puts `next` in place (or removes the licence) in one unit with its event, audit entry and notices. */
function replace(deps: Deps, principal: Principal, next: InstalledLicense | null): void {
  const state = loaded(deps);
  const previous = state.installed;
  transact(deps, (unit) => {
    const undoFile = replaceLicenseFile(deps, next);
    unit.onUndo(() => {
      undoFile();
      state.installed = previous;
    });
    state.installed = next;
    emit(deps, 'license.changed', eventData(deps));
    if (next)
      audit(deps, principal, 'installed', subject(next.license), changedFields(previous?.license, next.license));
    else if (previous) audit(deps, principal, 'removed', subject(previous.license), []);
    checkLicense(deps);
  });
}

/**
 * PUT/POST /license: the checks of rule 1 in order (parse, kid, signature, product, machine, not
 * expired, `validFrom` at most 24 h ahead), each a 400 with the reason; then stored and announced.
 * The same file again changes nothing.
 */
export function installLicense(deps: Deps, principal: Principal, text: string): LicenseStatusDto {
  const { envelope, license } = checkLicenseFile(deps, text);
  const now = judgedNow(deps);
  if (license.expiresAt !== null && license.expiresAt <= now)
    throw invalid('/payload/expiresAt', 'has passed: the license has expired');
  if (license.validFrom > now + DAY_MS)
    throw invalid('/payload/validFrom', 'is more than 24 hours ahead: the license is not valid yet');
  const stored = envelopeText(envelope);
  if (loaded(deps).installed?.text !== stored) replace(deps, principal, { license, kid: envelope.kid, text: stored });
  return licenseStatus(deps);
}

/** DELETE /license: back to `missing` (nothing to do when none is installed). */
export function removeLicense(deps: Deps, principal: Principal): void {
  if (loaded(deps).installed) replace(deps, principal, null);
}
