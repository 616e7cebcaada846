/**
 * The order a WebSocket client receives a cascade in (§0.4, §21): the cause first, then what it
 * caused. A client that re-reads on `scheduleditem.updated` must no longer find the event whose delete
 * caused it, so `event.deleted` has to be on the wire before it.
 */
import { describe, expect, it } from 'bun:test';
import { type ServedApp, servedPerTest, type WsTestClient } from './ws-test-support';

const apps = servedPerTest();

async function must(s: ServedApp, method: string, path: string, body?: unknown): Promise<{ _id: number }> {
  const res = await s.call(method, path, { as: 'admin', ...(body === undefined ? {} : { body }) });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
}

/** A venue with an event, a variable watched by an alert rule and an item scheduling the event. */
async function venue(s: ServedApp): Promise<{ event: number; variable: number; rule: number; item: number }> {
  await must(s, 'POST', '/subsystems', { externalId: 'media', displayName: 'Media' });
  const event = (
    await must(s, 'POST', '/events', { subsystemExternalId: 'media', externalRef: 'cue-1', command: 'GO' })
  )._id;
  const variable = (await must(s, 'POST', '/variables', { subsystemExternalId: 'media', externalRef: 'temp' }))._id;
  const rule = (await must(s, 'POST', '/alerts', { displayName: 'Hot', variable, operator: '>', value: '30' }))._id;
  const item = (
    await must(s, 'POST', '/schedules', { itemType: 'EVENT', itemId: event, startTime: '2026-01-16T10:00:00Z' })
  )._id;
  return { event, variable, rule, item };
}

async function subscribed(s: ServedApp): Promise<WsTestClient> {
  const c = await s.connect({ headers: { authorization: `Bearer ${s.tokenFor('admin')}` } });
  await c.subscribe(['events', 'variables', 'subsystems', 'schedule', 'alerts']);
  return c;
}

/** What arrived until the server answered a ping, as `type _id`, without the schedule's clock ticks. */
async function received(c: WsTestClient): Promise<string[]> {
  return (await c.sync())
    .filter((m) => m.type !== 'schedule.changed')
    .map((m) => `${m.type} ${(m.data as { _id?: unknown })._id}`);
}

describe('a cascade reaches WebSocket clients cause first', () => {
  it('DELETE /events/{id}: event.deleted, then the scheduled item it left without a target', async () => {
    const s = apps.serve();
    const v = await venue(s);
    const c = await subscribed(s);
    await must(s, 'DELETE', `/events/${v.event}`);
    expect(await received(c)).toEqual([`event.deleted ${v.event}`, `scheduleditem.updated ${v.item}`]);
  });

  it('DELETE /subsystems/{id}: subsystem.deleted, then its items left without a target and its alert rules', async () => {
    const s = apps.serve();
    const v = await venue(s);
    const c = await subscribed(s);
    await must(s, 'DELETE', '/subsystems/media');
    expect(await received(c)).toEqual([
      'subsystem.deleted 1',
      `scheduleditem.updated ${v.item}`,
      `alert.updated ${v.rule}`,
    ]);
  });

  it('DELETE /variables/{id}: variable.deleted, then the alert rule that watched it', async () => {
    const s = apps.serve();
    const v = await venue(s);
    const c = await subscribed(s);
    await must(s, 'DELETE', `/variables/${v.variable}`);
    expect(await received(c)).toEqual([`variable.deleted ${v.variable}`, `alert.updated ${v.rule}`]);
  });

  it('unrelated changes keep the order they were made in', async () => {
    const s = apps.serve();
    const v = await venue(s);
    const c = await subscribed(s);
    await must(s, 'PATCH', `/events/${v.event}`, { command: 'GO 2' });
    await must(s, 'PATCH', `/variables/${v.variable}`, { description: 'stage' });
    await must(s, 'PATCH', `/alerts/${v.rule}`, { value: '31' });
    expect(await received(c)).toEqual([
      `event.updated ${v.event}`,
      `variable.updated ${v.variable}`,
      `alert.updated ${v.rule}`,
    ]);
  });
});
