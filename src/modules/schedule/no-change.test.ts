/**
 * An update that changes nothing (C: Requests; core/changes.ts): `{}` or a definition sent back as
 * read answers it as it is, for every schedule definition: `_updatedAt` stays, and so does the
 * schedule's `Last-Modified` (C: Responses, conditional reads), with no `<noun>.updated`, no
 * `schedule.changed` and no audit entry. Before, each such write moved all of them, so every client
 * read the whole schedule again after a no-op.
 */
import { describe, expect, it } from 'bun:test';
import { auditEntries } from '../../../tests/helpers/app';
import { scheduleApp } from './routes-test-support';

describe('a schedule definition updated with nothing new', () => {
  it('zones, calendars, playlists, blocks and scheduled items (both paths): 200 as they are, nothing moves', async () => {
    const t = await scheduleApp();
    const post = async (path: string, body: Record<string, unknown>) => {
      const res = await t.call('POST', path, { as: 'admin', body });
      expect({ path, status: res.status }).toEqual({ path, status: 201 });
      return res.body as { _id: number; calendarId?: number };
    };
    const zone = await post('/schedule/zones', { displayName: 'Lobby', color: '#112233' });
    const calendar = await post('/schedule/calendars', {
      displayName: 'Shows',
      closedDates: [{ from: '2026-12-24', to: '2026-12-26' }],
    });
    const playlist = await post('/playlists', {
      displayName: 'Loop',
      entries: [{ itemType: 'EVENT', itemId: t.event._id }],
    });
    const block = await post('/schedule/blocks', {
      displayName: 'Intro',
      duration: 60000,
      items: [{ type: 'EVENT', typeId: t.event._id, startTimeOffset: 0 }],
    });
    const item = await post('/schedules', {
      itemType: 'EVENT',
      itemId: t.event._id,
      calendarId: calendar._id,
      startTime: '2026-02-01T10:00:00Z',
    });
    const paths = [
      `/schedule/zones/${zone._id}`,
      `/schedule/calendars/${calendar._id}`,
      `/playlists/${playlist._id}`,
      `/schedule/blocks/${block._id}`,
      `/schedules/${item._id}`,
      `/schedule/calendars/${calendar._id}/scheduledItems/${item._id}`,
    ];
    const schedule = async () => (await t.call('GET', '/schedule', { as: 'admin' })).headers.get('last-modified');
    const lastModified = await schedule();
    expect(lastModified).not.toBeNull();
    const audits = auditEntries(t).length;
    t.events.length = 0;
    t.clock.advance(5000);
    for (const path of paths) {
      const read = (await t.call('GET', path, { as: 'admin' })).body;
      const same =
        read.itemType === undefined
          ? [read, { displayName: read.displayName }]
          : [read, { priority: read.priority, enabled: read.enabled, zoneId: read.zoneId }];
      for (const [method, body] of [['PATCH', {}], ['PUT', {}], ...same.map((b) => ['PUT', b] as const)] as const) {
        const res = await t.call(method, path, { as: 'admin', body });
        expect({ method, path, status: res.status, body: res.body }).toEqual({ method, path, status: 200, body: read });
      }
    }
    expect(t.events.map((e) => e.type)).toEqual([]);
    expect(auditEntries(t)).toHaveLength(audits);
    expect(await schedule()).toBe(lastModified);
    const renamed = await t.call('PATCH', paths[0] ?? '', {
      as: 'admin',
      body: { displayName: 'Foyer', color: '#112233' },
    });
    expect(renamed.body._updatedAt).toBe('2026-01-15T12:00:05.000Z');
    expect(t.events.filter((e) => e.type === 'zone.updated').map((e) => e.data.changed)).toEqual([['displayName']]);
  });
});
