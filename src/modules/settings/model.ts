/**
 * The settings document on the wire (§18): the write body, every key optional and range-checked by
 * its schema (a value out of range is 400 at the key's path, e.g. `/logs/retentionDays`), and the
 * document a read answers. Time zone names, CIDR networks and the mail settings' completeness are
 * judged by the service (values.ts), at their paths too.
 *
 * Ranges where §18 gives none (decisions, documented in the module's routes.ts):
 * - `health.defaultGracePeriodSeconds` 1–86400 (a subsystem's own grace period has that ceiling, §3);
 * - `logs.auditRetentionDays` 365–36500; `media.*Bytes` 1 B up to 2^53−1;
 * - `rateLimits`: each per-second budget is 0 (off) or within a floor that keeps the web UI usable;
 *   bursts have floors of their own (see RATE_LIMIT_RANGES).
 */
import { t } from 'elysia';
import { WEEKDAYS } from '../../core/settings';
import { CONTROL, NO_CONTROL } from '../../http/fields';

const BoolIn = t.BooleanString();
const Int = (minimum: number, maximum?: number) =>
  t.Integer(maximum === undefined ? { minimum } : { minimum, maximum });
/** 0 turns a budget off; any other value lies in [min, max]. */
const OffOr = (min: number, max: number) =>
  t.Union([t.Literal(0), t.Integer({ minimum: min, maximum: max })], {
    error: `must be 0 (off) or an integer from ${min} to ${max}`,
  });

/** The flood budgets' ranges (C: Limits); the meaning of each is in src/http/rate-limit.ts. */
export const RATE_LIMIT_RANGES = {
  requestsPerSecond: OffOr(5, 100_000),
  requestBurst: Int(10, 1_000_000),
  ingestPerSecond: OffOr(100, 1_000_000),
  ingestBurst: Int(100, 10_000_000),
  heartbeatsPerSecond: OffOr(1, 1000),
  heartbeatBurst: Int(1, 10_000),
  loginFailuresPerAddress: OffOr(5, 10_000),
};

const Hhmm = t.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', error: 'must be HH:MM (00:00 to 23:59)' });
const Weekday = t.Union(
  WEEKDAYS.map((d) => t.Literal(d)),
  { error: `must be one of: ${WEEKDAYS.join(', ')}` },
);
/** `host` of a mail server: a name or an address, no spaces or control characters. */
const MailHost = t.String({
  minLength: 1,
  maxLength: 253,
  pattern: '^[A-Za-z0-9.:\\[\\]_-]+$',
  error: 'must be a DNS name or an IP address of 1 to 253 characters',
});
/** `addr@domain`, or `Name <addr@domain>`; never a line break (a header). */
const MailFrom = t.String({
  maxLength: 320,
  pattern: `^([^\\s@<>]+@[^\\s@<>]+|[^<>${CONTROL}]*<[^\\s@<>]+@[^\\s@<>]+>)$`,
  error: 'must be an e-mail address, or a name and an address as Name <address>',
});

const write = t.Object({
  systemName: t.Optional(
    t.String({
      minLength: 1,
      maxLength: 100,
      pattern: NO_CONTROL,
      error: 'must be 1 to 100 characters without control characters',
    }),
  ),
  timezone: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
  auth: t.Optional(
    t.Object({
      trustedNetworks: t.Optional(t.Array(t.String({ maxLength: 64 }), { maxItems: 256 })),
      sessionIdleMinutes: t.Optional(Int(5, 10080)),
      sessionMaxDays: t.Optional(Int(1, 90)),
    }),
  ),
  health: t.Optional(t.Object({ defaultGracePeriodSeconds: t.Optional(Int(1, 86400)) })),
  subsystems: t.Optional(t.Object({ actionMessageTtlSeconds: t.Optional(Int(5, 3600)) })),
  schedule: t.Optional(t.Object({ missedRunGraceSeconds: t.Optional(Int(0, 86400)) })),
  alerts: t.Optional(t.Object({ flapWindowSeconds: t.Optional(Int(0, 3600)) })),
  notifications: t.Optional(t.Object({ retentionDays: t.Optional(Int(1, 365)) })),
  logs: t.Optional(
    t.Object({
      retentionDays: t.Optional(Int(1, 3650)),
      maxEntries: t.Optional(Int(1000, 10_000_000)),
      auditRetentionDays: t.Optional(Int(365, 36500)),
    }),
  ),
  variables: t.Optional(
    t.Object({
      historyRetentionDays: t.Optional(Int(1, 3650)),
      maxHistoryPointsPerVariable: t.Optional(Int(100, 10_000_000)),
    }),
  ),
  media: t.Optional(
    t.Object({
      maxUploadBytes: t.Optional(Int(1)),
      quotaBytes: t.Optional(
        t.Union([Int(1), t.Null()], { error: 'must be a positive integer, or null for no quota' }),
      ),
      minFreeBytes: t.Optional(Int(1)),
      trashDays: t.Optional(Int(0, 90)),
    }),
  ),
  backups: t.Optional(
    t.Object({
      schedule: t.Optional(
        t.Object({
          enabled: t.Optional(BoolIn),
          time: t.Optional(Hhmm),
          days: t.Optional(t.Array(Weekday, { minItems: 1, maxItems: 7 })),
        }),
      ),
      keepScheduled: t.Optional(Int(1, 365)),
      includeMedia: t.Optional(BoolIn),
      maxUploadBytes: t.Optional(Int(1)),
      passphrase: t.Optional(
        t.Union([t.String({ minLength: 12, maxLength: 256 }), t.Null()], {
          error: 'must be 12 to 256 characters, or null to remove it',
        }),
      ),
    }),
  ),
  smtp: t.Optional(
    t.Union(
      [
        t.Object({
          host: t.Optional(MailHost),
          port: t.Optional(Int(1, 65535)),
          secure: t.Optional(BoolIn),
          username: t.Optional(
            t.Union([t.String({ maxLength: 256, pattern: NO_CONTROL }), t.Null()], {
              error: 'must be at most 256 characters without control characters, or null',
            }),
          ),
          from: t.Optional(MailFrom),
          verifyCertificate: t.Optional(BoolIn),
          password: t.Optional(
            t.Union([t.String({ minLength: 1, maxLength: 1024 }), t.Null()], {
              error: 'must be 1 to 1024 characters, or null to remove it',
            }),
          ),
        }),
        t.Null(),
      ],
      { error: 'must be an object, or null to remove the mail settings' },
    ),
  ),
  rateLimits: t.Optional(
    t.Object({
      requestsPerSecond: t.Optional(RATE_LIMIT_RANGES.requestsPerSecond),
      requestBurst: t.Optional(RATE_LIMIT_RANGES.requestBurst),
      ingestPerSecond: t.Optional(RATE_LIMIT_RANGES.ingestPerSecond),
      ingestBurst: t.Optional(RATE_LIMIT_RANGES.ingestBurst),
      heartbeatsPerSecond: t.Optional(RATE_LIMIT_RANGES.heartbeatsPerSecond),
      heartbeatBurst: t.Optional(RATE_LIMIT_RANGES.heartbeatBurst),
      loginFailuresPerAddress: t.Optional(RATE_LIMIT_RANGES.loginFailuresPerAddress),
    }),
  ),
});

const Image = t.Union([
  t.Object({
    contentType: t.String(),
    size: t.Integer(),
    sha256: t.String(),
    width: t.Integer(),
    height: t.Integer(),
    updatedAt: t.String({ format: 'date-time' }),
    _links: t.Object({ self: t.String() }),
  }),
  t.Null(),
]);

const document = t.Object({
  systemName: t.String(),
  systemHostname: t.String(),
  timezone: t.String(),
  auth: t.Object({
    trustedNetworks: t.Array(t.String()),
    sessionIdleMinutes: t.Integer(),
    sessionMaxDays: t.Integer(),
    /** RO: `PMS_TRUSTED_NETWORKS` when the environment sets it (it wins over `trustedNetworks`), else null. */
    trustedNetworksOverride: t.Union([t.Array(t.String()), t.Null()]),
  }),
  health: t.Object({ defaultGracePeriodSeconds: t.Integer() }),
  subsystems: t.Object({ actionMessageTtlSeconds: t.Integer() }),
  schedule: t.Object({ missedRunGraceSeconds: t.Integer() }),
  alerts: t.Object({ flapWindowSeconds: t.Integer() }),
  notifications: t.Object({ retentionDays: t.Integer() }),
  logs: t.Object({ retentionDays: t.Integer(), maxEntries: t.Integer(), auditRetentionDays: t.Integer() }),
  variables: t.Object({ historyRetentionDays: t.Integer(), maxHistoryPointsPerVariable: t.Integer() }),
  media: t.Object({
    maxUploadBytes: t.Integer(),
    quotaBytes: t.Union([t.Integer(), t.Null()]),
    minFreeBytes: t.Integer(),
    trashDays: t.Integer(),
  }),
  backups: t.Object({
    schedule: t.Object({ enabled: t.Boolean(), time: t.String(), days: t.Array(t.String()) }),
    keepScheduled: t.Integer(),
    includeMedia: t.Boolean(),
    maxUploadBytes: t.Integer(),
    passphraseSet: t.Boolean(),
  }),
  smtp: t.Union([
    t.Object({
      host: t.String(),
      port: t.Integer(),
      secure: t.Boolean(),
      username: t.Union([t.String(), t.Null()]),
      from: t.String(),
      verifyCertificate: t.Boolean(),
      passwordSet: t.Boolean(),
    }),
    t.Null(),
  ]),
  rateLimits: t.Object({
    requestsPerSecond: t.Integer(),
    requestBurst: t.Integer(),
    ingestPerSecond: t.Integer(),
    ingestBurst: t.Integer(),
    heartbeatsPerSecond: t.Integer(),
    heartbeatBurst: t.Integer(),
    loginFailuresPerAddress: t.Integer(),
  }),
  logo: Image,
  background: Image,
});

export const SettingsModel = {
  write,
  document,
  image: Image,
  reset: t.Object({ keys: t.Array(t.String({ maxLength: 128 }), { minItems: 1, maxItems: 200 }) }),
};

export type SettingsWrite = typeof write.static;
export type SettingsDocument = typeof document.static;
export type ImageDto = NonNullable<typeof Image.static>;
