/**
 * §0.4 rule 3 for every event type: a WebSocket client receives an event only when it holds the read
 * permission of the resource the event describes, the one the HTTP read route of that resource
 * requires. Walks the §21 catalogue (EVENT_TYPES) and every type the code emits, so an event or a
 * route added later is covered the moment it exists.
 */
import { describe, expect, it } from 'bun:test';
import { makeTestApp } from '../../tests/helpers/app';
import { PERMISSIONS, type Permission } from '../core/permissions';
import type { AuthMeta } from '../http/auth';
import { authenticateSecret } from '../modules/auth/credentials';
import { builtInRoleId } from '../modules/roles/service';
import { EVENT_TYPES, TOPIC_NAMES, TOPIC_READS, topicOfEvent, topicPermission } from './topics';
import type { WsSocket } from './ws-hub';
import { emittedEventTypes } from './ws-test-support';

class Recorder implements WsSocket {
  readonly types: string[] = [];
  send(text: string): number {
    this.types.push((JSON.parse(text) as { type: string }).type);
    return text.length;
  }
  getBufferedAmount(): number {
    return 0;
  }
  cork(batch: () => void): void {
    batch();
  }
  ping(): void {}
  close(): void {}
}

const ALL_TYPES = [...new Set([...EVENT_TYPES, ...emittedEventTypes().filter((type) => !type.includes('$'))])].sort();

const harness = makeTestApp();
/** `GET` route path (no trailing slash) → the permissions its auth rule accepts. */
const readRoutes = new Map(
  harness.app.routes
    .filter((r) => r.method === 'GET')
    .map((r) => [
      r.path.replace(/\/$/, ''),
      ((r.hooks.detail as Record<string, unknown> | undefined)?.['x-pms-auth'] as AuthMeta | undefined)?.anyOf,
    ]),
);

/** What receiving an event needs: its resource's HTTP read route's permission, else the table's (no route yet). */
function requiredFor(type: string): Permission | null {
  const topic = topicOfEvent(type) ?? '';
  const read = TOPIC_READS.find((r) => r.topic === topic);
  const route = read?.readRoute ? readRoutes.get(read.readRoute) : undefined;
  if (route !== undefined && route.length === 1) return route[0] ?? null;
  return topicPermission(topic);
}

describe('the topic table and the HTTP read routes', () => {
  it('every event type belongs to a topic', () => {
    expect(ALL_TYPES.length).toBeGreaterThan(80);
    expect(ALL_TYPES.filter((type) => topicOfEvent(type) === null)).toEqual([]);
  });

  it.each(TOPIC_READS.filter((r) => r.readRoute !== null && readRoutes.has(r.readRoute)))(
    'topic $topic needs what GET $readRoute needs',
    ({ permission, readRoute }) => {
      expect(readRoutes.get(readRoute ?? '')).toEqual(permission === null ? [] : [permission]);
    },
  );
});

describe('delivery follows the read permission', () => {
  /** A client subscribed to every topic, authenticated by `secret`. */
  function clientWith(t: ReturnType<typeof makeTestApp>, secret: string): Recorder {
    const socket = new Recorder();
    const hub = t.deps.wsHub;
    const client = hub.open(
      socket,
      '192.0.2.1',
      authenticateSecret(t.deps, secret, () => null),
      { kind: 'secret', secret },
    );
    hub.message(client, { type: 'subscribe', topics: TOPIC_NAMES });
    return socket;
  }

  const byPermission = new Map<Permission | null, string[]>();
  for (const type of ALL_TYPES) {
    const permission = requiredFor(type);
    byPermission.set(permission, [...(byPermission.get(permission) ?? []), type]);
  }

  it.each([...byPermission].map(([permission, types]) => [String(permission), permission, types] as const))(
    'events needing %s reach a holder of only that permission and never a client holding every other',
    async (_, permission, types) => {
      const t = makeTestApp();
      // Both roles and tokens exist before either client connects: their own events are not the subject.
      const others = permission === null ? null : t.tokenWith(PERMISSIONS.filter((p) => p !== permission));
      const only = t.tokenWith(permission === null ? [] : [permission]);
      const lacking = others === null ? null : clientWith(t, others);
      const holding = clientWith(t, only);
      await Promise.resolve();
      for (const socket of [lacking, holding]) socket?.types.splice(0);
      for (const type of types) t.deps.bus.publish(type, { _id: 1 }, new Date(t.clock.now()).toISOString());
      await Promise.resolve();
      // Listeners may answer these events with events of their own (a failed backup raises an
      // alert and a notification): only the published types are the subject here.
      const ofTypes = (seen: string[]) => seen.filter((type) => types.includes(type));
      expect(ofTypes(lacking?.types ?? [])).toEqual([]);
      expect(ofTypes(holding.types)).toEqual(types);
    },
  );
});

describe('a viewer', () => {
  it('subscribed to tokens receives no token event when an administrator creates and deletes a token', async () => {
    const t = makeTestApp();
    const socket = new Recorder();
    const hub = t.deps.wsHub;
    const secret = t.tokenFor('viewer');
    hub.message(
      hub.open(
        socket,
        '192.0.2.1',
        authenticateSecret(t.deps, secret, () => null),
        { kind: 'secret', secret },
      ),
      {
        type: 'subscribe',
        topics: ['tokens', 'variables'],
      },
    );
    expect(socket.types).toEqual(['error', 'subscriptions']);
    const body = { displayName: 'cron', roleId: builtInRoleId(t.deps, 'viewer') };
    const made = await t.call('POST', '/tokens', { as: 'admin', body });
    expect(made.status).toBe(201);
    expect((await t.call('DELETE', `/tokens/${made.body._id}`, { as: 'admin' })).status).toBe(204);
    await Promise.resolve();
    expect(socket.types).toEqual(['error', 'subscriptions']);
  });
});
