import { describe, expect, it } from 'bun:test';
import { dailyShow, scheduleApp } from '../routes-test-support';

const since = (value: string | null) => ({ as: 'admin' as const, headers: { 'if-modified-since': value ?? '' } });

describe('GET /schedule/resolve as a list (C: Responses)', () => {
  it('sends X-Total-Count of the zones, pages them with limit/offset and links the next page when cut', async () => {
    const t = await scheduleApp();
    for (const displayName of ['Lobby', 'Foyer', 'Bar']) {
      expect((await t.call('POST', '/zones', { as: 'admin', body: { displayName } })).status).toBe(201);
    }
    const all = await t.call('GET', '/schedule/resolve', { as: 'admin' });
    expect(all.body.map((z: { zoneId: number }) => z.zoneId)).toEqual([1, 2, 3, 4]);
    expect(all.headers.get('x-total-count')).toBe('4');
    expect(all.headers.get('link')).toBeNull();
    const cut = await t.call('GET', '/schedule/resolve', { as: 'admin', query: { limit: 2, offset: 1 } });
    expect(cut.body.map((z: { zoneId: number }) => z.zoneId)).toEqual([2, 3]);
    expect(cut.headers.get('x-total-count')).toBe('4');
    expect(cut.headers.get('link')).toBe('</api/v1/schedule/resolve?limit=2&offset=3>; rel="next"');
    const one = await t.call('GET', '/schedule/resolve', { as: 'admin', query: { zoneId: '3' } });
    expect(one.headers.get('x-total-count')).toBe('1');
  });
});

describe('GET /schedule/resolve conditional reads (C: Responses)', () => {
  it('answers If-Modified-Since of its own Last-Modified with an empty 304 until the schedule changes', async () => {
    const t = await scheduleApp();
    await dailyShow(t);
    t.clock.advance(10_000);
    const at = { at: '2026-01-15T13:30:00Z' };
    const first = await t.call('GET', '/schedule/resolve', { as: 'admin', query: at });
    expect(first.status).toBe(200);
    const lastModified = first.headers.get('last-modified');
    expect(lastModified).toBe('Thu, 15 Jan 2026 12:00:00 GMT');
    const again = await t.call('GET', '/schedule/resolve', { ...since(lastModified), query: at });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('last-modified')).toBe(lastModified);
    expect(again.headers.get('x-request-id')).toBeTruthy();
    const older = await t.call('GET', '/schedule/resolve', { ...since('Thu, 15 Jan 2026 11:59:59 GMT'), query: at });
    expect(older.status).toBe(200);
    await t.call('PATCH', '/schedules/1', { as: 'admin', body: { priority: 60 } });
    const changed = await t.call('GET', '/schedule/resolve', { ...since(lastModified), query: at });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('last-modified')).toBe('Thu, 15 Jan 2026 12:00:10 GMT');
    expect(changed.body[0].winner.priority).toBe(60);
  });

  it('without `at`, moves Last-Modified to the last start or end of a segment, so a copy from before it is stale', async () => {
    const t = await scheduleApp();
    await dailyShow(t);
    t.clock.setWall('2026-01-15T13:30:00Z');
    const running = await t.call('GET', '/schedule/resolve', { as: 'admin' });
    expect(running.headers.get('last-modified')).toBe('Thu, 15 Jan 2026 13:00:00 GMT');
    expect(running.body[0].winner.scheduledItemId).toBe(1);
    t.clock.setWall('2026-01-15T13:50:00Z');
    const still = await t.call('GET', '/schedule/resolve', since(running.headers.get('last-modified')));
    expect(still.status).toBe(304);
    t.clock.setWall('2026-01-15T14:00:05Z');
    const ended = await t.call('GET', '/schedule/resolve', since(running.headers.get('last-modified')));
    expect(ended.status).toBe(200);
    expect(ended.headers.get('last-modified')).toBe('Thu, 15 Jan 2026 14:00:00 GMT');
    expect(ended.body[0].winner).toBeNull();
  });
});
