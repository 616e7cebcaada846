/**
 * Settings (§18): `/settings` (the document), `/settings/reset`, `/settings/logo` and
 * `/settings/background`. Reads need `settings:read` (the integration role has it, §0.3), every
 * change `settings:write` (administrators only by default). DELETE /settings is a real route that
 * answers 405, authorised like a write, so a caller without the permission learns nothing more.
 *
 * Decisions where the contract is silent:
 * - The document also carries `rateLimits` (the flood budgets of C: Limits, validated by the ranges
 *   in model.ts: each per-second budget is 0 = off or at least a floor that keeps the UI usable) and
 *   `smtp.verifyCertificate` (default true; false accepts a LAN relay's self-signed certificate).
 * - `PMS_TRUSTED_NETWORKS` wins over `auth.trustedNetworks` (C: Authentication). The setting can
 *   still be written and is kept as stored (it applies again once the environment stops setting
 *   the list); the document shows what the environment imposes in the read-only
 *   `auth.trustedNetworksOverride` (null when it sets nothing), so a page can say why a change has no
 *   effect. The same holds for `PMS_RATE_LIMIT_*` over `rateLimits`, which the document does not repeat.
 * - Every key takes effect without a restart: modules read their knobs through core/settings.ts
 *   when they need them, and every write drops its cache. Sessions already open follow a changed
 *   `auth.sessionIdleMinutes` and `auth.sessionMaxDays` (counted from their sign-in).
 * - A write that changes nothing (a document read and sent back) writes nothing, emits nothing and
 *   audits nothing; it answers 200 with the document. Read-only keys in a body are ignored.
 * - `timezone` takes an IANA name (any case; stored as the build spells it); UTC offsets such as
 *   `+01:00` are refused. `systemName` is trimmed. Trusted networks are trimmed and de-duplicated
 *   (at most 256); a bare address is a /32 or /128.
 * - `backups.schedule.days` are `mon`…`sun`, at least one (set `enabled: false` to stop the
 *   timetable), stored in week order. `logs.auditRetentionDays` is 365–36500;
 *   `health.defaultGracePeriodSeconds` 1–86400.
 * - `smtp`: `host` and `from` are required whenever it is set (null removes all of it, password
 *   included); `port` defaults to 587, or 465 with `secure` (and follows `secure` while it is the
 *   other mode's default); `username` "" reads as none. `from` is an address or `Name <address>`.
 * - Reset takes top-level keys (`logs`, `smtp`, `timezone`), nested objects (`backups.schedule`) and
 *   leaves (`logs.retentionDays`, `smtp.password`); read-only keys, `smtp.host`/`smtp.from` (no
 *   default) and unknown keys are 400 at `/keys/<i>`. Images are removed by their DELETE, not reset.
 * - Audit: key `settings.updated` or `settings.reset`, text `settings updated: <key> <old> → <new>; …`;
 *   a secret shows only `set`/`not set`/`changed`. `settings.changed` lists the changed leaf keys
 *   (an image: `logo` or `background`; a group switched on or off: its leaves).
 * - Images: a pixel size past the cap is 413 like a byte size; an image whose dimensions cannot be
 *   read is 415. The read sends the SHA-256 as `ETag` and answers `If-None-Match` with 304. The
 *   files live under `<dataDir>/branding/` (the archive's `branding/` member, §17), described by the
 *   settings rows `logo` and `background`; the object store's `branding` bucket lists no objects.
 * - The caps of §18 (2 MiB / 4096 px, 10 MiB / 8192 px) are fixed, not configuration.
 */
import type { Deps } from '../../deps';
import { AppError } from '../../http/errors';
import { noContent } from '../../http/responses';
import { routeGroup } from '../../http/route-group';
import { deleteImage, IMAGE_LIMITS, imageResponse, putImage } from './images';
import { SettingsModel } from './model';
import { getSettings, type ImageKind, resetSettings, updateSettings } from './service';

const BINARY = { type: 'string', format: 'binary' } as const;
const IMAGE_TYPES = {
  'image/png': { schema: BINARY },
  'image/jpeg': { schema: BINARY },
  'image/webp': { schema: BINARY },
};

/** The routes of one image: read, upload (PUT and POST), remove. */
function imageRoutes(deps: Deps, kind: ImageKind) {
  const { bytes, pixels } = IMAGE_LIMITS[kind];
  const upload = {
    auth: { permission: 'settings:write', body: 'stream' } as const,
    response: SettingsModel.document,
    detail: {
      summary: `Upload the ${kind} (raw body: PNG, JPEG or WebP, at most ${bytes} bytes and ${pixels}×${pixels} px)`,
      requestBody: { content: IMAGE_TYPES },
    },
  };
  return routeGroup(`/${kind}`)
    .get('/', ({ request }) => imageResponse(deps, kind, request), {
      auth: 'settings:read',
      detail: {
        summary: `The ${kind} image`,
        responses: {
          200: { description: 'The image bytes', content: IMAGE_TYPES },
          304: { description: 'Not modified (If-None-Match)' },
        },
      },
    })
    .put('/', ({ principal, request }) => putImage(deps, principal, kind, request), upload)
    .post('/', ({ principal, request }) => putImage(deps, principal, kind, request), upload)
    .delete(
      '/',
      ({ principal, set }) => {
        deleteImage(deps, principal, kind);
        return noContent(set);
      },
      { auth: 'settings:write', detail: { summary: `Remove the ${kind} (204 also when none was set)` } },
    );
}

export function settingsRoutes(deps: Deps) {
  return routeGroup('/settings')
    .use(imageRoutes(deps, 'logo'))
    .use(imageRoutes(deps, 'background'))
    .get('/', () => getSettings(deps), {
      auth: 'settings:read',
      response: SettingsModel.document,
      detail: { summary: 'The settings document (secrets never included)' },
    })
    .put('/', ({ principal, body }) => updateSettings(deps, principal, body), {
      auth: 'settings:write',
      body: SettingsModel.write,
      response: SettingsModel.document,
      detail: { summary: 'Change the keys present (nested objects merge; null clears a secret or smtp)' },
    })
    .patch('/', ({ principal, body }) => updateSettings(deps, principal, body), {
      auth: 'settings:write',
      body: SettingsModel.write,
      response: SettingsModel.document,
      detail: { summary: 'Change the keys present (as PUT)' },
    })
    .post('/', ({ principal, body }) => updateSettings(deps, principal, body), {
      auth: 'settings:write',
      body: SettingsModel.write,
      response: SettingsModel.document,
      detail: { summary: 'Change the keys present (as PUT)' },
    })
    .delete(
      '/',
      () => {
        throw new AppError(
          'method_not_allowed',
          'settings cannot be removed; reset keys with POST /settings/reset',
          undefined,
          {
            allow: 'GET, PUT, PATCH, POST',
          },
        );
      },
      { auth: 'settings:write', detail: { summary: 'Refused (405): settings cannot be removed' } },
    )
    .post('/reset', ({ principal, body }) => resetSettings(deps, principal, body.keys), {
      auth: 'settings:write',
      body: SettingsModel.reset,
      response: SettingsModel.document,
      detail: { summary: 'Reset keys to their defaults: {keys: ["logs.retentionDays", …]}' },
    });
}
