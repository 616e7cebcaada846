/** Shared set-up for the licence tests: an app that trusts a test key, and licence files signed with it. */
import { makeTestApp, recordEvents, type TestApp } from '../../../tests/helpers/app';
import { DAY_MS } from './document';
import { newKeyPair, signLicenseBytes } from './envelope';

export { errorBody, validationBody as validation } from '../../../tests/helpers/errors';

export const T0 = '2026-01-15T12:00:00.000Z';
export const T0_MS = Date.parse(T0);
export const at = (ms: number) => new Date(T0_MS + ms).toISOString();
export const days = (n: number) => n * DAY_MS;
export const HOUR_MS = 3600_000;

export const TEST_KID = 'test-1';
/** The key pair the test apps trust (made once per test file). */
export const TEST_KEYS = newKeyPair();
/** Another key, which no app trusts. */
export const OTHER_KEYS = newKeyPair();

/** A licence JSON: one year from T0, 14 days' grace, limits of 2 subsystems, 1 player and 3 users. */
export function licenseJson(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    v: 1,
    licenseId: 'L-1',
    product: 'pms',
    customer: 'ACME Arena',
    edition: 'pro',
    issuedAt: T0,
    validFrom: T0,
    expiresAt: at(days(365)),
    graceDays: 14,
    machineId: null,
    limits: { subsystems: 2, players: 1, users: 3 },
    ...fields,
  };
}

/** The signed licence file's text for `licence` (JSON object or raw payload text). */
export function licenseFile(
  licence: Record<string, unknown> | string = licenseJson(),
  options: { kid?: string; privateKeyPem?: string } = {},
): string {
  const text = typeof licence === 'string' ? licence : JSON.stringify(licence);
  return signLicenseBytes(
    new TextEncoder().encode(text),
    options.privateKeyPem ?? TEST_KEYS.privateKeyPem,
    options.kid ?? TEST_KID,
  );
}

export function licenseApp(options: { dataDir?: string; start?: string; testKey?: boolean } = {}) {
  const t: TestApp = makeTestApp({
    start: options.start ?? T0,
    config: {
      licenseTestKey: options.testKey === false ? null : { kid: TEST_KID, publicKey: TEST_KEYS.publicKey },
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    },
  });
  const events = recordEvents(t);
  /** Installs a licence file as admin (PUT, JSON unless `contentType` says otherwise). */
  const install = (text: string = licenseFile(), contentType = 'application/json', method = 'PUT') =>
    t.call(method, '/license', { as: 'admin', rawBody: text, headers: { 'content-type': contentType } });
  const status = async () => (await t.call('GET', '/license', { as: 'admin' })).body;
  /** Events of one type, data only. */
  const emitted = (type: string) => events.filter((e) => e.type === type).map((e) => e.data);
  /** Notifications as stored (key, state, severity, count, title), oldest first. */
  const notices = () =>
    t.deps.sqlite
      .query<{ key: string; state: string; severity: string; count: number; title: string; message: string }, []>(
        'SELECT key, state, severity, count, title, message FROM notifications ORDER BY id',
      )
      .all();
  return { ...t, events, install, status, emitted, notices };
}

export type LicenseApp = ReturnType<typeof licenseApp>;
