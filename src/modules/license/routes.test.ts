import { describe, expect, it } from 'bun:test';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { auditEntries } from '../../../tests/helpers/app';
import { licenseFilePath, machineId } from './store';
import {
  at,
  days,
  errorBody,
  type LicenseApp,
  licenseApp,
  licenseFile,
  licenseJson,
  OTHER_KEYS,
  T0,
  validation,
} from './test-support';

const INSTALLED = {
  status: 'valid',
  licenseId: 'L-1',
  customer: 'ACME Arena',
  edition: 'pro',
  issuedAt: T0,
  validFrom: T0,
  expiresAt: at(days(365)),
  graceDays: 14,
  daysRemaining: 365,
  limits: { subsystems: 2, players: 1, users: 3 },
  usage: { subsystems: 0, players: 0, users: 0 },
};

/** The installed licence, as GET reports it, is still `before` (a refused install changed nothing). */
async function unchanged(t: LicenseApp, before: unknown) {
  expect(await t.status()).toEqual(before);
  expect(t.emitted('license.changed')).toHaveLength(1);
}

describe('GET /license', () => {
  it('with no licence: missing, no limits, the usage and this appliance’s machine id', async () => {
    const t = licenseApp();
    const res = await t.call('GET', '/license', { as: 'viewer' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'missing',
      licenseId: null,
      customer: null,
      edition: null,
      issuedAt: null,
      validFrom: null,
      expiresAt: null,
      graceDays: null,
      daysRemaining: null,
      machineId: machineId(t.deps),
      limits: { subsystems: null, players: null, users: null },
      usage: { subsystems: 0, players: 0, users: 0 },
    });
    expect(res.body.machineId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('needs a credential (401) and license:read (403); operators and viewers read', async () => {
    const t = licenseApp();
    const anonymous = await t.call('GET', '/license');
    expect(anonymous.body).toEqual(errorBody(anonymous, 401, 'unauthorized', 'authentication required'));
    const token = t.tokenWith(['subsystems:read']);
    const denied = await t.call('GET', '/license', { token });
    expect(denied.body).toEqual(errorBody(denied, 403, 'forbidden', 'this needs the license:read permission'));
    expect((await t.call('GET', '/license', { as: 'operator' })).status).toBe(200);
  });
});

describe('PUT/POST /license (rule 1)', () => {
  it('installs a signed licence file: 200 with the status, license.changed, an audit entry, the file on disk', async () => {
    const t = licenseApp();
    const res = await t.install();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...INSTALLED, machineId: machineId(t.deps) });
    expect(await t.status()).toEqual(res.body);
    expect(t.emitted('license.changed')).toEqual([
      { status: 'valid', expiresAt: at(days(365)), daysRemaining: 365, licenseId: 'L-1' },
    ]);
    expect(auditEntries(t).at(-1)).toEqual({
      key: 'license.installed',
      value:
        'license L-1 (ACME Arena) installed: licenseId, customer, edition, issuedAt, validFrom, expiresAt, graceDays, machineId, limits',
      createdBy: 'test admin',
    });
    expect(JSON.parse(readFileSync(licenseFilePath(t.deps.config), 'utf8'))).toEqual(JSON.parse(licenseFile()));
  });

  it.each([
    ['text/plain', 'PUT'],
    ['application/octet-stream', 'POST'],
    ['', 'POST'],
    ['application/json; charset=utf-8', 'POST'],
    ['application/x-www-form-urlencoded', 'PUT'],
  ])('takes the file as %s (%s)', async (contentType, method) => {
    const t = licenseApp();
    const res = await t.install(licenseFile(), contentType, method);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('valid');
  });

  it('the same file again answers 200 and changes nothing; another licence replaces it, naming what changed', async () => {
    const t = licenseApp();
    await t.install();
    expect((await t.install()).status).toBe(200);
    expect(t.emitted('license.changed')).toHaveLength(1);
    const audits = auditEntries(t).length;
    const next = await t.install(licenseFile(licenseJson({ limits: { subsystems: 5 } })));
    expect(next.body.limits).toEqual({ subsystems: 5, players: null, users: null });
    expect(auditEntries(t).slice(audits)).toEqual([
      expect.objectContaining({ key: 'license.installed', value: 'license L-1 (ACME Arena) installed: limits' }),
    ]);
  });

  it('needs a credential (401) and license:write (403, operators included)', async () => {
    const t = licenseApp();
    const anonymous = await t.call('PUT', '/license', { rawBody: licenseFile() });
    expect(anonymous.body).toEqual(errorBody(anonymous, 401, 'unauthorized', 'authentication required'));
    for (const as of ['operator', 'viewer'] as const) {
      const denied = await t.call('POST', '/license', { as, rawBody: licenseFile() });
      expect(denied.body).toEqual(errorBody(denied, 403, 'forbidden', 'this needs the license:write permission'));
    }
    expect((await t.status()).status).toBe('missing');
  });

  describe('each check refuses with 400 and the reason, leaving the installed licence as it was', () => {
    const file = JSON.parse(licenseFile());
    const cases: Array<[string, () => string, (res: { headers: Headers }) => unknown]> = [
      [
        'unparseable',
        () => '{"kid": "test-1", "payload"',
        (res) =>
          errorBody(
            res,
            400,
            'bad_request',
            'the license file is not valid: expected the JSON object {kid, payload, signature} the vendor sent',
          ),
      ],
      [
        'no signature',
        () => JSON.stringify({ ...file, signature: undefined }),
        (res) => validation(res, '/signature', 'is required (a string)'),
      ],
      [
        'unknown kid',
        () => licenseFile(licenseJson(), { kid: 'vendor-9' }),
        (res) => validation(res, '/kid', 'names no license key this build knows'),
      ],
      [
        'bad signature',
        () => licenseFile(licenseJson(), { privateKeyPem: OTHER_KEYS.privateKeyPem }),
        (res) =>
          validation(
            res,
            '/signature',
            'does not match the payload: the license was altered or not signed by the vendor',
          ),
      ],
      [
        'altered payload',
        () => {
          const other = JSON.parse(licenseFile(licenseJson({ limits: {} })));
          return JSON.stringify({ ...file, payload: other.payload });
        },
        (res) =>
          validation(
            res,
            '/signature',
            'does not match the payload: the license was altered or not signed by the vendor',
          ),
      ],
      ['not licence JSON', () => licenseFile('[1, 2]'), (res) => validation(res, '/payload', 'is not license JSON')],
      [
        'another product',
        () => licenseFile(licenseJson({ product: 'other' })),
        (res) => validation(res, '/payload/product', 'is not pms: the license is for other software'),
      ],
      [
        'expired',
        () => licenseFile(licenseJson({ expiresAt: at(-1) })),
        (res) => validation(res, '/payload/expiresAt', 'has passed: the license has expired'),
      ],
      [
        'in its grace period',
        () => licenseFile(licenseJson({ expiresAt: at(-days(1)), graceDays: 30 })),
        (res) => validation(res, '/payload/expiresAt', 'has passed: the license has expired'),
      ],
      [
        'valid from more than 24 h ahead',
        () => licenseFile(licenseJson({ validFrom: at(days(1) + 1) })),
        (res) => validation(res, '/payload/validFrom', 'is more than 24 hours ahead: the license is not valid yet'),
      ],
    ];
    it.each(cases)('%s', async (_, body, expected) => {
      const t = licenseApp();
      await t.install();
      const before = await t.status();
      const res = await t.install(body(), 'text/plain');
      expect(res.status).toBe(400);
      expect(res.body).toEqual(expected(res));
      await unchanged(t, before);
    });

    it('another machine (the machine id is named in the answer)', async () => {
      const t = licenseApp();
      await t.install();
      const before = await t.status();
      const res = await t.install(licenseFile(licenseJson({ machineId: 'f'.repeat(32) })));
      expect(res.body).toEqual(
        validation(res, '/payload/machineId', `names another appliance; this one is ${machineId(t.deps)}`),
      );
      await unchanged(t, before);
      const bound = await t.install(licenseFile(licenseJson({ machineId: machineId(t.deps), licenseId: 'L-2' })));
      expect(bound.body).toMatchObject({ status: 'valid', licenseId: 'L-2' });
    });

    it('a licence valid from at most 24 h ahead is taken, and counts as valid', async () => {
      const t = licenseApp();
      const res = await t.install(licenseFile(licenseJson({ validFrom: at(days(1)) })));
      expect(res.body).toMatchObject({ status: 'valid', validFrom: at(days(1)) });
    });

    it('a body over 64 KiB is 413', async () => {
      const t = licenseApp();
      const big = await t.install(`{"kid":"${'x'.repeat(70_000)}"}`);
      expect(big.body).toEqual(errorBody(big, 413, 'payload_too_large', 'the body is larger than 65536 bytes'));
      expect((await t.status()).status).toBe('missing');
    });
  });
});

describe('DELETE /license', () => {
  it('removes the licence: 204, missing again, license.changed, an audit entry, the file gone', async () => {
    const t = licenseApp();
    await t.install();
    const res = await t.call('DELETE', '/license', { as: 'admin' });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await t.status()).status).toBe('missing');
    expect(t.emitted('license.changed').at(-1)).toEqual({
      status: 'missing',
      expiresAt: null,
      daysRemaining: null,
      licenseId: null,
    });
    expect(auditEntries(t).at(-1)).toMatchObject({ key: 'license.removed', value: 'license L-1 (ACME Arena) removed' });
    expect(existsSync(licenseFilePath(t.deps.config))).toBe(false);
  });

  it('with none installed: 204 and nothing happens', async () => {
    const t = licenseApp();
    expect((await t.call('DELETE', '/license', { as: 'admin' })).status).toBe(204);
    expect(t.emitted('license.changed')).toEqual([]);
    expect(auditEntries(t)).toEqual([]);
  });

  it('needs license:write', async () => {
    const t = licenseApp();
    await t.install();
    const res = await t.call('DELETE', '/license', { as: 'operator' });
    expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this needs the license:write permission'));
    expect((await t.status()).status).toBe('valid');
  });
});

describe('across a restart', () => {
  it('the installed licence stays', async () => {
    const first = licenseApp();
    await first.install();
    const before = await first.status();
    first.deps.sqlite.close();
    const t = licenseApp({ dataDir: first.deps.config.dataDir });
    expect(await t.status()).toEqual(before);
  });

  it('a licence that no longer verifies (its test key gone, or the file altered) counts as missing; the file is kept', async () => {
    const first = licenseApp();
    await first.install();
    first.deps.sqlite.close();
    const withoutKey = licenseApp({ dataDir: first.deps.config.dataDir, testKey: false });
    expect((await withoutKey.status()).status).toBe('missing');
    expect(existsSync(licenseFilePath(first.deps.config))).toBe(true);
    withoutKey.deps.sqlite.close();
    const path = licenseFilePath(first.deps.config);
    const file = JSON.parse(readFileSync(path, 'utf8'));
    const other = JSON.parse(licenseFile(licenseJson({ limits: {} })));
    writeFileSync(path, JSON.stringify({ ...file, payload: other.payload }));
    expect((await licenseApp({ dataDir: first.deps.config.dataDir }).status()).status).toBe('missing');
  });
});

describe('one unit (ARCHITECTURE "Writing")', () => {
  it('an install or removal whose audit entry cannot be written leaves the file, the status and the events as they were', async () => {
    const t = licenseApp();
    await t.install();
    const path = licenseFilePath(t.deps.config);
    const file = readFileSync(path, 'utf8');
    const before = await t.status();
    t.deps.sqlite.run(
      `CREATE TRIGGER audit_down BEFORE INSERT ON logs WHEN NEW.key LIKE 'license.%'
       BEGIN SELECT RAISE(ABORT, 'audit down'); END`,
    );
    const replaced = await t.install(licenseFile(licenseJson({ licenseId: 'L-2' })));
    expect(replaced.status).toBeGreaterThanOrEqual(400);
    const removed = await t.call('DELETE', '/license', { as: 'admin' });
    expect(removed.status).toBeGreaterThanOrEqual(400);
    expect(readFileSync(path, 'utf8')).toBe(file);
    expect(await t.status()).toEqual(before);
    expect(t.emitted('license.changed')).toHaveLength(1);
  });
});
