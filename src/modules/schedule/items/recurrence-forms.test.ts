/**
 * §11.2 writes `byDay` as "`MO`…`SU`" and `byMonthDay` as "1–31 or -1 (last day)": one value is taken
 * as well as a list (model.ts), and read back as the list.
 */
import { describe, expect, it } from 'bun:test';
import { scheduleApp, validation } from '../routes-test-support';

describe('recurrence byDay and byMonthDay sent as one value', () => {
  it('"byMonthDay": -1 is the last day of every month, February of a leap year too', async () => {
    const t = await scheduleApp('2028-01-01T00:00:00.000Z');
    const res = await t.schedule({
      itemType: 'EVENT',
      itemId: t.event._id,
      startTimeLocal: '2028-01-31T10:00:00',
      recurrence: { freq: 'monthly', byMonthDay: -1 },
    });
    expect(res.status).toBe(201);
    expect(res.body.recurrence).toMatchObject({ byMonthDay: [-1] });
    const doc = await t.call('GET', '/schedule', { as: 'viewer', query: { from: '2028-01-01', to: '2028-05-01' } });
    expect(doc.body.values.map((v: { startTimeLocal: string }) => v.startTimeLocal.slice(0, 10))).toEqual([
      '2028-01-31',
      '2028-02-29',
      '2028-03-31',
      '2028-04-30',
    ]);
  });

  it('"byDay": "MO" and "mo, we" are lists; a bad day is a 400 at its place in the list', async () => {
    const t = await scheduleApp('2026-01-12T00:00:00.000Z');
    const weekly = (byDay: unknown) =>
      t.schedule({
        itemType: 'EVENT',
        itemId: t.event._id,
        startTimeLocal: '2026-01-12T10:00:00',
        recurrence: { freq: 'weekly', byDay },
      });
    const one = await weekly('MO');
    expect(one.status).toBe(201);
    expect(one.body.recurrence.byDay).toEqual(['MO']);
    const two = await weekly('mo, we');
    expect(two.status).toBe(201);
    expect(two.body.recurrence.byDay).toEqual(['MO', 'WE']);
    const bad = await weekly('MO,XX');
    expect(bad.body).toEqual(
      validation(bad, '/recurrence/byDay/1', 'must be MO…SU, with an ordinal for monthly (1MO, -1FR)'),
    );
    const read = await t.call('PUT', `/schedules/${two.body._id}`, { as: 'operator', body: two.body });
    expect(read.status).toBe(200);
    expect(read.body.recurrence.byDay).toEqual(['MO', 'WE']);
  });
});
