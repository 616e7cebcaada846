/**
 * §0.2 "metadata: at most 16 KiB serialized" counts bytes of UTF-8 of what is stored, on every
 * resource that keeps a client's JSON (fields.ts `jsonLargerThanKiB`), not UTF-16 units: 6 000 'é'
 * (12 000 bytes) fit, 6 000 '😀' (24 000 bytes, 12 000 units) do not.
 */
import { describe, expect, it } from 'bun:test';
import { addSubsystem, makeTestApp, type TestApp } from './helpers/app';
import { validationBody } from './helpers/errors';
import { storedRows as stored } from './helpers/stored';

type Make = (t: TestApp, json: Record<string, unknown>) => { path: string; body: Record<string, unknown> };

/** Each resource with a client's JSON kept under a KiB limit: how to create one holding `json`, and its field. */
const RESOURCES: Array<[string, string, Make]> = [
  ['subsystem', 'metadata', (_, json) => ({ path: '/subsystems', body: { externalId: 'foyer', metadata: json } })],
  [
    'event',
    'metadata',
    (_, json) => ({ path: '/events', body: { subsystemExternalId: 'media', externalRef: 'go', metadata: json } }),
  ],
  [
    'playable',
    'metadata',
    (_, json) => ({ path: '/playables', body: { subsystemExternalId: 'media', externalRef: 'd', metadata: json } }),
  ],
  ['object', 'metadata', (_, json) => ({ path: '/objects/cms-media', body: { name: 'a.bin', metadata: json } })],
  [
    'asset',
    'metadata',
    (_, json) => ({ path: '/assets', body: { displayName: 'Rack', type: 'site', metadata: json } }),
  ],
  [
    'user',
    'preferences',
    (_, json) => ({ path: '/users', body: { username: 'alice', password: 'Alice-pass-123', preferences: json } }),
  ],
  [
    'user template',
    'preferences',
    (_, json) => ({ path: '/usertemplates', body: { displayName: 'Crew', preferences: json } }),
  ],
  ['log preset', 'filters', (_, json) => ({ path: '/logs/presets', body: { name: 'n', filters: json } })],
];

/** `{"t":"…"}` of exactly `bytes` bytes of UTF-8, written with `unit` (its byte count divides the room). */
function jsonOfBytes(bytes: number, unit: string, unitBytes: number): Record<string, string> {
  const room = bytes - '{"t":""}'.length;
  return { t: unit.repeat(Math.floor(room / unitBytes)) + 'a'.repeat(room % unitBytes) };
}

const LIMIT = 16 * 1024;

describe('a KiB limit on a client JSON counts bytes of UTF-8', () => {
  it.each(RESOURCES)('%s: multi-byte text on both sides of 16 KiB', async (_, field, make) => {
    const t = makeTestApp();
    await addSubsystem(t, 'media');
    t.tokenFor('admin');
    const accepted = [
      { t: 'é'.repeat(6000) }, // 12 000 bytes
      jsonOfBytes(LIMIT, 'é', 2), // exactly 16 KiB
    ];
    const refused = [
      { t: '😀'.repeat(6000) }, // 24 000 bytes, 12 000 UTF-16 units
      jsonOfBytes(LIMIT + 1, 'é', 2), // one byte over, 8 200 UTF-16 units
      jsonOfBytes(LIMIT + 1, '€', 3),
    ];
    for (const json of refused) {
      expect(new TextEncoder().encode(JSON.stringify(json)).length).toBeGreaterThan(LIMIT);
      const before = stored(t);
      const { path, body } = make(t, json);
      const res = await t.call('POST', path, { as: 'admin', body });
      expect(res.body).toEqual(validationBody(res, `/${field}`, 'must be at most 16 KiB'));
      expect(stored(t)).toEqual(before);
    }
    for (const json of accepted) {
      expect(new TextEncoder().encode(JSON.stringify(json)).length).toBeLessThanOrEqual(LIMIT);
      const t2 = makeTestApp();
      await addSubsystem(t2, 'media');
      const { path, body } = make(t2, json);
      const res = await t2.call('POST', path, { as: 'admin', body });
      expect(res.status).toBe(201);
      expect(res.body[field]).toMatchObject(json);
    }
  });

  it('a patch is judged on the merged metadata, in bytes', async () => {
    const t = makeTestApp();
    await addSubsystem(t, 'media', { metadata: { a: 'é'.repeat(4000) } });
    const res = await t.call('PATCH', '/subsystems/media', {
      as: 'admin',
      body: { metadata: { b: 'ü'.repeat(4200) } },
    });
    expect(res.body).toEqual(validationBody(res, '/metadata', 'must be at most 16 KiB'));
    const fits = await t.call('PATCH', '/subsystems/media', {
      as: 'admin',
      body: { metadata: { b: 'ü'.repeat(4000) } },
    });
    expect(fits.status).toBe(200);
  });
});
