/**
 * WebSocket topics (§0.4 rules 1 and 3, §21): the one table from an event's noun to its topic and
 * from a topic to the read permission a client needs to receive it. Topics are the plural collection
 * names; the singular noun (and the other spellings listed) is accepted when subscribing.
 *
 * The permission is the one the HTTP read route of the resource requires (each topic names that
 * route; ws-permissions.test.ts checks them against the route table and walks every event type of
 * §21 and of the code): an event carries what a GET would show, so it needs what the GET needs.
 * An event whose noun no topic carries is sent to no WebSocket client.
 */

import type { Permission } from '../core/permissions';
import type { Principal } from '../core/principal';

/** Who of the topic's readers may see one event, judged from its data. */
type Audience = (principal: Principal, data: Record<string, unknown>) => boolean;

/**
 * Notifications with `roleIds` are for holders of one of those roles, and `users:write` holders see
 * all (§7 rule 6); the event data carries the `roleIds`.
 */
const notificationAudience: Audience = (principal, data) => {
  const roleIds = Array.isArray(data.roleIds) ? data.roleIds : [];
  return (
    roleIds.length === 0 ||
    principal.permissions.has('users:write') ||
    roleIds.some((id) => typeof id === 'number' && principal.roleIds.includes(id))
  );
};

interface TopicDef {
  /** The canonical (plural) name, as answered to the client. */
  topic: string;
  /**
   * The read permission of the area (§0.3); null: any authenticated client. It is the permission of
   * `readRoute`: an event tells what a GET of its resource would, so it needs what that GET needs
   * (ws-permissions.test.ts compares the two on the route table).
   */
  permission: Permission | null;
  /** `GET` path of the resource's collection in the route table; null (with a reason) when none applies. */
  readRoute: string | null;
  /** Event nouns (the part before the first dot) carried by this topic. */
  nouns: string[];
  /** Nouns that are no entity, so have no created/updated/deleted (0.4 rule 2). */
  notEntities?: string[];
  /** §21: the events beyond create, update and delete. */
  events?: string[];
  /** Further accepted spellings besides the topic and its nouns. */
  aliases?: string[];
  /** Narrows delivery per event beyond the permission. */
  audience?: Audience;
}

const TOPICS: readonly TopicDef[] = [
  { topic: 'users', permission: 'users:read', readRoute: '/api/v1/users', nouns: ['user'] },
  { topic: 'roles', permission: 'roles:read', readRoute: '/api/v1/roles', nouns: ['role'] },
  // Tokens are read with users:write (§1.4): their names, roles and reach are an administrator's.
  {
    topic: 'tokens',
    permission: 'users:write',
    readRoute: '/api/v1/tokens',
    nouns: ['token'],
    events: ['token.revoked'],
  },
  {
    topic: 'usertemplates',
    permission: 'users:read',
    readRoute: '/api/v1/usertemplates',
    nouns: ['usertemplate'],
    aliases: ['user-templates'],
  },
  // Registered panels belong to the subsystems area (§0.3); GET /controlpanels serves every signed-in
  // caller and filters per kind, so it names no permission to compare with.
  {
    topic: 'controlpanels',
    permission: 'subsystems:read',
    readRoute: null,
    nouns: ['controlpanel'],
    aliases: ['control-panels'],
  },
  {
    topic: 'subsystems',
    permission: 'subsystems:read',
    readRoute: '/api/v1/subsystems',
    nouns: ['subsystem'],
    events: [
      'subsystem.online',
      'subsystem.offline',
      'subsystem.action.queued',
      'subsystem.action.delivered',
      'subsystem.action.expired',
    ],
  },
  {
    topic: 'players',
    permission: 'players:read',
    readRoute: '/api/v1/players',
    nouns: ['player'],
    events: ['player.online', 'player.offline', 'player.default_state_changed'],
  },
  {
    topic: 'variables',
    permission: 'variables:read',
    readRoute: '/api/v1/variables',
    nouns: ['variable'],
    events: ['variable.changed', 'variable.health_changed'],
  },
  {
    topic: 'events',
    permission: 'events:read',
    readRoute: '/api/v1/events',
    nouns: ['event'],
    events: ['event.triggered'],
  },
  {
    topic: 'parameters',
    permission: 'parameters:read',
    readRoute: '/api/v1/parameters',
    nouns: ['parameter'],
    events: ['parameter.changed'],
  },
  {
    topic: 'presets',
    permission: 'parameters:read',
    readRoute: '/api/v1/presets',
    nouns: ['preset'],
    events: ['preset.applied'],
  },
  {
    topic: 'notifications',
    permission: 'notifications:read',
    readRoute: '/api/v1/notifications',
    nouns: ['notification'],
    events: ['notification.shown', 'notification.cleared', 'notification.action'],
    audience: notificationAudience,
  },
  {
    topic: 'alerts',
    permission: 'alerts:read',
    readRoute: '/api/v1/alerts',
    nouns: ['alert', 'incident'],
    events: ['alert.fired', 'alert.recovered', 'alert.acknowledged'],
  },
  {
    topic: 'logs',
    permission: 'logs:read',
    readRoute: '/api/v1/logs',
    nouns: ['log', 'logscenario', 'logpreset'],
    events: ['log.created'],
  },
  {
    topic: 'webhook',
    permission: 'webhook:read',
    readRoute: '/api/v1/webhook',
    nouns: ['webhook'],
    events: ['webhook.disabled', 'webhook.test'],
    aliases: ['webhooks'],
  },
  {
    topic: 'schedule',
    permission: 'schedule:read',
    readRoute: '/api/v1/schedule',
    // The schedule's definitions (§11.1–11.4) travel with its own events.
    nouns: ['schedule', 'zone', 'calendar', 'scheduleditem', 'playlist', 'block'],
    notEntities: ['schedule'],
    events: ['schedule.changed', 'schedule.item.start', 'schedule.item.end', 'schedule.run.missed'],
    aliases: ['schedules', 'zones', 'calendars', 'scheduleditems', 'playlists', 'blocks'],
  },
  {
    topic: 'objects',
    permission: 'media:read',
    readRoute: '/api/v1/objects',
    nouns: ['object'],
    events: ['object.uploaded', 'object.restored'],
  },
  {
    topic: 'playables',
    permission: 'media:read',
    readRoute: '/api/v1/playables',
    nouns: ['playable'],
    events: ['playable.copy_status_changed'],
  },
  {
    topic: 'compositions',
    permission: 'media:read',
    readRoute: '/api/v1/compositions',
    nouns: ['composition'],
    events: ['composition.preview'],
  },
  {
    topic: 'assets',
    permission: 'assets:read',
    readRoute: '/api/v1/assets',
    nouns: ['asset'],
    events: ['asset.health_changed'],
  },
  {
    topic: 'backups',
    permission: 'backups:read',
    readRoute: '/api/v1/backups',
    nouns: ['backup'],
    events: [
      'backup.started',
      'backup.completed',
      'backup.failed',
      'backup.verified',
      'backup.restore_started',
      'backup.restored',
      'backup.restore_failed',
    ],
  },
  {
    topic: 'settings',
    permission: 'settings:read',
    readRoute: '/api/v1/settings',
    nouns: ['settings', 'setting'],
    notEntities: ['settings', 'setting'],
    events: ['settings.changed'],
  },
  {
    topic: 'license',
    permission: 'license:read',
    readRoute: '/api/v1/license',
    nouns: ['license'],
    notEntities: ['license'],
    events: ['license.changed', 'license.expiring', 'license.expired'],
    aliases: ['licenses'],
  },
  // Shutdown and reboot concern every connected client; there is nothing to read about them.
  {
    topic: 'platform',
    permission: null,
    readRoute: null,
    nouns: ['platform'],
    notEntities: ['platform'],
    events: ['platform.shutdown', 'platform.reboot'],
  },
];

const byNoun = new Map<string, TopicDef>();
const byName = new Map<string, TopicDef>();
for (const def of TOPICS) {
  for (const noun of def.nouns) byNoun.set(noun, def);
  for (const name of [def.topic, ...def.nouns, ...(def.aliases ?? [])]) byName.set(name, def);
}

/** Every canonical topic name. */
export const TOPIC_NAMES: readonly string[] = TOPICS.map((d) => d.topic);

/** §21: every event type, the created/updated/deleted of each entity noun and the events beyond them. */
export const EVENT_TYPES: readonly string[] = TOPICS.flatMap((d) => [
  ...d.nouns
    .filter((noun) => !d.notEntities?.includes(noun))
    .flatMap((noun) => ['created', 'updated', 'deleted'].map((change) => `${noun}.${change}`)),
  ...(d.events ?? []),
]);

/** Each topic with its permission and the HTTP read route that permission must match. */
export const TOPIC_READS: readonly { topic: string; permission: Permission | null; readRoute: string | null }[] =
  TOPICS.map(({ topic, permission, readRoute }) => ({ topic, permission, readRoute }));

/** The canonical topic a client names (plural, singular or alias; case-insensitive); null when unknown. */
export function topicNamed(name: string): string | null {
  return byName.get(name.toLowerCase())?.topic ?? null;
}

/** The topic an event type (`<noun>.<event>`) belongs to; null for a noun no topic carries. */
export function topicOfEvent(type: string): string | null {
  const dot = type.indexOf('.');
  return byNoun.get(dot < 0 ? type : type.slice(0, dot))?.topic ?? null;
}

/** The permission needed to receive a topic's events; null when any authenticated client may. */
export function topicPermission(topic: string): Permission | null {
  return byName.get(topic)?.permission ?? null;
}

/** Whether a reader of the topic may see this event (true for topics without an audience rule). */
export function inAudience(topic: string, principal: Principal, data: Record<string, unknown>): boolean {
  const audience = byName.get(topic)?.audience;
  return audience === undefined || audience(principal, data);
}
