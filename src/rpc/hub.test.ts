import { describe, expect, it } from 'bun:test';
import { PushHub } from './hub';

function fake(accepts = true) {
  const lines: string[] = [];
  const send = (line: string): boolean => {
    if (accepts) lines.push(line);
    return accepts;
  };
  return { lines, send };
}

describe('PushHub', () => {
  it('delivers a notification once per subscribed connection and reports the targets reached', () => {
    const hub = new PushHub();
    const a = fake();
    const b = fake();
    const dead = fake(false);
    hub.add(a);
    hub.subscribe(a, ['media-1', 'media-2']);
    hub.subscribe(b, ['media-2']);
    hub.subscribe(dead, ['media-3']);
    const reached = hub.publish(['media-1', 'media-2', 'media-3', 'nobody'], 'schedule.item.start', { itemId: 1 });
    expect(reached).toEqual(['media-1', 'media-2']);
    expect(a.lines).toEqual(['{"jsonrpc":"2.0","method":"schedule.item.start","params":{"itemId":1}}']);
    expect(b.lines).toHaveLength(1);
  });

  it('stops delivering after unsubscribe or remove, and tells listeners about new subscriptions', () => {
    const hub = new PushHub();
    const a = fake();
    const seen: string[][] = [];
    hub.onSubscribe((_, targets) => seen.push(targets));
    hub.subscribe(a, ['x', 'y']);
    hub.subscribe(a, ['y', 'z']);
    expect(seen).toEqual([['x', 'y'], ['z']]);
    hub.unsubscribe(a, ['x']);
    expect(hub.publish(['x'], 'm', {})).toEqual([]);
    expect(hub.subscribedTargets(a)).toEqual(['y', 'z']);
    hub.remove(a);
    expect(hub.publish(['y'], 'm', {})).toEqual([]);
    expect(hub.connectionCount).toBe(0);
  });
});
