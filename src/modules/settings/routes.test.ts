import { describe, expect, it } from 'bun:test';
import { hostname } from 'node:os';
import { allLogText, auditEntries, rowCount } from '../../../tests/helpers/app';
import { SETTING_DEFAULTS } from '../../core/settings';
import { errorBody, settingsApp, validationBody } from './test-support';
import { GROUP_KEYS } from './values';

const DEFAULTS = {
  systemName: 'Platform',
  timezone: 'UTC',
  auth: {
    trustedNetworks: ['127.0.0.0/8', '::1/128'],
    sessionIdleMinutes: 720,
    sessionMaxDays: 7,
    trustedNetworksOverride: null,
  },
  health: { defaultGracePeriodSeconds: 30 },
  subsystems: { actionMessageTtlSeconds: 60 },
  schedule: { missedRunGraceSeconds: 300 },
  alerts: { flapWindowSeconds: 300 },
  notifications: { retentionDays: 30 },
  logs: { retentionDays: 90, maxEntries: 200000, auditRetentionDays: 365 },
  variables: { historyRetentionDays: 30, maxHistoryPointsPerVariable: 100000 },
  media: { maxUploadBytes: 8 * 1024 ** 3, quotaBytes: null, minFreeBytes: 1024 ** 3, trashDays: 7 },
  backups: {
    schedule: { enabled: true, time: '03:30', days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] },
    keepScheduled: 7,
    includeMedia: true,
    maxUploadBytes: 20 * 1024 ** 3,
    passphraseSet: false,
  },
  smtp: null,
  rateLimits: {
    requestsPerSecond: 50,
    requestBurst: 300,
    ingestPerSecond: 10000,
    ingestBurst: 20000,
    heartbeatsPerSecond: 10,
    heartbeatBurst: 20,
    loginFailuresPerAddress: 20,
  },
  logo: null,
  background: null,
};

describe('GET /settings', () => {
  it('shows every settings group core/settings.ts knows (a group added there must reach the document)', () => {
    expect([...GROUP_KEYS].sort() as string[]).toEqual(Object.keys(SETTING_DEFAULTS).sort());
  });

  it('answers the whole document with its defaults and the host name', async () => {
    const t = settingsApp();
    expect(await t.read()).toEqual({ ...DEFAULTS, systemHostname: hostname() });
  });

  it('is read by the integration role, a trusted field client and a viewer; never written by them', async () => {
    const t = settingsApp();
    for (const options of [{ as: 'integration' as const }, { from: '127.0.0.1' }, { as: 'viewer' as const }]) {
      expect((await t.call('GET', '/settings', options)).status).toBe(200);
      const res = await t.call('PATCH', '/settings', { ...options, body: { systemName: 'Mine' } });
      expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this needs the settings:write permission'));
    }
    // Operators run the venue but do not configure the platform (§0.3).
    const res = await t.call('PATCH', '/settings', { as: 'operator', body: { systemName: 'Mine' } });
    expect(res.status).toBe(403);
    expect((await t.read()).systemName).toBe('Platform');
  });
});

describe('PUT, PATCH and POST /settings', () => {
  it('change the keys present; nested objects merge key by key, arrays are replaced', async () => {
    const t = settingsApp();
    const res = await t.patch({
      systemName: '  Grand Hall ',
      logs: { retentionDays: 30 },
      auth: { trustedNetworks: ['10.1.0.0/16', ' 192.168.5.7 ', '10.1.0.0/16'] },
      backups: { schedule: { days: ['sun', 'mon', 'sun'] } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...DEFAULTS,
      systemHostname: hostname(),
      systemName: 'Grand Hall',
      logs: { ...DEFAULTS.logs, retentionDays: 30 },
      auth: { ...DEFAULTS.auth, trustedNetworks: ['10.1.0.0/16', '192.168.5.7'] },
      backups: { ...DEFAULTS.backups, schedule: { ...DEFAULTS.backups.schedule, days: ['mon', 'sun'] } },
    });
    expect(await t.read()).toEqual(res.body);
    for (const method of ['PUT', 'POST']) {
      const again = await t.patch({ variables: { historyRetentionDays: method === 'PUT' ? 7 : 8 } }, method);
      expect(again.status).toBe(200);
      expect(again.body.variables).toEqual({
        historyRetentionDays: method === 'PUT' ? 7 : 8,
        maxHistoryPointsPerVariable: 100000,
      });
    }
  });

  it('emit settings.changed with the changed keys and audit old and new values, in one unit per change', async () => {
    const t = settingsApp();
    await t.patch({ logs: { retentionDays: 30, maxEntries: 200000 }, timezone: 'Europe/Berlin' });
    expect(t.changed()).toEqual([['timezone', 'logs.retentionDays']]);
    expect(t.audits()).toEqual([
      {
        key: 'settings.updated',
        value: 'settings updated: timezone "UTC" → "Europe/Berlin"; logs.retentionDays 90 → 30',
        createdBy: 'test admin',
      },
    ]);
    await t.patch({ auth: { trustedNetworks: ['10.0.0.0/8'] } });
    expect(t.audits()[1]?.value).toBe(
      'settings updated: auth.trustedNetworks ["127.0.0.0/8","::1/128"] → ["10.0.0.0/8"]',
    );
  });

  it('a document read and sent back changes nothing: no write, no event, no audit entry', async () => {
    const t = settingsApp();
    await t.patch({
      smtp: { host: 'mail.venue.example', from: 'pms@venue.example', username: 'pms', password: 'pw-1' },
    });
    await t.patch({ backups: { passphrase: 'correct horse battery' }, media: { quotaBytes: 5_000_000_000 } });
    const before = await t.read();
    const events = t.changed().length;
    const audits = t.audits().length;
    for (const method of ['PUT', 'PATCH', 'POST']) {
      const res = await t.patch(before, method);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(before);
    }
    expect(t.changed().length).toBe(events);
    expect(t.audits().length).toBe(audits);
    expect(before.smtp.passwordSet).toBe(true);
    expect(before.backups.passphraseSet).toBe(true);
  });

  it('ignores read-only and unknown keys; an empty body changes nothing', async () => {
    const t = settingsApp();
    const res = await t.patch({
      systemHostname: 'spoofed',
      logo: { sha256: 'x' },
      auth: { trustedNetworksOverride: ['0.0.0.0/0'] },
      backups: { passphraseSet: true },
      whatever: 1,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...DEFAULTS, systemHostname: hostname() });
    expect((await t.patch({})).status).toBe(200);
    expect(t.changed()).toEqual([]);
  });

  it('takes an IANA zone in any case (stored as the build spells it) and refuses offsets and unknown names', async () => {
    const t = settingsApp();
    expect((await t.patch({ timezone: 'america/new_york' })).body.timezone).toBe('America/New_York');
    for (const timezone of ['+01:00', 'Mars/Olympus', 'Local', '']) {
      const res = await t.patch({ timezone });
      expect(res.status).toBe(400);
      expect(res.body.detail[0].path).toBe('/timezone');
    }
    expect((await t.read()).timezone).toBe('America/New_York');
  });

  const BAD: [string, unknown, string, string][] = [
    ['systemName', { systemName: '' }, '/systemName', 'must be 1 to 100 characters without control characters'],
    [
      'systemName',
      { systemName: 'x'.repeat(101) },
      '/systemName',
      'must be 1 to 100 characters without control characters',
    ],
    ['systemName', { systemName: '   ' }, '/systemName', 'must not be blank'],
    [
      'timezone',
      { timezone: 'Nowhere/Land' },
      '/timezone',
      'must be an IANA time zone name known to this build, such as Europe/Berlin',
    ],
    [
      'trustedNetworks',
      { auth: { trustedNetworks: ['10.0.0.0/8', '10.0.0.0/33'] } },
      '/auth/trustedNetworks/1',
      'must be a CIDR network such as 192.168.1.0/24, or an address',
    ],
    [
      'trustedNetworks',
      { auth: { trustedNetworks: ['lan'] } },
      '/auth/trustedNetworks/0',
      'must be a CIDR network such as 192.168.1.0/24, or an address',
    ],
    ['trustedNetworks', { auth: { trustedNetworks: '10.0.0.0/8' } }, '/auth/trustedNetworks', 'must be an array'],
    [
      'sessionIdleMinutes',
      { auth: { sessionIdleMinutes: 4 } },
      '/auth/sessionIdleMinutes',
      'must be an integer from 5 to 10080',
    ],
    [
      'sessionIdleMinutes',
      { auth: { sessionIdleMinutes: 10081 } },
      '/auth/sessionIdleMinutes',
      'must be an integer from 5 to 10080',
    ],
    ['sessionMaxDays', { auth: { sessionMaxDays: 91 } }, '/auth/sessionMaxDays', 'must be an integer from 1 to 90'],
    [
      'grace',
      { health: { defaultGracePeriodSeconds: 0 } },
      '/health/defaultGracePeriodSeconds',
      'must be an integer from 1 to 86400',
    ],
    [
      'grace',
      { health: { defaultGracePeriodSeconds: 1.5 } },
      '/health/defaultGracePeriodSeconds',
      'must be an integer from 1 to 86400',
    ],
    [
      'ttl',
      { subsystems: { actionMessageTtlSeconds: 4 } },
      '/subsystems/actionMessageTtlSeconds',
      'must be an integer from 5 to 3600',
    ],
    [
      'missed',
      { schedule: { missedRunGraceSeconds: -1 } },
      '/schedule/missedRunGraceSeconds',
      'must be an integer from 0 to 86400',
    ],
    ['flap', { alerts: { flapWindowSeconds: 3601 } }, '/alerts/flapWindowSeconds', 'must be an integer from 0 to 3600'],
    [
      'notifications',
      { notifications: { retentionDays: 0 } },
      '/notifications/retentionDays',
      'must be an integer from 1 to 365',
    ],
    ['logs', { logs: { retentionDays: 3651 } }, '/logs/retentionDays', 'must be an integer from 1 to 3650'],
    ['logs', { logs: { maxEntries: 999 } }, '/logs/maxEntries', 'must be an integer from 1000 to 10000000'],
    ['logs', { logs: { auditRetentionDays: 364 } }, '/logs/auditRetentionDays', 'must be an integer from 365 to 36500'],
    [
      'variables',
      { variables: { historyRetentionDays: 0 } },
      '/variables/historyRetentionDays',
      'must be an integer from 1 to 3650',
    ],
    [
      'variables',
      { variables: { maxHistoryPointsPerVariable: 99 } },
      '/variables/maxHistoryPointsPerVariable',
      'must be an integer from 100 to 10000000',
    ],
    ['media', { media: { maxUploadBytes: 0 } }, '/media/maxUploadBytes', 'must be an integer of at least 1'],
    ['media', { media: { quotaBytes: -1 } }, '/media/quotaBytes', 'must be a positive integer, or null for no quota'],
    ['media', { media: { minFreeBytes: null } }, '/media/minFreeBytes', 'must be an integer of at least 1'],
    ['media', { media: { trashDays: 91 } }, '/media/trashDays', 'must be an integer from 0 to 90'],
    [
      'backups',
      { backups: { schedule: { time: '24:00' } } },
      '/backups/schedule/time',
      'must be HH:MM (00:00 to 23:59)',
    ],
    [
      'backups',
      { backups: { schedule: { time: '3:30' } } },
      '/backups/schedule/time',
      'must be HH:MM (00:00 to 23:59)',
    ],
    [
      'backups',
      { backups: { schedule: { days: ['monday'] } } },
      '/backups/schedule/days/0',
      'must be one of: mon, tue, wed, thu, fri, sat, sun',
    ],
    ['backups', { backups: { schedule: { days: [] } } }, '/backups/schedule/days', 'must have at least 1 entry'],
    ['backups', { backups: { schedule: { enabled: 'yes' } } }, '/backups/schedule/enabled', 'must be true or false'],
    ['backups', { backups: { keepScheduled: 366 } }, '/backups/keepScheduled', 'must be an integer from 1 to 365'],
    ['backups', { backups: { maxUploadBytes: 0 } }, '/backups/maxUploadBytes', 'must be an integer of at least 1'],
    [
      'backups',
      { backups: { passphrase: 'short' } },
      '/backups/passphrase',
      'must be 12 to 256 characters, or null to remove it',
    ],
    ['smtp', { smtp: 'mail.local' }, '/smtp', 'must be an object, or null to remove the mail settings'],
    ['smtp', { smtp: { from: 'pms@venue.example' } }, '/smtp/host', 'is required'],
    ['smtp', { smtp: { host: 'mail.local' } }, '/smtp/from', 'is required'],
    [
      'smtp',
      { smtp: { host: 'mail local', from: 'a@b' } },
      '/smtp/host',
      'must be a DNS name or an IP address of 1 to 253 characters',
    ],
    ['smtp', { smtp: { host: 'mail', from: 'a@b', port: 0 } }, '/smtp/port', 'must be an integer from 1 to 65535'],
    ['smtp', { smtp: { host: 'mail', from: 'a@b', port: 65536 } }, '/smtp/port', 'must be an integer from 1 to 65535'],
    [
      'smtp',
      { smtp: { host: 'mail', from: 'nobody' } },
      '/smtp/from',
      'must be an e-mail address, or a name and an address as Name <address>',
    ],
    [
      'smtp',
      { smtp: { host: 'mail', from: 'a@b\r\nBcc: x@y' } },
      '/smtp/from',
      'must be an e-mail address, or a name and an address as Name <address>',
    ],
    [
      'smtp',
      { smtp: { host: 'mail', from: 'a@b', password: '' } },
      '/smtp/password',
      'must be 1 to 1024 characters, or null to remove it',
    ],
    [
      'rateLimits',
      { rateLimits: { requestsPerSecond: 4 } },
      '/rateLimits/requestsPerSecond',
      'must be 0 (off) or an integer from 5 to 100000',
    ],
    [
      'rateLimits',
      { rateLimits: { requestBurst: 9 } },
      '/rateLimits/requestBurst',
      'must be an integer from 10 to 1000000',
    ],
    [
      'rateLimits',
      { rateLimits: { ingestPerSecond: 99 } },
      '/rateLimits/ingestPerSecond',
      'must be 0 (off) or an integer from 100 to 1000000',
    ],
    [
      'rateLimits',
      { rateLimits: { ingestBurst: 10_000_001 } },
      '/rateLimits/ingestBurst',
      'must be an integer from 100 to 10000000',
    ],
    [
      'rateLimits',
      { rateLimits: { heartbeatsPerSecond: 1001 } },
      '/rateLimits/heartbeatsPerSecond',
      'must be 0 (off) or an integer from 1 to 1000',
    ],
    [
      'rateLimits',
      { rateLimits: { heartbeatBurst: 0 } },
      '/rateLimits/heartbeatBurst',
      'must be an integer from 1 to 10000',
    ],
    [
      'rateLimits',
      { rateLimits: { loginFailuresPerAddress: 3 } },
      '/rateLimits/loginFailuresPerAddress',
      'must be 0 (off) or an integer from 5 to 10000',
    ],
    ['group', { logs: 5 }, '/logs', 'must be an object'],
  ];
  it.each(BAD)('refuses a bad %s at its path, changing nothing', async (_, body, path, message) => {
    const t = settingsApp();
    // A valid key beside the bad one is not applied either.
    const res = await t.patch({ notifications: { retentionDays: 2 }, ...(body as object) });
    expect(res.body).toEqual(validationBody(res, path, message));
    expect(await t.read()).toEqual({ ...DEFAULTS, systemHostname: hostname() });
    expect(t.changed()).toEqual([]);
  });

  it('never echoes a refused secret', async () => {
    const t = settingsApp();
    const res = await t.patch({ backups: { passphrase: 'tiny-secret' } });
    expect(res.status).toBe(400);
    expect(res.text).not.toContain('tiny-secret');
  });

  it('accepts every bound of every range', async () => {
    const t = settingsApp();
    const edges = {
      auth: { sessionIdleMinutes: 5, sessionMaxDays: 90 },
      health: { defaultGracePeriodSeconds: 86400 },
      subsystems: { actionMessageTtlSeconds: 3600 },
      schedule: { missedRunGraceSeconds: 0 },
      alerts: { flapWindowSeconds: 0 },
      notifications: { retentionDays: 365 },
      logs: { retentionDays: 1, maxEntries: 10_000_000, auditRetentionDays: 365 },
      variables: { historyRetentionDays: 3650, maxHistoryPointsPerVariable: 100 },
      media: { maxUploadBytes: 1, quotaBytes: null, minFreeBytes: 1, trashDays: 0 },
      rateLimits: {
        requestsPerSecond: 0,
        requestBurst: 10,
        ingestPerSecond: 100,
        ingestBurst: 100,
        heartbeatsPerSecond: 1,
        heartbeatBurst: 1,
        loginFailuresPerAddress: 0,
      },
    };
    const res = await t.patch(edges);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject(edges);
  });
});

describe('smtp', () => {
  it('takes host and from, fills the port from secure (following it while it is the default) and keeps a port set by hand', async () => {
    const t = settingsApp();
    let res = await t.patch({ smtp: { host: 'mail.venue.example', from: 'Venue <pms@venue.example>', username: '' } });
    expect(res.body.smtp).toEqual({
      host: 'mail.venue.example',
      port: 587,
      secure: false,
      username: null,
      from: 'Venue <pms@venue.example>',
      verifyCertificate: true,
      passwordSet: false,
    });
    res = await t.patch({ smtp: { secure: true } });
    expect(res.body.smtp).toMatchObject({ port: 465, secure: true });
    res = await t.patch({ smtp: { port: 2525, secure: false } });
    expect(res.body.smtp).toMatchObject({ port: 2525, secure: false });
    res = await t.patch({ smtp: { secure: true } });
    expect(res.body.smtp).toMatchObject({ port: 2525, secure: true });
    expect(t.changed().at(-1)).toEqual(['smtp.secure']);
  });

  it('null removes the mail settings, password included; alert e-mail then needs them again', async () => {
    const t = settingsApp();
    await t.patch({ smtp: { host: 'mail', from: 'a@b.example', password: 'secret-1' } });
    const res = await t.patch({ smtp: null });
    expect(res.body.smtp).toBeNull();
    expect(t.changed().at(-1)).toEqual([
      'smtp.host',
      'smtp.port',
      'smtp.secure',
      'smtp.from',
      'smtp.verifyCertificate',
      'smtp.password',
    ]);
    // Set again without a password: the old one is gone.
    expect((await t.patch({ smtp: { host: 'mail', from: 'a@b.example' } })).body.smtp.passwordSet).toBe(false);
  });
});

describe('secrets (§18 rule 2)', () => {
  it('are write-only: set, kept by a round trip, changed, cleared by null; never answered nor logged', async () => {
    const t = settingsApp();
    await t.patch({
      smtp: { host: 'mail', from: 'a@b.example', username: 'pms', password: 'smtp-secret-1' },
      backups: { passphrase: 'passphrase-secret-1' },
    });
    let doc = await t.read();
    expect(doc.smtp.passwordSet).toBe(true);
    expect(doc.backups.passphraseSet).toBe(true);
    await t.patch(doc, 'PUT');
    expect(t.deps.sqlite.query("SELECT value FROM settings WHERE key = 'smtp'").get()).toEqual({
      value: expect.stringContaining('smtp-secret-1'),
    });
    await t.patch({ smtp: { password: 'smtp-secret-2' }, backups: { passphrase: 'passphrase-secret-2' } });
    expect(t.audits().at(-1)?.value).toBe(
      'settings updated: backups.passphrase (secret) changed; smtp.password (secret) changed',
    );
    await t.patch({ smtp: { password: null }, backups: { passphrase: null } });
    doc = await t.read();
    expect(doc.smtp.passwordSet).toBe(false);
    expect(doc.backups.passphraseSet).toBe(false);
    expect(t.audits().at(-1)?.value).toBe(
      'settings updated: backups.passphrase (secret) set → not set; smtp.password (secret) set → not set',
    );
    const everything = JSON.stringify(await t.read()) + allLogText(t) + JSON.stringify(t.events);
    for (const secret of ['smtp-secret-1', 'smtp-secret-2', 'passphrase-secret-1', 'passphrase-secret-2'])
      expect(everything).not.toContain(secret);
  });
});

describe('DELETE /settings', () => {
  it('is refused with 405 and an Allow header, after the permission check', async () => {
    const t = settingsApp();
    const res = await t.call('DELETE', '/settings', { as: 'admin' });
    expect(res.body).toEqual(
      errorBody(res, 405, 'method_not_allowed', 'settings cannot be removed; reset keys with POST /settings/reset'),
    );
    expect(res.headers.get('allow')).toBe('GET, PUT, PATCH, POST');
    expect((await t.call('DELETE', '/settings', { as: 'viewer' })).status).toBe(403);
    expect((await t.call('DELETE', '/settings')).status).toBe(401);
  });
});

describe('POST /settings/reset', () => {
  it('puts leaves, nested objects and whole groups back to their defaults, in one change', async () => {
    const t = settingsApp();
    await t.patch({
      systemName: 'Hall',
      timezone: 'Europe/Berlin',
      logs: { retentionDays: 10, maxEntries: 5000 },
      backups: { schedule: { time: '01:00', enabled: false }, keepScheduled: 3, passphrase: 'a long passphrase' },
      smtp: { host: 'mail', from: 'a@b.example', port: 2525, password: 'pw' },
      media: { quotaBytes: 10 },
    });
    const res = await t.call('POST', '/settings/reset', {
      as: 'admin',
      body: {
        keys: [
          'logs.retentionDays',
          'backups.schedule',
          'backups.passphrase',
          'smtp.port',
          'smtp.password',
          'media',
          'systemName',
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      systemName: 'Platform',
      timezone: 'Europe/Berlin',
      logs: { retentionDays: 90, maxEntries: 5000 },
      backups: { schedule: DEFAULTS.backups.schedule, keepScheduled: 3, passphraseSet: false },
      smtp: { host: 'mail', port: 587, passwordSet: false },
      media: DEFAULTS.media,
    });
    expect(t.changed().at(-1)).toEqual([
      'systemName',
      'logs.retentionDays',
      'media.quotaBytes',
      'backups.schedule.enabled',
      'backups.schedule.time',
      'backups.passphrase',
      'smtp.port',
      'smtp.password',
    ]);
    expect(t.audits().at(-1)).toMatchObject({
      key: 'settings.reset',
      value: expect.stringContaining('logs.retentionDays 10 → 90'),
    });
    const whole = await t.call('POST', '/settings/reset', {
      as: 'admin',
      body: { keys: ['smtp', 'timezone', 'logs'] },
    });
    expect(whole.body).toEqual({ ...DEFAULTS, systemHostname: hostname(), backups: res.body.backups });
  });

  it('refuses unknown, read-only and default-less keys at /keys/<i>, changing nothing', async () => {
    const t = settingsApp();
    await t.patch({ logs: { retentionDays: 10 } });
    for (const [key, message] of [
      ['logs.retentionDay', 'names no setting'],
      ['nothing', 'names no setting'],
      ['logs.retentionDays.x', 'names no setting'],
      ['systemHostname', 'is read-only and has nothing to reset'],
      ['logo', 'is read-only and has nothing to reset'],
      ['smtp.passwordSet', 'is read-only and has nothing to reset'],
      ['smtp.host', 'has no default; reset smtp to remove the mail settings'],
    ]) {
      const res = await t.call('POST', '/settings/reset', { as: 'admin', body: { keys: ['logs.retentionDays', key] } });
      expect(res.body).toEqual(validationBody(res, '/keys/1', message as string));
    }
    expect((await t.read()).logs.retentionDays).toBe(10);
    for (const body of [{}, { keys: [] }, { keys: 'logs' }]) {
      expect((await t.call('POST', '/settings/reset', { as: 'admin', body })).status).toBe(400);
    }
  });

  it('resetting what is already at its default changes nothing', async () => {
    const t = settingsApp();
    const res = await t.call('POST', '/settings/reset', { as: 'admin', body: { keys: ['logs', 'smtp.port'] } });
    expect(res.status).toBe(200);
    expect(t.changed()).toEqual([]);
    expect(t.audits()).toEqual([]);
  });
});

describe('one unit per change (§18 rule 1, §10 rule 3)', () => {
  it('a change whose event cannot be queued leaves the stored settings, the cache and the schedule as they were', async () => {
    const t = settingsApp();
    const hook = await t.call('POST', '/webhook', {
      as: 'admin',
      body: { displayName: 'all', url: 'http://receiver.invalid/hook', events: ['*'] },
    });
    expect(hook.status).toBe(201);
    // The last event of the unit: everything before it (the write, the audit, the schedule's own read
    // of the new zone) happened when it fails.
    t.deps.sqlite.run(
      `CREATE TRIGGER outbox_down BEFORE INSERT ON webhook_deliveries WHEN NEW.event_type = 'schedule.changed'
       BEGIN SELECT RAISE(ABORT, 'outbox down'); END`,
    );
    const res = await t.patch({ timezone: 'Asia/Tokyo', logs: { retentionDays: 5 } });
    expect(res.status).toBe(409);
    const doc = await t.read();
    expect(doc.timezone).toBe('UTC');
    expect(doc.logs.retentionDays).toBe(90);
    expect(t.changed()).toEqual([]);
    expect(auditEntries(t).map((e) => e.key)).not.toContain('settings.updated');
    expect(rowCount(t, 'webhook_deliveries', "event_type = 'settings.changed'")).toBe(0);
  });
});
