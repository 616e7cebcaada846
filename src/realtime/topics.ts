/**
 * WebSocket topics (§0.4 rules 1 and 3, §21): the one table from an event's noun to its topic and
 * from a topic to the read permission a client needs to receive it. Topics are the plural collection
 * names; the singular noun (and the other spellings listed) is accepted when subscribing.
 */
import type { Principal } from '../modules/auth/principal';
import type { Permission } from '../modules/roles/permissions';

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
  /** The read permission of the area (§0.3); null: any authenticated client. */
  permission: Permission | null;
  /** Event nouns (the part before the first dot) carried by this topic. */
  nouns: string[];
  /** Further accepted spellings besides the topic and its nouns. */
  aliases?: string[];
  /** Narrows delivery per event beyond the permission. */
  audience?: Audience;
}

const TOPICS: readonly TopicDef[] = [
  { topic: 'users', permission: 'users:read', nouns: ['user'] },
  { topic: 'roles', permission: 'roles:read', nouns: ['role'] },
  { topic: 'tokens', permission: 'users:read', nouns: ['token'] },
  { topic: 'usertemplates', permission: 'users:read', nouns: ['usertemplate'], aliases: ['user-templates'] },
  // Registered panels belong to the subsystems area (§0.3).
  { topic: 'controlpanels', permission: 'subsystems:read', nouns: ['controlpanel'], aliases: ['control-panels'] },
  { topic: 'subsystems', permission: 'subsystems:read', nouns: ['subsystem'] },
  { topic: 'players', permission: 'players:read', nouns: ['player'] },
  { topic: 'variables', permission: 'variables:read', nouns: ['variable'] },
  { topic: 'events', permission: 'events:read', nouns: ['event'] },
  { topic: 'parameters', permission: 'parameters:read', nouns: ['parameter'] },
  { topic: 'presets', permission: 'parameters:read', nouns: ['preset'] },
  {
    topic: 'notifications',
    permission: 'notifications:read',
    nouns: ['notification'],
    audience: notificationAudience,
  },
  { topic: 'alerts', permission: 'alerts:read', nouns: ['alert', 'incident'] },
  { topic: 'logs', permission: 'logs:read', nouns: ['log', 'logscenario', 'logpreset'] },
  { topic: 'webhook', permission: 'webhook:read', nouns: ['webhook'], aliases: ['webhooks'] },
  {
    topic: 'schedule',
    permission: 'schedule:read',
    // The schedule's definitions (§11.1–11.4) travel with its own events.
    nouns: ['schedule', 'zone', 'calendar', 'scheduleditem', 'playlist', 'block'],
    aliases: ['schedules', 'zones', 'calendars', 'scheduleditems', 'playlists', 'blocks'],
  },
  { topic: 'objects', permission: 'media:read', nouns: ['object'] },
  { topic: 'playables', permission: 'media:read', nouns: ['playable'] },
  { topic: 'compositions', permission: 'media:read', nouns: ['composition'] },
  { topic: 'assets', permission: 'assets:read', nouns: ['asset'] },
  { topic: 'backups', permission: 'backups:read', nouns: ['backup'] },
  { topic: 'settings', permission: 'settings:read', nouns: ['settings', 'setting'] },
  { topic: 'license', permission: 'license:read', nouns: ['license'], aliases: ['licenses'] },
  // Shutdown and reboot concern every connected client.
  { topic: 'platform', permission: null, nouns: ['platform'] },
];

const byNoun = new Map<string, TopicDef>();
const byName = new Map<string, TopicDef>();
for (const def of TOPICS) {
  for (const noun of def.nouns) byNoun.set(noun, def);
  for (const name of [def.topic, ...def.nouns, ...(def.aliases ?? [])]) byName.set(name, def);
}

/** Every canonical topic name. */
export const TOPIC_NAMES: readonly string[] = TOPICS.map((d) => d.topic);

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
