/**
 * What a WebSocket client may say (C: Realtime): `auth` (first message, when the upgrade carried no
 * credential), `subscribe` / `unsubscribe` with topic names, and `ping` (answered `pong`; a `pong`
 * is accepted silently). Anything malformed is answered `{"type":"error","message"}` and the
 * connection stays open, except before authentication, where only `auth` and `ping` are accepted.
 */
import type { Principal } from '../core/principal';
import { dropProtoKeys } from '../http/proto-keys';
import { TOPIC_NAMES, topicNamed, topicPermission } from './topics';

/** What the protocol reads and changes of a connection (ws-hub.ts's WsClient). */
export interface ProtocolClient {
  readonly principal: Principal | null;
  readonly topics: Set<string>;
}

/** What the protocol asks of the hub (ws-hub.ts's WsHub), for a connection of its kind. */
export interface ProtocolHub<Client extends ProtocolClient> {
  /** A reply to the client. */
  send(client: Client, message: Record<string, unknown>): void;
  /** Refuses a credential: `auth_invalid`, then a policy close. */
  refuse(client: Client, reason: string): void;
  /** Checks a first-message `auth`; true when it stands for a valid caller. */
  authenticateWith(client: Client, secret: string): boolean;
}

/** At most this many topic names in one subscribe or unsubscribe. */
export const MAX_TOPICS_PER_MESSAGE = 64;
const MAX_TOPIC_NAME = 64;

type Incoming = { type: string } & Record<string, unknown>;

function parse(message: unknown): Incoming | string {
  let value = message;
  if (typeof value === 'string') {
    try {
      value = dropProtoKeys(JSON.parse(value), value);
    } catch {
      return 'a message must be a JSON object';
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value) || ArrayBuffer.isView(value))
    return 'a message must be a JSON object';
  const type = (value as Record<string, unknown>).type;
  if (typeof type !== 'string') return 'a message needs a string "type"';
  return value as Incoming;
}

function topicNames<C extends ProtocolClient>(hub: ProtocolHub<C>, client: C, value: unknown): string[] | null {
  const names = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(names) || names.some((n) => typeof n !== 'string')) {
    hub.send(client, { type: 'error', message: '"topics" must be an array of topic names' });
    return null;
  }
  if (names.length > MAX_TOPICS_PER_MESSAGE) {
    hub.send(client, { type: 'error', message: `at most ${MAX_TOPICS_PER_MESSAGE} topics in one message` });
    return null;
  }
  const known: string[] = [];
  for (const name of names as string[]) {
    const topic = name.length <= MAX_TOPIC_NAME ? topicNamed(name) : null;
    if (topic) known.push(topic);
    else
      hub.send(client, {
        type: 'error',
        message: `unknown topic "${name.slice(0, MAX_TOPIC_NAME)}"; topics are ${TOPIC_NAMES.join(', ')}`,
      });
  }
  return known;
}

function subscribe<C extends ProtocolClient>(hub: ProtocolHub<C>, client: C, value: unknown, add: boolean): void {
  const topics = topicNames(hub, client, value);
  if (!topics) return;
  for (const topic of topics) {
    if (!add) {
      client.topics.delete(topic);
      continue;
    }
    client.topics.add(topic);
    const permission = topicPermission(topic);
    // Kept subscribed: events flow as soon as the caller's role grants the permission.
    if (permission !== null && !client.principal?.permissions.has(permission))
      hub.send(client, {
        type: 'error',
        message: `topic ${topic} needs the ${permission} permission; its events are not sent to this connection`,
      });
  }
  hub.send(client, { type: 'subscriptions', topics: [...client.topics].sort() });
}

export function handleClientMessage<C extends ProtocolClient>(hub: ProtocolHub<C>, client: C, message: unknown): void {
  const parsed = parse(message);
  if (typeof parsed === 'string') {
    if (client.principal) hub.send(client, { type: 'error', message: parsed });
    else hub.refuse(client, 'authenticate first');
    return;
  }
  switch (parsed.type) {
    case 'auth':
      if (typeof parsed.token === 'string' && parsed.token !== '' && hub.authenticateWith(client, parsed.token))
        hub.send(client, { type: 'auth_ok' });
      else hub.refuse(client, 'invalid credential');
      return;
    case 'ping':
      hub.send(client, { type: 'pong' });
      return;
    case 'pong':
      return;
  }
  if (!client.principal) {
    hub.refuse(client, 'authenticate first');
    return;
  }
  if (parsed.type === 'subscribe' || parsed.type === 'unsubscribe')
    subscribe(hub, client, parsed.topics, parsed.type === 'subscribe');
  else hub.send(client, { type: 'error', message: `unknown message type "${parsed.type.slice(0, 64)}"` });
}
