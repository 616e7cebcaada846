/**
 * A realistic venue, built through the HTTP API the way its clients build one (administrators,
 * operators, field drivers on the trusted network, integration tokens), on a clock that moves as a
 * real one does: uneven fractional heartbeat gaps, a wall-clock step, subsystems going offline and
 * recovering, deletes that leave references behind, deliveries failing and retrying, alerts in
 * every state. Every set-up call must answer as expected, or the build throws with the answer.
 */
import type { TestApp } from './app';
import { type Assets, buildAssets } from './venue-assets';
import { buildBackups } from './venue-backups';
import { buildCompositions } from './venue-compositions';
import { buildDevices, type Devices } from './venue-devices';
import { ADMIN, beat, gapsAround, INTEGRATION, must, need, OPERATOR, pass } from './venue-kit';
import { buildBranding, buildMedia } from './venue-media';
import { buildPeople, type People } from './venue-people';
import { buildPlayers } from './venue-players';
import { buildSchedule, type Schedule } from './venue-schedule';
import { buildAlerts, buildWebhooks, type Watch } from './venue-watch';

export interface Venue {
  devices: Devices;
  people: People;
  watch: Watch;
  schedule: Schedule;
  /** The video wall container and its screens (§13), by externalId. */
  players: Record<string, number>;
  /** The compositions (§15): `welcome` ready, `trailer` broken by its deleted template. */
  compositions: Record<string, number>;
  /** The equipment (§16), by name. */
  assets: Assets;
}

/** Deletes whose targets are still referred to: by alert rules, notifications, playlists, blocks, items, tokens. */
async function leaveReferencesBehind(t: TestApp, v: Venue): Promise<void> {
  const { devices: d, people: p } = v;
  // A variable watched by an alert rule; another named by a notification action and a repeating rule.
  await must(t, 'DELETE', `/variables/${need(d.variables, 'media-1/config')}`, INTEGRATION, 204);
  await must(t, 'DELETE', `/variables/${need(d.variables, 'show-ctrl/cue')}`, OPERATOR, 204);
  // A playable in a playlist and a block; an event with a recurring scheduled item.
  await must(t, 'DELETE', `/playables/${need(d.playables, 'media-1/promo')}`, INTEGRATION, 204);
  await must(t, 'DELETE', `/events/${need(d.events, 'show-ctrl/go-2')}`, OPERATOR, 204);
  // A subsystem that owned variables, events, playables, parameters, a preset, panels (on a user's
  // dashboard and a template) and whose event and playlist are scheduled.
  await must(t, 'DELETE', '/subsystems/signage', ADMIN, 204);
  // A parameter a preset holds goes (force removes it from the preset); a subsystem is renamed.
  await must(
    t,
    'DELETE',
    `/parameters/${need(d.parameters, 'audio-dsp/input')}`,
    { ...OPERATOR, query: { force: 'true' } },
    204,
  );
  await must(
    t,
    'PATCH',
    '/subsystems/lighting',
    { ...ADMIN, body: { externalId: 'lights', displayName: 'Lighting desk' } },
    200,
  );
  // A role still held by a token is refused; the user who created the tokens leaves.
  await must(t, 'DELETE', `/roles/${need(p.roles, 'cron')}`, ADMIN, 409);
  await must(t, 'DELETE', `/users/${need(p.users, 'dave')}`, ADMIN, 204);
  await must(t, 'DELETE', `/usertemplates/${need(p.templates, 'crew')}`, ADMIN, 204);
  // A role named only by a notification's audience and an alert rule's destinations goes.
  await must(t, 'DELETE', `/roles/${need(p.roles, 'ushers')}`, ADMIN, 204);
  // The event is registered again by its integration: its scheduled item re-links.
  await must(
    t,
    'PUT',
    '/subsystem/show-ctrl/events/go-2',
    { token: p.showToken, body: { command: 'GO 2' } },
    [200, 201],
  );
}

/** Messages for the subsystems' next heartbeat answers: some collected, some left to expire. */
async function queueActions(t: TestApp, v: Venue): Promise<void> {
  const lobby = need(v.schedule.zones, 'lobby');
  const intro = need(v.devices.playables, 'media-1/intro');
  for (const [id, body] of [
    ['media-1', { type: 'identify', topic: 'front of house' }],
    ['media-1', { type: 'forcePlay', playableId: intro, zoneId: lobby, playType: 'infinite' }],
    ['media-1', { type: 'forceStop', zoneId: lobby }],
    ['doors', { type: 'identify', topic: 'never collected' }],
    ['audio-dsp', { type: 'identify' }],
  ] as const) {
    await must(t, 'PUT', `/subsystems/${id}/action`, { ...OPERATOR, body }, 202);
  }
}

/** Hours pass: webhook retries (5 s, 5 min, 30 min, 2 h), alert repeats and delays, expiries, the schedule runs. */
async function hoursPass(t: TestApp, v: Venue): Promise<void> {
  await pass(t, gapsAround(1000.3, 5), ['media-1', 'show-ctrl', 'audio-dsp']);
  await pass(t, [5_000.7, 61_000.25, 300_000.5, 1_800_000.125, 1_700_000.9]);
  // An operator notices, restarts the drivers, and the venue comes back.
  await pass(t, gapsAround(999.7, 5), ['media-1', 'show-ctrl', 'audio-dsp']);
  await pass(t, [7_200_000.33]);
  // Someone sends a failed delivery again by hand.
  const relay = need(v.watch.webhooks, 'relay');
  const deliveries = (await must(t, 'GET', `/webhook/${relay}/deliveries`, ADMIN, 200)).body as { _id: number }[];
  const failed = deliveries.at(-1);
  if (!failed) throw new Error('venue set-up: the relay webhook has no deliveries to send again');
  await must(t, 'POST', `/webhook/${relay}/deliveries/${failed._id}/redeliver`, ADMIN, 202);
}

/** The last minutes: media-1 and show-ctrl beat on, audio-dsp stops past its grace period, show-ctrl drops and recovers. */
async function finalMinutes(t: TestApp, v: Venue): Promise<void> {
  await pass(t, gapsAround(1000.37, 4), ['media-1', 'show-ctrl', 'audio-dsp']);
  await pass(t, gapsAround(1000.37, 8), ['media-1', 'show-ctrl']);
  await pass(t, [31_000.4], ['media-1']);
  await beat(t, 'show-ctrl');
  await pass(t, gapsAround(998.2, 3), ['media-1', 'show-ctrl']);
  // A rule made now is still pending its delay when the venue is read.
  const level = need(v.devices.variables, 'show-ctrl/level');
  const pending = {
    displayName: 'Level held an hour',
    variable: level,
    operator: '>=',
    value: '10',
    delaySeconds: 3600,
  };
  await must(t, 'POST', '/alerts', { ...OPERATOR, body: pending }, 201);
  await must(t, 'POST', '/logs', { as: 'admin', body: { key: 'venue.built', value: 'sweep venue complete' } }, 201);
}

/** Builds the whole venue on `t` (a fresh test app) and returns the ids it made. */
export async function buildVenue(t: TestApp): Promise<Venue> {
  const devices = await buildDevices(t);
  const watch = await buildWebhooks(t, devices);
  const people = await buildPeople(t, devices);
  await buildBranding(t);
  await buildAlerts(t, devices, people, watch);
  const schedule = await buildSchedule(t, devices);
  await buildMedia(t);
  await buildBackups(t);
  const players = await buildPlayers(t, schedule);
  const compositions = await buildCompositions(t);
  const assets = await buildAssets(t, devices);
  const v: Venue = { devices, people, watch, schedule, players, compositions, assets };
  await pass(t, gapsAround(10_000.5, 3), ['media-1', 'show-ctrl', 'audio-dsp']);
  await leaveReferencesBehind(t, v);
  await queueActions(t, v);
  await hoursPass(t, v);
  await finalMinutes(t, v);
  return v;
}
