import { describe, expect, it } from 'bun:test';
import { auditEntries, makeTestApp, recordEvents, rowCount } from '../../../../tests/helpers/app';
import { errorBody, scheduleApp, validation } from '../routes-test-support';

describe('zones (§11.1)', () => {
  it('zone 1 "Main" exists from the first start and is built in', async () => {
    const t = makeTestApp();
    const res = await t.call('GET', '/zones', { as: 'viewer' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total-count')).toBe('1');
    expect(res.body).toEqual([
      {
        _id: 1,
        _createdAt: '2026-01-15T12:00:00.000Z',
        _updatedAt: '2026-01-15T12:00:00.000Z',
        _links: { self: '/api/v1/zones/1' },
        displayName: 'Main',
        description: '',
        members: [],
        color: '#1F77B4',
        builtIn: true,
      },
    ]);
  });

  it('creates with a palette colour and members by _id or externalId, under both paths', async () => {
    const t = await scheduleApp();
    const res = await t.call('POST', '/schedule/zones', {
      as: 'operator',
      body: { displayName: ' Lobby ', members: ['media', t.media._id], _id: 99 },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe('/api/v1/zones/2');
    expect(res.body).toMatchObject({
      _id: 2,
      displayName: 'Lobby',
      members: [t.media._id],
      color: '#FF7F0E',
      builtIn: false,
    });
    expect((await t.call('GET', '/zones/2', { as: 'viewer' })).body).toEqual(res.body);
    expect((await t.call('GET', '/schedule/zones/2', { as: 'viewer' })).body).toEqual(res.body);
    expect(t.events.filter((e) => e.type === 'zone.created').map((e) => e.data._id)).toEqual([2]);
    expect(t.events.filter((e) => e.type === 'schedule.changed').map((e) => e.data)).toEqual([
      { changedAt: '2026-01-15T12:00:00.000Z', kinds: ['zones'] },
    ]);
    expect(auditEntries(t).map((a) => a.key)).toContain('zone.created');
  });

  it('updates by PUT and PATCH under both paths', async () => {
    const t = await scheduleApp();
    await t.call('POST', '/zones', { as: 'admin', body: { displayName: 'Lobby' } });
    const put = await t.call('PUT', '/zones/2', { as: 'admin', body: { color: '#abcdef', builtIn: true } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ color: '#ABCDEF', displayName: 'Lobby', builtIn: false });
    const patch = await t.call('PATCH', '/schedule/zones/2', { as: 'admin', body: { description: 'front' } });
    expect(patch.body).toMatchObject({ color: '#ABCDEF', description: 'front' });
  });

  it('refuses bad input with the one error body and changes nothing', async () => {
    const t = await scheduleApp();
    const color = await t.call('POST', '/zones', { as: 'admin', body: { displayName: 'A', color: 'red' } });
    expect(color.body).toEqual(validation(color, '/color', 'must be a colour #RRGGBB'));
    const member = await t.call('POST', '/zones', { as: 'admin', body: { displayName: 'A', members: [1, 'ghost'] } });
    expect(member.body).toEqual(validation(member, '/members/1', 'names no subsystem or player'));
    const blank = await t.call('POST', '/zones', { as: 'admin', body: { displayName: '  ' } });
    expect(blank.body).toEqual(validation(blank, '/displayName', 'must not be blank'));
    const missing = await t.call('POST', '/zones', { as: 'admin', body: {} });
    expect(missing.body).toEqual(validation(missing, '/displayName', 'is required'));
    const taken = await t.call('POST', '/zones', { as: 'admin', body: { displayName: 'Main' } });
    expect(taken.body).toEqual(errorBody(taken, 409, 'conflict', 'a zone with this displayName already exists'));
    expect(rowCount(t, 'schedule_zones')).toBe(1);
    const unknown = await t.call('GET', '/zones/7', { as: 'admin' });
    expect(unknown.body).toEqual(errorBody(unknown, 404, 'not_found', 'zone 7 not found'));
  });

  it('zone 1 cannot be deleted; a zone with items needs moveTo, which moves them', async () => {
    const t = await scheduleApp();
    const builtIn = await t.call('DELETE', '/schedule/zones/1', { as: 'admin' });
    expect(builtIn.body).toEqual(errorBody(builtIn, 409, 'conflict', 'zone 1 is built in and cannot be deleted'));
    await t.call('POST', '/zones', { as: 'admin', body: { displayName: 'Lobby' } });
    const item = await t.schedule({
      itemType: 'EVENT',
      itemId: t.event._id,
      zoneId: 2,
      startTime: '2026-01-16T10:00:00Z',
    });
    expect(item.status).toBe(201);
    const used = await t.call('DELETE', '/zones/2', { as: 'admin' });
    expect(used.body).toEqual(
      errorBody(used, 409, 'conflict', 'zone 2 still has 1 scheduled item(s) and 0 block(s); use moveTo'),
    );
    const badMove = await t.call('DELETE', '/zones/2', { as: 'admin', query: { moveTo: 2 } });
    expect(badMove.body).toEqual(
      errorBody(badMove, 400, 'bad_request', 'moveTo must name another existing zone', [
        { path: '/moveTo', message: 'must name another existing zone' },
      ]),
    );
    const moved = await t.call('DELETE', '/zones/2', { as: 'admin', query: { moveTo: 1 } });
    expect(moved.status).toBe(204);
    expect(moved.text).toBe('');
    expect((await t.call('GET', `/schedules/${item.body._id}`, { as: 'admin' })).body.zoneId).toBe(1);
    expect(rowCount(t, 'schedule_zones')).toBe(1);
  });

  it('a zone without items is deleted outright', async () => {
    const t = makeTestApp();
    const events = recordEvents(t, (e) => e.type === 'zone.deleted');
    await t.call('POST', '/zones', { as: 'admin', body: { displayName: 'Lobby' } });
    expect((await t.call('DELETE', '/zones/2', { as: 'admin' })).status).toBe(204);
    expect(events.map((e) => e.data)).toEqual([{ _id: 2, changed: [] }]);
  });

  it('a deleted member subsystem leaves the zone', async () => {
    const t = await scheduleApp();
    await t.call('POST', '/zones', { as: 'admin', body: { displayName: 'Lobby', members: ['media'] } });
    expect((await t.call('DELETE', '/subsystems/media', { as: 'admin' })).status).toBe(204);
    expect((await t.call('GET', '/zones/2', { as: 'admin' })).body.members).toEqual([]);
    expect(t.events.filter((e) => e.type === 'zone.updated').map((e) => e.data)).toEqual([
      { _id: 2, changed: ['members'] },
    ]);
  });
});
