/** The licence's wire form (§19): the status document GET, PUT and POST answer with. */
import { t } from 'elysia';

const Time = t.String({ format: 'date-time' });
const NullableTime = t.Union([Time, t.Null()]);
const NullableString = t.Union([t.String(), t.Null()]);
const NullableCount = t.Union([t.Integer({ minimum: 0 }), t.Null()]);

const LicenseStatusModel = t.Object({
  status: t.Union([
    t.Literal('valid'),
    t.Literal('expiring'),
    t.Literal('grace'),
    t.Literal('expired'),
    t.Literal('missing'),
  ]),
  licenseId: NullableString,
  customer: NullableString,
  edition: NullableString,
  issuedAt: NullableTime,
  validFrom: NullableTime,
  expiresAt: NullableTime,
  graceDays: NullableCount,
  daysRemaining: NullableCount,
  machineId: t.String({ minLength: 32, maxLength: 32 }),
  limits: t.Object({ subsystems: NullableCount, players: NullableCount, users: NullableCount }),
  usage: t.Object({
    subsystems: t.Integer({ minimum: 0 }),
    players: t.Integer({ minimum: 0 }),
    users: t.Integer({ minimum: 0 }),
  }),
});

export const LicenseModel = { status: LicenseStatusModel };

export type LicenseStatusDto = typeof LicenseStatusModel.static;
