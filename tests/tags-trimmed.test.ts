/**
 * §0.2 tags are trimmed in both forms (http/fields.ts, `tagsOf`): the array form kept `" lobby "` as a
 * tag of its own beside `"lobby"`, and `"   "` as a tag, where the comma-separated form trimmed both;
 * the tag filters, which trim, never found the padded one. A blank tag in the array form is refused
 * (400, nothing stored); an empty piece of the string form (`"a,b,"`) is dropped, as it always was.
 */
import { describe, expect, it } from 'bun:test';
import { addSubsystem, makeTestApp } from './helpers/app';
import { validationBody } from './helpers/errors';
import { storedRows as stored } from './helpers/stored';

const KINDS = [
  { path: '/objects/cms-media', list: '/objects/cms-media', body: { name: 'clip.mp4' } },
  { path: '/variables', list: '/variables', body: { subsystemExternalId: 'media', externalRef: 'level' } },
  {
    path: '/assets',
    list: '/assets',
    body: { subsystemExternalId: 'media', externalRef: 'sw-1', displayName: 'Switch' },
  },
] as const;

describe('tags are trimmed in both forms', () => {
  for (const kind of KINDS) {
    it(`${kind.path}: [" lobby ", "lobby", "stage "] is stored as lobby and stage, and the filter finds it`, async () => {
      const t = makeTestApp();
      await addSubsystem(t, 'media');
      const made = await t.call('POST', kind.path, {
        as: 'admin',
        body: { ...kind.body, tags: [' lobby ', 'lobby', 'stage '] },
      });
      expect(made.status).toBe(201);
      expect(made.body.tags).toEqual(['lobby', 'stage']);
      const found = await t.call('GET', kind.list, { as: 'viewer', query: { tags: 'stage' } });
      expect(found.body.map((e: { _id: number }) => e._id)).toEqual([made.body._id]);
      const csv = await t.call(
        'PATCH',
        `${kind.path === '/objects/cms-media' ? '/objects' : kind.path}/${made.body._id}`,
        {
          as: 'admin',
          body: { tags: ' foyer , lobby ,' },
        },
      );
      expect(csv.body.tags).toEqual(['foyer', 'lobby']);
    });

    it(`${kind.path}: a blank tag in the array form is 400 and stores nothing`, async () => {
      const t = makeTestApp();
      await addSubsystem(t, 'media');
      t.tokenFor('admin'); // made on first use: before the digest
      const before = stored(t);
      const res = await t.call('POST', kind.path, { as: 'admin', body: { ...kind.body, tags: ['lobby', '   '] } });
      expect(res.body).toEqual(validationBody(res, '/tags', 'must hold strings of 1 to 64 characters'));
      expect(stored(t)).toEqual(before);
    });
  }
});
