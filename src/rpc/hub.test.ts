import { describe, expect, it } from 'bun:test';
import { PushHub, pushLine } from './hub';

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

describe('push lines under 1 000 bytes (C: Realtime)', () => {
  const params = (command: string) => ({
    itemType: 'PLAYABLE',
    command,
    subsystemExternalId: 'wall-1',
    externalRef: 'show',
    itemId: 7,
    zoneId: 1,
    startTime: '2026-01-15T12:00:00.000Z',
    endTime: '2026-01-15T12:01:00.000Z',
  });

  it('sends a line that fits as it is, and one that would not without its command, telling the listener', () => {
    const told: unknown[] = [];
    const hub = new PushHub((method, p) => told.push([method, p.itemId]));
    const a = fake();
    hub.subscribe(a, ['wall-1']);
    const short = 'x'.repeat(700);
    hub.publish(['wall-1'], 'schedule.item.start', params(short));
    // 1 byte over: each "é" is 2 bytes in UTF-8 though one character in JavaScript.
    const long = 'é'.repeat(400);
    hub.publish(['wall-1'], 'schedule.item.start', params(long));
    const [first, second] = a.lines.map((l) => JSON.parse(l));
    expect(first.params.command).toBe(short);
    expect(second.params).toEqual({ ...params(''), commandOmitted: true });
    for (const line of a.lines) expect(Buffer.byteLength(line)).toBeLessThan(1000);
    expect(told).toEqual([['schedule.item.start', 7]]);
    // Nobody subscribed: no line is built, nobody told.
    hub.publish(['nobody'], 'schedule.item.start', params(long));
    expect(told).toHaveLength(1);
  });

  it('pushLine keeps a 999-byte line and shortens a 1 000-byte one', () => {
    const base = pushLine('m', params('')).length;
    expect(Buffer.byteLength(pushLine('m', params('x'.repeat(999 - base))))).toBe(999);
    expect(JSON.parse(pushLine('m', params('x'.repeat(1000 - base)))).params.commandOmitted).toBe(true);
  });
});
