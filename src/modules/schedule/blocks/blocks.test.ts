import { describe, expect, it } from 'bun:test';
import { rowCount } from '../../../../tests/helpers/app';
import { errorBody, scheduleApp, validation } from '../routes-test-support';

type App = Awaited<ReturnType<typeof scheduleApp>>;
const block = (t: App, body: Record<string, unknown>) => t.call('POST', '/schedule/blocks', { as: 'admin', body });

describe('blocks (§11.4)', () => {
  it('creates and reads with zone name and per-item name, duration and link', async () => {
    const t = await scheduleApp();
    const res = await block(t, {
      displayName: 'Opening',
      duration: 600000,
      items: [
        { type: 'EVENT', typeId: t.event._id, startTimeOffset: 0 },
        { type: 'PLAYABLE', typeId: t.playable._id, startTimeOffset: 1000, endTimeOffset: 61000 },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe('/api/v1/schedule/blocks/1');
    expect(res.body).toEqual({
      _id: 1,
      _createdAt: '2026-01-15T12:00:00.000Z',
      _updatedAt: '2026-01-15T12:00:00.000Z',
      _links: { self: '/api/v1/schedule/blocks/1' },
      displayName: 'Opening',
      description: '',
      duration: 600000,
      zoneId: 1,
      zone: 'Main',
      items: [
        {
          type: 'EVENT',
          typeId: t.event._id,
          startTimeOffset: 0,
          endTimeOffset: null,
          displayName: t.event.displayName,
          duration: 0,
          _links: { self: `/api/v1/events/${t.event._id}` },
        },
        {
          type: 'PLAYABLE',
          typeId: t.playable._id,
          startTimeOffset: 1000,
          endTimeOffset: 61000,
          displayName: 'Show',
          duration: 60000,
          _links: { self: `/api/v1/playables/${t.playable._id}` },
        },
      ],
    });
    expect((await t.call('GET', '/schedule/blocks', { as: 'viewer' })).body).toEqual([res.body]);
    const put = await t.call('PUT', '/schedule/blocks/1', { as: 'admin', body: { ...res.body, description: 'x' } });
    expect(put.body).toMatchObject({ description: 'x', items: res.body.items });
  });

  it('a scheduled BLOCK item without an end lasts the block', async () => {
    const t = await scheduleApp();
    await block(t, { displayName: 'B', duration: 600000 });
    const item = await t.schedule({ itemType: 'BLOCK', itemId: 1, startTime: '2026-01-16T10:00:00Z' });
    expect(item.body).toMatchObject({ endTime: '2026-01-16T10:10:00.000Z', duration: 600000, displayName: 'B' });
  });

  it('refuses bad input', async () => {
    const t = await scheduleApp();
    await block(t, { displayName: 'Inner', duration: 1000 });
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ displayName: 'A', duration: 0 }, '/duration', 'must be greater than 0'],
      [{ displayName: 'A' }, '/duration', 'is required'],
      [{ displayName: 'A', duration: 10, zoneId: 9 }, '/zoneId', 'names no zone'],
      [
        { displayName: 'A', duration: 10, items: [{ type: 'EVENT', typeId: 99, startTimeOffset: 0 }] },
        '/items/0/typeId',
        'names no event',
      ],
      [
        { displayName: 'A', duration: 10, items: [{ type: 'PLAYABLE', typeId: t.playable._id, startTimeOffset: 0 }] },
        '/items/0/endTimeOffset',
        'is required',
      ],
      [
        {
          displayName: 'A',
          duration: 10,
          items: [{ type: 'PLAYABLE', typeId: t.playable._id, startTimeOffset: 5, endTimeOffset: 5 }],
        },
        '/items/0/endTimeOffset',
        'must be after startTimeOffset',
      ],
      [
        {
          displayName: 'A',
          duration: 10,
          items: [{ type: 'PLAYABLE', typeId: t.playable._id, startTimeOffset: 0, endTimeOffset: 11 }],
        },
        '/items/0/endTimeOffset',
        "must be at most the block's duration",
      ],
      [
        { displayName: 'A', duration: 10, items: [{ type: 'EVENT', typeId: t.event._id, startTimeOffset: 11 }] },
        '/items/0/startTimeOffset',
        "must not be after the block's duration",
      ],
      [
        {
          displayName: 'A',
          duration: 10,
          items: [{ type: 'PLAYABLE', typeId: t.template._id, startTimeOffset: 0, endTimeOffset: 5 }],
        },
        '/items/0/typeId',
        'names a template playable, which cannot be scheduled',
      ],
    ];
    for (const [body, path, message] of cases) {
      const res = await block(t, body);
      expect({ body, answer: res.body }).toEqual({ body, answer: validation(res, path, message) });
    }
    const many = await block(t, {
      displayName: 'A',
      duration: 10,
      items: Array(501).fill({ type: 'EVENT', typeId: t.event._id, startTimeOffset: 0 }),
    });
    expect(many.body).toEqual(validation(many, '/items', 'must have at most 500 entries'));
    expect(rowCount(t, 'schedule_blocks')).toBe(1);
  });

  it('refuses a cycle and nesting deeper than 5', async () => {
    const t = await scheduleApp();
    await block(t, { displayName: 'B1', duration: 1000 });
    for (let i = 2; i <= 5; i++) {
      const res = await block(t, {
        displayName: `B${i}`,
        duration: 1000,
        items: [{ type: 'BLOCK', typeId: i - 1, startTimeOffset: 0, endTimeOffset: 1000 }],
      });
      expect(res.status).toBe(201);
    }
    const deep = await block(t, {
      displayName: 'B6',
      duration: 1000,
      items: [{ type: 'BLOCK', typeId: 5, startTimeOffset: 0, endTimeOffset: 1000 }],
    });
    expect(deep.body).toEqual(validation(deep, '/items', 'nests blocks more than 5 deep'));
    const cycle = await t.call('PATCH', '/schedule/blocks/1', {
      as: 'admin',
      body: { items: [{ type: 'BLOCK', typeId: 3, startTimeOffset: 0, endTimeOffset: 1000 }] },
    });
    expect(cycle.body).toEqual(validation(cycle, '/items', 'would make the block contain itself'));
    const self = await t.call('PATCH', '/schedule/blocks/1', {
      as: 'admin',
      body: { items: [{ type: 'BLOCK', typeId: 1, startTimeOffset: 0, endTimeOffset: 1000 }] },
    });
    expect(self.body).toEqual(validation(self, '/items', 'would make the block contain itself'));
  });

  it('delete: 409 while placed or nested, force removes those; 404 after', async () => {
    const t = await scheduleApp();
    await block(t, { displayName: 'Inner', duration: 1000 });
    await block(t, {
      displayName: 'Outer',
      duration: 1000,
      items: [{ type: 'BLOCK', typeId: 1, startTimeOffset: 0, endTimeOffset: 1000 }],
    });
    await t.schedule({ itemType: 'BLOCK', itemId: 1, startTime: '2026-01-16T10:00:00Z' });
    const used = await t.call('DELETE', '/schedule/blocks/1', { as: 'admin' });
    expect(used.body).toEqual(
      errorBody(used, 409, 'conflict', 'block 1 is used by 1 scheduled item(s) and 1 block(s); use force=true'),
    );
    expect((await t.call('DELETE', '/schedule/blocks/1', { as: 'admin', query: { force: 'true' } })).status).toBe(204);
    expect(rowCount(t, 'scheduled_items')).toBe(0);
    expect((await t.call('GET', '/schedule/blocks/2', { as: 'admin' })).body.items).toEqual([]);
    const gone = await t.call('GET', '/schedule/blocks/1', { as: 'admin' });
    expect(gone.body).toEqual(errorBody(gone, 404, 'not_found', 'block 1 not found'));
  });
});
