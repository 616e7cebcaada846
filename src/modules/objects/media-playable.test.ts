import { describe, expect, it } from 'bun:test';
import { makeTestApp } from '../../../tests/helpers/app';
import type { ObjectMediaMeta } from '../../db/schema';
import { MAX_DURATION_MS } from '../playables/model';
import type { ObjectRow } from './mapper';
import {
  IMAGE_DURATION_MS,
  instantPlayableOfObject,
  localOrigin,
  mediaCommand,
  mediaDurationOf,
  mediaKindOf,
  mediaObject,
  mediaObjectsByIds,
  namedObjects,
} from './media-playable';
import { mp4, wav } from './probe/test-support';
import { newObject, pngBytes, textBytes, uploadedObject } from './test-support';

/** A stored row with only what these helpers read. */
const rowWith = (media: ObjectMediaMeta | null): ObjectRow => ({ id: 7, media }) as ObjectRow;
const meta = (type: ObjectMediaMeta['type'], duration?: number): ObjectMediaMeta => ({
  type,
  subtype: 'x',
  extension: 'x',
  ...(duration === undefined ? {} : { duration }),
});

describe('the media command and duration (§14 rule 1)', () => {
  it('names the kind and always video, as a path without the leading slash', () => {
    const self = { self: 'api/v1/objects/7' };
    expect(JSON.parse(mediaCommand(7, rowWith(meta('image'))))).toEqual({ data: { image: self, video: self } });
    expect(JSON.parse(mediaCommand(7, rowWith(meta('audio'))))).toEqual({ data: { audio: self, video: self } });
    expect(mediaCommand(7, rowWith(meta('video')))).toBe('{"data":{"video":{"self":"api/v1/objects/7"}}}');
    for (const row of [undefined, rowWith(null), rowWith(meta('document')), rowWith(meta('other'))]) {
      expect(mediaKindOf(row)).toBe('video');
      expect(JSON.parse(mediaCommand(7, row))).toEqual({ data: { video: self } });
    }
  });

  it('gives an image 10 000 ms, video and audio their own duration (rounded, capped), anything else 0', () => {
    expect(mediaDurationOf(rowWith(meta('image')))).toBe(IMAGE_DURATION_MS);
    expect(mediaDurationOf(rowWith(meta('image', 3000)))).toBe(IMAGE_DURATION_MS);
    expect(mediaDurationOf(rowWith(meta('video', 1234.6)))).toBe(1235);
    expect(mediaDurationOf(rowWith(meta('audio', 2000)))).toBe(2000);
    expect(mediaDurationOf(rowWith(meta('video', MAX_DURATION_MS * 2)))).toBe(MAX_DURATION_MS);
    expect(mediaDurationOf(rowWith(meta('video')))).toBe(0);
    expect(mediaDurationOf(rowWith(meta('document', 500)))).toBe(0);
    expect(mediaDurationOf(rowWith(null))).toBe(0);
    expect(mediaDurationOf(undefined)).toBe(0);
  });
});

describe('reading the objects playables name', () => {
  it('reads cms-media objects of every status by id in one call, never another bucket', async () => {
    const t = makeTestApp();
    const a = await uploadedObject(t, 'a.png', pngBytes(2, 2));
    const b = await newObject(t, 'b.mp4');
    await t.call('DELETE', `/objects/${b._id}`, { as: 'admin' });
    t.deps.sqlite.run(`UPDATE objects SET bucket = 'branding' WHERE id = ?`, [a._id]);
    const c = await uploadedObject(t, 'c.txt', textBytes('c'));
    const found = mediaObjectsByIds(t.deps, [c._id, b._id, a._id, c._id, 999]);
    expect([...found.keys()].sort()).toEqual([b._id, c._id].sort());
    expect(found.get(b._id)?.status).toBe('deleted');
    expect(mediaObject(t.deps, a._id)).toBeUndefined();
    expect(mediaObjectsByIds(t.deps, []).size).toBe(0);
    expect(namedObjects(t.deps, [[c._id], [], [c._id, 999]], 'http://x')).toMatchObject({ origin: 'http://x' });
  });

  it('builds links without a request on the loopback address', () => {
    const t = makeTestApp({ config: { httpPort: 8123 } });
    expect(localOrigin(t.deps)).toBe('http://localhost:8123');
  });
});

describe('the instant playable of an object', () => {
  it('is unsaved, of type media, named after the object, with its details on the given origin', async () => {
    const t = makeTestApp();
    const sound = await uploadedObject(t, 'jingle.wav', wav(8000, 1, 8, 16000));
    const row = mediaObject(t.deps, sound._id) as ObjectRow;
    const instant = instantPlayableOfObject(t.deps, row, 'http://pms');
    expect(instant).toEqual({
      _id: null,
      type: 'media',
      displayName: 'jingle.wav',
      externalRef: null,
      command: mediaCommand(sound._id, row),
      duration: 2000,
      durationType: 'static',
      objects: [sound._id],
      objectsDetails: [
        expect.objectContaining({
          _id: sound._id,
          status: 'uploaded',
          metadata: expect.objectContaining({ type: 'audio' }),
        }),
      ],
      thumbId: null,
      active: true,
      autoSync: false,
      isCached: false,
      metadata: {},
      group_name: '',
    });
    expect(instant.objectsDetails[0]?._links.get).toStartWith(`http://pms/api/v1/objects/${sound._id}/content?`);
  });

  it('is dynamic when the media tells no duration', async () => {
    const t = makeTestApp();
    const clip = await uploadedObject(t, 'clip.mp4', mp4());
    t.deps.sqlite.run(`UPDATE objects SET media = json_remove(media, '$.duration') WHERE id = ?`, [clip._id]);
    const instant = instantPlayableOfObject(t.deps, mediaObject(t.deps, clip._id) as ObjectRow, 'http://pms');
    expect(instant).toMatchObject({ duration: 0, durationType: 'dynamic' });
  });
});
