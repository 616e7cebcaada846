/**
 * What watches the venue: webhooks whose receivers are down or refused by policy (so deliveries fail
 * and retry; never a real network address), and alert rules in every state.
 */
import { setWebhookIo } from '../../src/realtime/dispatch-io';
import type { TestApp } from './app';
import type { Devices } from './venue-devices';
import { ADMIN, at, FIELD, made, must, need, OPERATOR, pass } from './venue-kit';
import type { People } from './venue-people';

export interface Watch {
  webhooks: Record<string, number>;
  alerts: Record<string, number>;
}

/** A loopback port nothing listens on: a connection to it is refused at once. */
function closedPort(): number {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('') });
  const port = server.port ?? 9;
  server.stop(true);
  return port;
}

/** Webhooks, created before most of the activity so their deliveries pile up, fail and retry. */
export async function buildWebhooks(t: TestApp, d: Devices): Promise<Watch> {
  // No name ever reaches a real resolver. One name resolves to a public documentation address while
  // the webhook is created, then to a link-local one (DNS rebinding), which every attempt refuses.
  const dns = { rebound: false };
  setWebhookIo(t.deps, {
    random: () => 0.5,
    lookup: async (host) => {
      if (host === 'metadata.venue.test') return [dns.rebound ? '169.254.169.254' : '203.0.113.10'];
      throw new Error(`ENOTFOUND ${host}`);
    },
  });
  const w: Watch = { webhooks: {}, alerts: {} };
  const port = closedPort();
  for (const [name, body] of [
    ['relay', { url: `http://127.0.0.1:${port}/hook`, allowPrivateNetwork: true, timeoutSeconds: 2 }],
    ['metadata', { url: 'http://metadata.venue.test/latest', events: ['alert.*', 'subsystem.*'] }],
    [
      'nowhere',
      {
        url: 'https://hooks.nowhere.venue.test/in',
        events: ['variable.changed'],
        subsystemIds: [need(d.subsystems, 'show-ctrl'), need(d.subsystems, 'signage')],
        headers: { 'x-venue': 'main' },
      },
    ],
    ['paused', { url: `http://127.0.0.1:${port}/paused`, allowPrivateNetwork: true, active: false, events: ['log.*'] }],
  ] as const) {
    w.webhooks[name] = (
      await made(t, 'POST', '/webhook', { ...ADMIN, body: { displayName: `Hook ${name}`, ...body } })
    )._id;
  }
  dns.rebound = true;
  await must(t, 'POST', `/webhook/${need(w.webhooks, 'metadata')}/rotateSecret`, ADMIN, 200);
  await must(t, 'POST', `/webhook/${need(w.webhooks, 'relay')}/test`, ADMIN, 200);
  await must(
    t,
    'PATCH',
    `/webhook/${need(w.webhooks, 'nowhere')}`,
    { ...ADMIN, body: { timeoutSeconds: 3, headers: { 'x-venue': null, 'x-site': 'north' } } },
    200,
  );
  return w;
}

async function value(t: TestApp, d: Devices, key: string, v: string): Promise<void> {
  await must(t, 'POST', `/variables/${need(d.variables, key)}/value`, { ...FIELD, body: { value: v } }, 200);
}

/** Alert rules pending, firing, acknowledged, snoozed, recovered, repeating, deactivated; system rules edited. */
export async function buildAlerts(t: TestApp, d: Devices, p: People, w: Watch): Promise<void> {
  const rule = async (name: string, body: Record<string, unknown>) => {
    w.alerts[name] = (await made(t, 'POST', '/alerts', { ...OPERATOR, body: { displayName: name, ...body } }))._id;
  };
  await rule('Too hot', {
    variable: need(d.variables, 'show-ctrl/temperature'),
    operator: '>',
    value: '80',
    criticality: 'critical',
    destinations: [
      { role: need(p.roles, 'operator'), method: ['notification', 'email'] },
      { role: need(p.roles, 'ushers'), method: ['notification'] },
    ],
  });
  await rule('Level held', {
    variable: need(d.variables, 'show-ctrl/level'),
    operator: '>=',
    value: 10,
    delaySeconds: 3600,
  });
  await rule('Idle latched', {
    variable: need(d.variables, 'media-1/state'),
    operator: '==',
    value: '0',
    lock: true,
    criticality: 3,
  });
  await rule('Gain low (snoozed)', {
    variable: need(d.variables, 'audio-dsp/gain'),
    operator: '<',
    value: '0',
    snoozedUntil: at(t, 7 * 86_400_000),
  });
  await rule('Uptime high', {
    variable: need(d.variables, 'media-1/uptime'),
    operator: '>',
    value: '50',
    message: '{alert}: {variable} is {value} on {subsystem}',
  });
  await rule('Config loops', { variable: need(d.variables, 'media-1/config'), operator: 'contains', value: 'loop' });
  await rule('Cue set', {
    variable: need(d.variables, 'show-ctrl/cue'),
    operator: 'matches',
    value: '^[0-9]+$',
    lifeCycle: 'repeat',
    repeatIntervalSeconds: 60,
    destinations: [
      { user: need(p.users, 'alice'), method: ['notification'] },
      { user: need(p.users, 'dave'), method: ['notification'] },
    ],
  });
  await rule('Armed (off)', {
    variable: need(d.variables, 'show-ctrl/armed'),
    operator: '==',
    value: 'true',
    Active: false,
  });
  await rule('Muted', {
    variable: 'mute',
    subsystemExternalId: 'audio-dsp',
    operator: '==',
    value: 'true',
    recovery: false,
    log: false,
  });
  await rule('Slide text', { variable: need(d.variables, 'signage/slide'), operator: '!contains', value: 'closed' });

  // Latched: the condition clears but the incident stays open until acknowledged.
  await value(t, d, 'media-1/state', '1');
  await must(t, 'POST', `/alerts/${need(w.alerts, 'Idle latched')}/acknowledge`, { ...OPERATOR, body: {} }, 200);
  // Recovered: fired at creation, then the value comes back.
  await value(t, d, 'media-1/uptime', '10');
  await pass(t, [61_000.5, 1000.25]);
  await value(t, d, 'audio-dsp/mute', 'true');
  await value(t, d, 'audio-dsp/mute', 'false');
  // Flapping inside the flap window reopens the same incident.
  await value(t, d, 'media-1/uptime', '77');
  await value(t, d, 'media-1/uptime', '12');

  const system = (await must(t, 'GET', '/alerts', { ...ADMIN, query: { type: 'system' } }, 200)).body as {
    _id: number;
    systemKind: string;
  }[];
  for (const s of system) w.alerts[`system:${s.systemKind}`] = s._id;
  await must(
    t,
    'PATCH',
    `/alerts/${need(w.alerts, 'system:subsystem-offline')}`,
    { ...ADMIN, body: { criticality: 'critical', lifeCycle: 'repeat', repeatIntervalSeconds: 300 } },
    200,
  );
  await must(t, 'PATCH', `/alerts/${need(w.alerts, 'system:storage-low')}`, { ...ADMIN, body: { active: false } }, 200);
  await must(
    t,
    'PATCH',
    `/alerts/${need(w.alerts, 'system:variable-health')}`,
    { ...ADMIN, body: { snoozedUntil: at(t, 30 * 86_400_000) } },
    200,
  );
}
