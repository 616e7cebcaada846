/**
 * The name an entity takes from its externalRef when a driver sends none (§4, §5, §6, §14, §2:
 * "default externalRef") follows the §0.2 displayName rule (trimmed, 1–200 characters), because an
 * operator reads the entity and PUTs the whole thing back (C: Requests). A ref may be 256 characters,
 * padded with spaces, or nothing but spaces; such a ref became a name the server itself refused: the
 * round trip answered 400 at /displayName. Now the ref is trimmed and cut to 200 characters (code
 * points: an emoji is kept whole), and a ref of spaces names the entity `<Kind> <_id>`.
 */
import { describe, expect, it } from 'bun:test';
import { addSubsystem, makeTestApp, type TestApp } from './helpers/app';

/** Each kind that names itself after its ref: where it is created, the extra fields it needs, its word. */
const KINDS = [
  { path: '/variables', body: {}, word: 'Variable' },
  { path: '/events', body: {}, word: 'Event' },
  { path: '/parameters', body: {}, word: 'Parameter' },
  { path: '/playables', body: { duration: 60000 }, word: 'Playable' },
  { path: '/controlpanels', body: { connection: { url: 'http://192.168.1.20/panel' } }, word: 'Panel' },
] as const;

const LONG = `${'a'.repeat(199)}😀${'b'.repeat(56)}`; // 256 characters; the 200th is the emoji (two UTF-16 units)
const CUT = `${'a'.repeat(199)}😀`;

async function registered(t: TestApp, kind: (typeof KINDS)[number], externalRef: string) {
  const res = await t.call('POST', kind.path, {
    as: 'integration',
    body: { subsystemExternalId: 'media', externalRef, ...kind.body },
  });
  expect(res.status).toBe(201);
  return res.body as { _id: number; displayName: string };
}

/** The operator's read-then-PUT of the whole entity: 200, and the name unchanged. */
async function putBack(t: TestApp, kind: (typeof KINDS)[number], id: number): Promise<string> {
  const read = await t.call('GET', `${kind.path}/${id}`, { as: 'operator' });
  const put = await t.call('PUT', `${kind.path}/${id}`, { as: 'operator', body: read.body });
  expect({ status: put.status, body: put.status === 200 ? null : put.body }).toEqual({ status: 200, body: null });
  expect(put.body.displayName).toBe(read.body.displayName);
  return read.body.displayName;
}

describe('names given from an externalRef', () => {
  for (const kind of KINDS) {
    it(`${kind.path}: a 256-character ref names the entity with its first 200 characters, the emoji whole`, async () => {
      const t = await makeTestApp();
      await addSubsystem(t, 'media');
      const made = await registered(t, kind, LONG);
      expect(made.displayName).toBe(CUT);
      expect(await putBack(t, kind, made._id)).toBe(CUT);
    });

    it(`${kind.path}: a padded ref names it trimmed; a ref of spaces names it ${kind.word} <_id>`, async () => {
      const t = await makeTestApp();
      await addSubsystem(t, 'media');
      const padded = await registered(t, kind, '  Stage left ');
      expect(padded.displayName).toBe('Stage left');
      expect(await putBack(t, kind, padded._id)).toBe('Stage left');
      const blank = await registered(t, kind, '   ');
      expect(blank.displayName).toBe(`${kind.word} ${blank._id}`);
      expect(await putBack(t, kind, blank._id)).toBe(`${kind.word} ${blank._id}`);
    });
  }

  it('a name sent with the ref wins, and a ref of 200 characters is the name whole', async () => {
    const t = await makeTestApp();
    await addSubsystem(t, 'media');
    const named = await t.call('POST', '/variables', {
      as: 'integration',
      body: { subsystemExternalId: 'media', externalRef: LONG, displayName: 'Fader 1' },
    });
    expect(named.body.displayName).toBe('Fader 1');
    const exact = await registered(t, KINDS[0], 'b'.repeat(200));
    expect(exact.displayName).toBe('b'.repeat(200));
  });

  it('a playable or panel whose name is reset with null takes the same name from its ref', async () => {
    const t = await makeTestApp();
    await addSubsystem(t, 'media');
    for (const kind of [KINDS[3], KINDS[4]]) {
      const made = await registered(t, kind, ` ${LONG.slice(0, -1)}`);
      const named = await t.call('PATCH', `${kind.path}/${made._id}`, {
        as: 'operator',
        body: { displayName: 'Lobby' },
      });
      expect(named.body.displayName).toBe('Lobby');
      const reset = await t.call('PATCH', `${kind.path}/${made._id}`, { as: 'operator', body: { displayName: null } });
      expect(reset.body.displayName).toBe(CUT);
    }
  });
});
