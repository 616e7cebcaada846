import { describe, expect, it } from 'bun:test';
import { rowCount } from '../../../tests/helpers/app';
import { uploadedObject } from '../objects/test-support';
import { addRange } from './copy-progress';
import { bytesOf, copyApp } from './copy-test-support';

describe('downloads attributed to a player (§12 rule 6, §14 rule 4)', () => {
  it('counts full downloads named by ?player= or x-player-id: copying, then complete with every object', async () => {
    const t = await copyApp();
    await t.copy();
    const first = await t.download(t.clip._id, { query: { player: 's1' } });
    expect(first.status).toBe(200);
    expect(first.bytes).toEqual(bytesOf(1000));
    expect(await t.entry('s1')).toMatchObject({ state: 'copying', bytesDone: 1000, bytesTotal: 1200 });
    expect((await t.status()).state).toBe('copying');
    await t.download(t.still._id, { headers: { 'x-player-id': String(t.s1) } });
    expect(await t.entry('s1')).toMatchObject({ state: 'complete', bytesDone: 1200, error: null });
    await t.download(t.clip._id, { query: { player: 's2' } });
    await t.download(t.still._id, { query: { player: 's2' } });
    expect(await t.status()).toMatchObject({ state: 'complete', complete: 2, bytesDone: 2400, bytesTotal: 2400 });
    expect(t.events.map((e) => e.data.state)).toEqual(['pending', 'copying', 'copying', 'copying', 'complete']);
  });

  it('counts ranges until they cover the content; overlaps count once', async () => {
    const t = await copyApp();
    await t.copy({ playerIds: ['s1'] });
    await t.download(t.still._id, { query: { player: 's1' } });
    for (const range of ['bytes=0-299', 'bytes=200-599', 'bytes=-100']) {
      const res = await t.download(t.clip._id, { query: { player: 's1' }, headers: { range } });
      expect(res.status).toBe(206);
    }
    // 0–599 and 900–999 of the clip, and the whole still.
    expect(await t.entry('s1')).toMatchObject({ state: 'copying', bytesDone: 900 });
    await t.download(t.clip._id, { query: { player: 's1' }, headers: { range: 'bytes=600-899' } });
    expect(await t.entry('s1')).toMatchObject({ state: 'complete', bytesDone: 1200 });
  });

  it('records only what a client that leaves midway was sent', async () => {
    const t = await copyApp();
    const big = await uploadedObject(t, 'big.bin', bytesOf(3 * 1024 * 1024));
    const show = await t.call('POST', '/playables', {
      as: 'admin',
      body: { subsystemExternalId: 'wall', externalRef: 'big', objects: [big._id], copyToPlayer: true },
    });
    const res = await t.app.handle(
      new Request(`http://localhost/api/v1/objects/${big._id}/content?player=s1`, {
        headers: { authorization: `Bearer ${t.tokenFor('viewer')}` },
      }),
    );
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const head = await reader.read();
    const second = await reader.read();
    await reader.cancel();
    await t.settle();
    // The first chunk was taken (the client asked for more); the second may never have left.
    const taken = head.value?.byteLength ?? 0;
    expect(taken).toBeGreaterThan(0);
    expect(second.done).toBe(false);
    const entry = (await t.status(show.body._id)).players.find((p: { externalId: string }) => p.externalId === 's1');
    expect(entry).toMatchObject({ state: 'copying', bytesDone: taken, bytesTotal: 3 * 1024 * 1024 });
  });

  it('serves a download naming no player (or a subsystem) as usual and attributes nothing', async () => {
    const t = await copyApp();
    await t.copy();
    for (const player of ['nobody', 'wall', '999']) {
      const res = await t.download(t.clip._id, { query: { player } });
      expect(res.status).toBe(200);
      expect(res.bytes.byteLength).toBe(1000);
    }
    await t.download(t.clip._id);
    expect(rowCount(t, 'copy_received')).toBe(0);
    expect((await t.status()).state).toBe('pending');
    // A 304 sends nothing, so counts nothing.
    const etag = (await t.call('GET', `/objects/${t.clip._id}`, { as: 'admin' })).body.sha256;
    const cached = await t.download(t.clip._id, { query: { player: 's1' }, headers: { 'if-none-match': `"${etag}"` } });
    expect(cached.status).toBe(304);
    expect(rowCount(t, 'copy_received')).toBe(0);
  });

  it('a player that reported complete stays complete whatever it downloads', async () => {
    const t = await copyApp();
    await t.copy();
    await t.report('s1', { state: 'complete' });
    await t.download(t.clip._id, { query: { player: 's1' }, headers: { range: 'bytes=0-9' } });
    expect(await t.entry('s1')).toMatchObject({ state: 'complete', bytesDone: 1200 });
  });
});

describe('fetching again what a player had received', () => {
  it('a copy requested again counts the downloads that follow, not what the player had fetched before', async () => {
    const t = await copyApp();
    await t.copy({ playerIds: ['s1'] });
    await t.download(t.clip._id, { query: { player: 's1' } });
    await t.download(t.still._id, { query: { player: 's1' } });
    expect(await t.entry('s1')).toMatchObject({ state: 'complete', bytesDone: 1200 });
    // Its storage was wiped: the operator asks for the copy again, the player fetches everything again.
    expect((await t.copy({ playerIds: ['s1'] })).status).toBe(202);
    expect(await t.entry('s1')).toMatchObject({ state: 'pending', bytesDone: 0, bytesTotal: 1200 });
    await t.download(t.clip._id, { query: { player: 's1' } });
    expect(await t.entry('s1')).toMatchObject({ state: 'copying', bytesDone: 1000 });
    await t.download(t.still._id, { query: { player: 's1' } });
    expect(await t.entry('s1')).toMatchObject({ state: 'complete', bytesDone: 1200 });
  });

  it('a second playable naming media the player already fetched completes when it fetches it again', async () => {
    const t = await copyApp();
    await t.copy({ playerIds: ['s1'] });
    await t.download(t.clip._id, { query: { player: 's1' } });
    const again = await t.call('POST', '/playables', {
      as: 'admin',
      body: { subsystemExternalId: 'wall', externalRef: 'again', type: 'media', objects: [t.clip._id] },
    });
    expect((await t.copy({ playerIds: ['s1'] }, again.body._id)).status).toBe(202);
    await t.download(t.clip._id, { query: { player: 's1' } });
    const players = (await t.status(again.body._id)).players;
    expect(players).toEqual([expect.objectContaining({ externalId: 's1', state: 'complete', bytesDone: 1000 })]);
  });

  it('a copy its player reported failed completes when the player fetches the same content again', async () => {
    const t = await copyApp();
    await t.copy({ playerIds: ['s1'] });
    await t.download(t.clip._id, { query: { player: 's1' } });
    await t.download(t.still._id, { query: { player: 's1' } });
    expect((await t.report('s1', { state: 'failed', error: 'disk error' })).status).toBe(200);
    expect(await t.entry('s1')).toMatchObject({ state: 'failed', error: 'disk error' });
    await t.download(t.still._id, { query: { player: 's1' } });
    expect(await t.entry('s1')).toMatchObject({ state: 'complete', bytesDone: 1200, error: null });
  });
});

describe('replaced content (§14 rule 5, §12 rule 4)', () => {
  it('with autoSync restarts copying: every target pending, the new bytes count', async () => {
    const t = await copyApp();
    await t.call('PATCH', `/playables/${t.playable._id}`, { as: 'admin', body: { autoSync: true } });
    await t.copy();
    for (const id of [t.clip._id, t.still._id]) await t.download(id, { query: { player: 's1' } });
    expect(await t.entry('s1')).toMatchObject({ state: 'complete' });
    expect((await t.replace(t.still._id, bytesOf(300, 9))).status).toBe(200);
    expect(await t.status()).toMatchObject({ state: 'pending', bytesTotal: 2600, bytesDone: 0, pending: 2 });
    // The clip did not change: only the new still is missing.
    await t.download(t.still._id, { query: { player: 's1' } });
    expect(await t.entry('s1')).toMatchObject({ state: 'complete', bytesDone: 1300, bytesTotal: 1300 });
  });

  it('without autoSync turns the summary partial: complete players are failed with "content replaced"', async () => {
    const t = await copyApp();
    await t.copy();
    for (const id of [t.clip._id, t.still._id]) await t.download(id, { query: { player: 's1' } });
    await t.report('s2', { state: 'failed', error: 'no space' });
    expect((await t.replace(t.clip._id, bytesOf(1000, 5))).status).toBe(200);
    expect(await t.status()).toMatchObject({
      state: 'partial',
      complete: 0,
      failed: 2,
      players: [
        { externalId: 's1', state: 'failed', error: 'content replaced', bytesDone: 200, bytesTotal: 1200 },
        { externalId: 's2', state: 'failed', error: 'no space' },
      ],
    });
    expect(t.events.at(-1)?.data.state).toBe('partial');
    // Bytes of the old version count for nothing; the new version, once received, completes it again.
    await t.download(t.clip._id, { query: { player: 's1' } });
    expect(await t.entry('s1')).toMatchObject({ state: 'complete', error: null, bytesDone: 1200 });
  });

  it('a download that began before the replacement counts for the old version only', async () => {
    const t = await copyApp();
    await t.copy({ playerIds: ['s1'] });
    const res = await t.app.handle(
      new Request(`http://localhost/api/v1/objects/${t.clip._id}/content?player=s1`, {
        headers: { authorization: `Bearer ${t.tokenFor('viewer')}` },
      }),
    );
    await t.replace(t.clip._id, bytesOf(1000, 6));
    expect((await res.arrayBuffer()).byteLength).toBe(1000);
    await t.settle();
    expect(await t.entry('s1')).toMatchObject({ state: 'pending', bytesDone: 0 });
  });
});

describe('what there is to copy changes (§14 rule 4)', () => {
  it('an object first uploaded adds to the bytes to copy; one sent to the trash no longer holds a copy back', async () => {
    const t = await copyApp();
    const later = await t.call('POST', '/objects/cms-media', { as: 'admin', body: { name: 'later.bin' } });
    await t.call('PATCH', `/playables/${t.playable._id}`, {
      as: 'admin',
      body: { objects: [t.clip._id, t.still._id, later.body._id] },
    });
    await t.copy({ playerIds: ['s1'] });
    for (const id of [t.clip._id, t.still._id]) await t.download(id, { query: { player: 's1' } });
    // Everything with content arrived, but the copy waits for the object still without any.
    expect(await t.entry('s1')).toMatchObject({ state: 'copying', bytesDone: 1200, bytesTotal: 1200 });
    await t.replace(later.body._id, bytesOf(50, 4));
    expect(await t.entry('s1')).toMatchObject({ state: 'copying', bytesDone: 1200, bytesTotal: 1250 });
    const trashed = await t.call('DELETE', `/objects/${later.body._id}`, { as: 'admin', query: { force: 'true' } });
    expect(trashed.status).toBe(204);
    expect(await t.entry('s1')).toMatchObject({ state: 'complete', bytesDone: 1200, bytesTotal: 1200 });
  });
});

describe('addRange', () => {
  it('merges overlapping and touching ranges and keeps the rest apart, in order', () => {
    expect(addRange([], 5, 10)).toEqual([[5, 10]]);
    expect(addRange([[5, 10]], 10, 12)).toEqual([[5, 12]]);
    expect(addRange([[5, 10]], 0, 3)).toEqual([
      [0, 3],
      [5, 10],
    ]);
    expect(
      addRange(
        [
          [0, 3],
          [5, 10],
          [20, 30],
        ],
        2,
        21,
      ),
    ).toEqual([[0, 30]]);
    expect(addRange([[0, 3]], 7, 7)).toEqual([[0, 3]]);
  });
});
