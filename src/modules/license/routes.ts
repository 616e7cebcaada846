/**
 * License (§19): `GET /license` (status), `PUT`/`POST /license` (install a licence file), `DELETE
 * /license` (back to `missing`). `license:read` reads, `license:write` installs and removes (§0.3:
 * administrators; operators and viewers read).
 *
 * Decisions where §19 is silent:
 * - The signature covers the bytes `payload` encodes (the licence JSON exactly as the vendor wrote
 *   it), checked before that JSON is read (envelope.ts). Base64url is strict: no padding, no other
 *   characters, one spelling per value.
 * - Check 1 "parse" is the file: a body that is not a JSON object is 400 `bad_request`; a missing or
 *   malformed `kid`, `payload` or `signature` is 400 `validation` at its path. Licence JSON that is
 *   wrong (`v` not 1, a field of the wrong type) can only be told once its signature is good, so it
 *   is reported after check 3, at `/payload/<field>`. Every later check is 400 `validation` at the
 *   field it is about: `/kid`, `/signature`, `/payload/product`, `/payload/machineId`,
 *   `/payload/expiresAt`, `/payload/validFrom` (document.ts lists the licence fields' rules).
 * - The body is the licence file itself, judged by its content whatever its label (JSON,
 *   `text/plain`, `application/octet-stream`, none, or curl's default form type: the JSON body
 *   reader is as lenient); more than 64 KiB is 413. It is read by the route, not the JSON body
 *   reader, so a file that is not JSON is the 400 of check 1, not the reader's 415.
 * - "Not already expired" means `expiresAt` has not passed (a licence in its grace period is refused
 *   too); both time checks use the time of rule 5. A licence accepted up to 24 h before its
 *   `validFrom` counts as valid from its install: the allowance is for clocks that differ.
 * - What is stored is `{kid, payload, signature}` as the file carries them (unknown fields dropped),
 *   under `<dataDir>/license/license.json` (store.ts). Installing the same file again answers 200 and
 *   changes nothing (no event, no audit entry). DELETE with no licence installed is 204 too.
 * - The licence is verified again at every start: one that no longer verifies (a key no longer
 *   configured, a file altered, the data directory moved to another machine for a bound licence)
 *   counts as `missing` and is logged; its file is kept.
 * - `license.changed` is emitted by install and removal only (status moves over time are told by
 *   `license.expiring` and `license.expired`); its data is `{status, expiresAt, daysRemaining,
 *   licenseId}`. Audit keys: `license.installed` (changed fields named), `license.removed`.
 * - Limits are checked where subsystems, players and users are created over the API (limits.ts);
 *   the administrator of the first start or of `pmsd user add --admin` is never refused.
 * - `daysRemaining`: whole days until `expiresAt` rounded up, 0 once past it, null when perpetual or
 *   missing. `limits` are all null (unlimited) while missing; `usage` counts subsystems (kind
 *   subsystem), players and users, disabled users included.
 * - Rule 5's recorded time only moves forward: a clock that was once set far ahead keeps a licence
 *   judged at that time until the real time passes it.
 * - The test key of `PMS_LICENSE_TEST_KEY` is honoured by every build (an integrator tries licences
 *   signed with `pmsd license sign` on the executable they have); a built-in kid always means the
 *   built-in key (keys.ts).
 */
import type { Principal } from '../../core/principal';
import type { Deps } from '../../deps';
import { readBodyText } from '../../http/body';
import { noContent } from '../../http/responses';
import { routeGroup } from '../../http/route-group';
import { LicenseModel } from './model';
import { installLicense, licenseStatus, removeLicense } from './service';

const READ = 'license:read' as const;
const INSTALL = { permission: 'license:write', body: 'stream' } as const;
const MAX_FILE_BYTES = 64 * 1024;

/** The licence file's text from the body (see the decisions above). */
const licenseFileText = (request: Request): Promise<string> => readBodyText(request, MAX_FILE_BYTES);

const detail = { tags: ['license'] };

export function licenseRoutes(deps: Deps) {
  const receive = async ({ principal, request }: { principal: Principal; request: Request }) =>
    installLicense(deps, principal, await licenseFileText(request));
  const install = {
    auth: INSTALL,
    response: LicenseModel.status,
    detail: {
      ...detail,
      summary: 'Install a license file {kid, payload, signature} (JSON, text/plain or application/octet-stream)',
      description:
        'The body is the license file as the vendor sent it (at most 64 KiB). Checked in order: parse, known kid, ' +
        'Ed25519 signature over the bytes payload encodes, product, machineId, not expired, validFrom at most 24 h ' +
        'ahead; each failure is a 400 naming the reason, and the installed license stays as it was.',
    },
  };
  return routeGroup('/license')
    .get('/', () => licenseStatus(deps), {
      auth: READ,
      response: LicenseModel.status,
      detail: { ...detail, summary: 'License status, limits, usage and this appliance’s machine id' },
    })
    .put('/', receive, install)
    .post('/', receive, install)
    .delete(
      '/',
      ({ principal, set }) => {
        removeLicense(deps, principal);
        noContent(set);
      },
      { auth: 'license:write', detail: { ...detail, summary: 'Remove the license (back to missing)' } },
    );
}
