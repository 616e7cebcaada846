/**
 * §0.2 "no control characters" means Unicode's control characters, C1 (U+0080–U+009F) as well as C0
 * and DEL (http/fields.ts, `CONTROL`). C1 passed: a name pasted from Windows-1252 text read as Latin-1
 * carries U+0096 where its dash was, and U+0085 is a line break to some renderers. Format characters
 * (a right-to-left mark, U+200F) are not control characters: venues writing Hebrew or Arabic use them.
 */
import { describe, expect, it } from 'bun:test';
import { addSubsystem, makeTestApp } from './helpers/app';
import { validationBody } from './helpers/errors';
import { storedRows as stored } from './helpers/stored';

const NOT_ALLOWED = 'contains characters that are not allowed';

describe('C1 control characters', () => {
  it('a name, a ref or an object name holding one is 400 at its path and stores nothing', async () => {
    const t = makeTestApp();
    await addSubsystem(t, 'media');
    t.tokenFor('admin'); // made on first use: before the digest
    const before = stored(t);
    const name = await t.call('POST', '/subsystems', {
      as: 'admin',
      body: { externalId: 'foyer', displayName: 'Foyer \u0096 Nord' },
    });
    expect(name.body).toEqual(validationBody(name, '/displayName', NOT_ALLOWED));
    const ref = await t.call('POST', '/variables', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'a\u0085b' },
    });
    expect(ref.body).toEqual(validationBody(ref, '/externalRef', NOT_ALLOWED));
    const byPath = await t.call('PUT', `/subsystems/media/variables/${encodeURIComponent('a\u0085b')}/lastValue`, {
      as: 'admin',
      body: { value: '1' },
    });
    expect(byPath.body).toEqual(
      validationBody(byPath, '/externalRef', 'must be 1 to 256 characters without control characters, / ? or #'),
    );
    const object = await t.call('POST', '/objects/cms-media', { as: 'admin', body: { name: 'clip\u009f.mp4' } });
    expect(object.status).toBe(400);
    expect(object.body.detail[0].path).toBe('/name');
    expect(stored(t)).toEqual(before);
  });

  it('letters beyond ASCII, a no-break space and a right-to-left mark are text, not control characters', async () => {
    const t = makeTestApp();
    const name = 'Salle\u00a0B \u200fמערב\u200f – Écran';
    const made = await t.call('POST', '/subsystems', {
      as: 'admin',
      body: { externalId: 'salle-b', displayName: name },
    });
    expect(made.status).toBe(201);
    expect(made.body.displayName).toBe(name);
  });

  it('401 without a credential comes before the body is judged', async () => {
    const t = makeTestApp();
    const res = await t.call('POST', '/subsystems', {
      body: { externalId: 'foyer', displayName: 'Foyer \u0096 Nord' },
    });
    expect(res.status).toBe(401);
  });
});
