import { describe, expect, it } from 'bun:test';
import { auditEntries, rowCount } from '../../../../tests/helpers/app';
import { scheduleApp, validation } from '../routes-test-support';

describe('exclusions and detach (§11.2, rule 18)', () => {
  const daily = (t: Awaited<ReturnType<typeof scheduleApp>>, exclusions: string[]) =>
    t.schedule({
      itemType: 'PLAYABLE',
      itemId: t.playable._id,
      startTimeLocal: '2026-01-19T08:00:00',
      endTimeLocal: '2026-01-19T09:00:00',
      recurrence: { freq: 'daily' },
      exclusions,
    });

  it('keeps exclusions on an unrelated edit and drops those off the new pattern on a recurrence change', async () => {
    const t = await scheduleApp();
    await daily(t, ['2026-01-20', '2026-01-21', '2026-01-26']);
    const unrelated = await t.call('PATCH', '/schedules/1', { as: 'admin', body: { priority: 10 } });
    expect(unrelated.body.exclusions).toEqual(['2026-01-20', '2026-01-21', '2026-01-26']);
    // Weekly on Mondays from Monday 19 January: only the 26th is still an occurrence date.
    const weekly = await t.call('PATCH', '/schedules/1', { as: 'admin', body: { recurrence: { freq: 'weekly' } } });
    expect(weekly.body.exclusions).toEqual(['2026-01-26']);
  });

  it('deleting a series keeps its detached one-offs and clears their parentId (by itself or with its calendar)', async () => {
    const t = await scheduleApp();
    const calendar = await t.call('POST', '/schedule/calendars', { as: 'operator', body: { displayName: 'Shows' } });
    for (const calendarId of [1, calendar.body._id])
      await daily(t, []).then((r) =>
        t.call('PATCH', `/schedules/${r.body._id}`, { as: 'operator', body: { calendarId } }),
      );
    const one = await t.call('POST', '/schedule/calendars/1/scheduledItems/1/detach', {
      as: 'operator',
      body: { date: '2026-01-21' },
    });
    const two = await t.call('POST', `/schedule/calendars/${calendar.body._id}/scheduledItems/2/detach`, {
      as: 'operator',
      body: { date: '2026-01-22', calendarId: 1 },
    });
    expect([one.status, two.status, one.body.parentId, two.body.parentId, two.body.calendarId]).toEqual([
      201, 201, 1, 2, 1,
    ]);
    t.events.length = 0;
    expect((await t.call('DELETE', '/schedules/1', { as: 'operator' })).status).toBe(204);
    expect(
      (await t.call('DELETE', `/schedule/calendars/${calendar.body._id}?force=true`, { as: 'operator' })).status,
    ).toBe(204);
    for (const kept of [one.body._id, two.body._id]) {
      const read = await t.call('GET', `/schedules/${kept}`, { as: 'viewer' });
      expect([read.status, read.body.parentId, read.body.startTimeLocal.slice(0, 10)]).toEqual([
        200,
        null,
        kept === one.body._id ? '2026-01-21' : '2026-01-22',
      ]);
    }
    const updates = t.events.filter((e) => e.type === 'scheduleditem.updated').map((e) => e.data);
    expect(updates).toEqual([
      { _id: one.body._id, changed: ['parentId'] },
      { _id: two.body._id, changed: ['parentId'] },
    ]);
  });

  it('detach: the occurrence becomes a one-off with parentId and its date joins exclusions', async () => {
    const t = await scheduleApp();
    await daily(t, []);
    const res = await t.call('POST', '/schedule/calendars/1/scheduledItems/1/detach', {
      as: 'admin',
      body: { date: '2026-01-21', startTimeLocal: '2026-01-21T08:30:00', endTimeLocal: '2026-01-21T09:30:00' },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe('/api/v1/schedules/2');
    expect(res.body).toMatchObject({
      _id: 2,
      parentId: 1,
      recurrence: null,
      exclusions: [],
      startTime: '2026-01-21T08:30:00.000Z',
      endTime: '2026-01-21T09:30:00.000Z',
    });
    expect((await t.call('GET', '/schedules/1', { as: 'admin' })).body.exclusions).toEqual(['2026-01-21']);
    const plain = await t.call('POST', '/schedule/calendars/1/scheduledItems/1/detach', {
      as: 'admin',
      body: { date: '2026-01-22' },
    });
    expect(plain.body).toMatchObject({ startTime: '2026-01-22T08:00:00.000Z', endTime: '2026-01-22T09:00:00.000Z' });
  });

  it('detach refuses a date that is not an occurrence (also an excluded one) and changes nothing', async () => {
    const t = await scheduleApp();
    await daily(t, ['2026-01-21']);
    for (const date of ['2026-01-18', '2026-01-21', 'soon']) {
      const res = await t.call('POST', '/schedule/calendars/1/scheduledItems/1/detach', {
        as: 'admin',
        body: { date },
      });
      expect(res.body).toEqual(validation(res, '/date', 'is not an occurrence of this item'));
    }
    expect(rowCount(t, 'scheduled_items')).toBe(1);
    const missing = await t.call('POST', '/schedule/calendars/1/scheduledItems/1/detach', { as: 'admin', body: {} });
    expect(missing.body).toEqual(validation(missing, '/date', 'is required'));
  });
});

describe('GET /schedules filters and the audit', () => {
  it('filters by itemType, itemId, zoneId and enabled; writes by a token are audited', async () => {
    const t = await scheduleApp();
    await t.schedule({ itemType: 'EVENT', itemId: t.event._id, startTime: '2026-01-16T10:00:00Z', enabled: false });
    await t.schedule({
      itemType: 'PLAYABLE',
      itemId: t.playable._id,
      startTime: '2026-01-16T10:00:00Z',
      endTime: '2026-01-16T11:00:00Z',
    });
    const ids = async (query: Record<string, string>) =>
      (await t.call('GET', '/schedules', { as: 'viewer', query })).body.map((i: { _id: number }) => i._id);
    expect(await ids({ itemType: 'PLAYABLE' })).toEqual([2]);
    expect(await ids({ itemId: String(t.event._id), itemType: 'EVENT' })).toEqual([1]);
    expect(await ids({ enabled: 'false' })).toEqual([1]);
    expect(await ids({ zoneId: '1' })).toEqual([1, 2]);
    expect(await ids({ zoneId: '2' })).toEqual([]);
    const bad = await t.call('GET', '/schedules', { as: 'viewer', query: { enabled: 'maybe' } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('bad_request');
    const fields =
      'calendarId, itemType, itemId, zoneId, displayName, description, startTime, endTime, recurrence, exclusions, priority, enabled, catchUp, subsystemExternalId, externalRef, targetMissing, parentId';
    expect(auditEntries(t).filter((a) => a.key.startsWith('scheduleditem.'))).toEqual([
      { key: 'scheduleditem.created', value: `scheduleditem 1 (cue-1) created: ${fields}`, createdBy: 'test admin' },
      { key: 'scheduleditem.created', value: `scheduleditem 2 (Show) created: ${fields}`, createdBy: 'test admin' },
    ]);
  });

  it('refuses a bad byDay token of a recurrence', async () => {
    const t = await scheduleApp();
    const res = await t.schedule({
      itemType: 'EVENT',
      itemId: t.event._id,
      startTime: '2026-01-16T10:00:00Z',
      recurrence: { freq: 'weekly', byDay: ['XX'] },
    });
    expect(res.body).toEqual(
      validation(res, '/recurrence/byDay/0', 'must be MO…SU, with an ordinal for monthly (1MO, -1FR)'),
    );
  });
});
