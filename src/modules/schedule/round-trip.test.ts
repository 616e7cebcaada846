/**
 * GET then PUT of the same body (C: Requests) for schedule definitions that point at something deleted
 * since: a playlist entry, a block item or a scheduled item whose event or playable is gone reads back
 * `missing` / `targetMissing`, and sending that body back unchanged is accepted and changes nothing.
 * A reference the body newly adds must still exist (400 as before).
 */
import { describe, expect, it } from 'bun:test';
import { scheduleApp, validation } from './routes-test-support';

type App = Awaited<ReturnType<typeof scheduleApp>>;

async function putBack(t: App, path: string) {
  const before = await t.call('GET', path, { as: 'admin' });
  expect(before.status).toBe(200);
  const put = await t.call('PUT', path, { as: 'admin', body: before.body });
  expect({ status: put.status, body: put.body }).toEqual({ status: 200, body: before.body });
  return before.body;
}

async function made(t: App, path: string, body: Record<string, unknown>) {
  const res = await t.call('POST', path, { as: 'admin', body });
  expect({ status: res.status, error: res.status === 201 ? null : res.body }).toEqual({ status: 201, error: null });
  return res.body as { _id: number };
}

const gone = async (t: App, path: string) => expect((await t.call('DELETE', path, { as: 'admin' })).status).toBe(204);

describe('a schedule definition whose target was deleted, read and sent back', () => {
  it('a playlist holding a deleted playable and a deleted event is accepted unchanged', async () => {
    const t = await scheduleApp();
    const list = await made(t, '/playlists', {
      displayName: 'Loop',
      entries: [
        { itemType: 'PLAYABLE', itemId: t.playable._id },
        { itemType: 'EVENT', itemId: t.event._id },
      ],
    });
    await gone(t, `/playables/${t.playable._id}`);
    await gone(t, `/events/${t.event._id}`);
    const body = await putBack(t, `/playlists/${list._id}`);
    expect(body.entries.map((e: { missing: boolean }) => e.missing)).toEqual([true, true]);
  });

  it('a deleted target cannot be added anew', async () => {
    const t = await scheduleApp();
    const list = await made(t, '/playlists', {
      displayName: 'Loop',
      entries: [{ itemType: 'EVENT', itemId: t.event._id }],
    });
    await gone(t, `/playables/${t.playable._id}`);
    const entries = [
      { itemType: 'EVENT', itemId: t.event._id },
      { itemType: 'PLAYABLE', itemId: t.playable._id },
    ];
    const res = await t.call('PUT', `/playlists/${list._id}`, { as: 'admin', body: { entries } });
    expect(res.body).toEqual(validation(res, '/entries/1/itemId', 'names no playable'));
  });

  it('a block holding a deleted event is accepted unchanged', async () => {
    const t = await scheduleApp();
    const block = await made(t, '/schedule/blocks', {
      displayName: 'Intro',
      duration: 60000,
      items: [{ type: 'EVENT', typeId: t.event._id, startTimeOffset: 0 }],
    });
    await gone(t, `/events/${t.event._id}`);
    await putBack(t, `/schedule/blocks/${block._id}`);
  });

  it('a scheduled item whose playable was deleted is accepted unchanged', async () => {
    const t = await scheduleApp();
    const item = await made(t, '/schedules', {
      itemType: 'PLAYABLE',
      itemId: t.playable._id,
      startTime: '2026-02-01T10:00:00Z',
      endTime: '2026-02-01T11:00:00Z',
    });
    await gone(t, `/playables/${t.playable._id}`);
    const body = await putBack(t, `/schedules/${item._id}`);
    expect(body.targetMissing).toBe(true);
  });
});
