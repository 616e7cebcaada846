import { describe, expect, it } from 'bun:test';
import { EventBus } from './bus';

const AT = '2026-01-15T12:00:00.000Z';

describe('EventBus order', () => {
  it('an event published during a delivery reaches every listener after the one being delivered', () => {
    const bus = new EventBus();
    const first: string[] = [];
    const last: string[] = [];
    // The consequence's listener is subscribed before the one that hears both, as the schedule's is before the hub.
    bus.subscribe((e) => {
      first.push(e.type);
      if (e.type === 'a') {
        bus.publish('b', {}, AT);
        bus.publish('c', {}, AT);
      }
      if (e.type === 'b') bus.publish('d', {}, AT);
    });
    bus.subscribe((e) => last.push(e.type));
    bus.publish('a', {}, AT);
    bus.publish('e', {}, AT);
    expect(first).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(last).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('a listener that throws neither stops the others nor loses what waits', () => {
    const errors: string[] = [];
    const bus = new EventBus((_err, e) => errors.push(e.type));
    const heard: string[] = [];
    bus.subscribe((e) => {
      if (e.type === 'a') {
        bus.publish('b', {}, AT);
        throw new Error('boom');
      }
    });
    bus.subscribe((e) => heard.push(e.type));
    bus.publish('a', {}, AT);
    expect(errors).toEqual(['a']);
    expect(heard).toEqual(['a', 'b']);
    bus.publish('c', {}, AT);
    expect(heard).toEqual(['a', 'b', 'c']);
  });
});
