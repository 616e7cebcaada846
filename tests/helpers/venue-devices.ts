/**
 * The venue's devices, built the way field clients build them: an administrator creates the
 * subsystems, then each integration (trusted network or an integration token) beats at uneven
 * fractional intervals and registers its variables, events, playables, parameters and panels; people
 * write values, trigger events and apply presets.
 */
import type { TestApp } from './app';
import { ADMIN, beat, FIELD, gapsAround, INTEGRATION, made, must, need, OPERATOR, pass } from './venue-kit';

export interface Devices {
  /** `_id` by externalId. */
  subsystems: Record<string, number>;
  /** `_id` by `<subsystem>/<externalRef>`. */
  variables: Record<string, number>;
  events: Record<string, number>;
  playables: Record<string, number>;
  parameters: Record<string, number>;
  presets: Record<string, number>;
  panels: Record<string, number>;
}

/** Six subsystems: one polled by a TCP health check, some with metadata, one never seen. */
const SUBSYSTEMS = [
  {
    externalId: 'media-1',
    displayName: 'Media server',
    type: 'media',
    metadata: { rack: 'A3', ip_address: '10.0.0.5' },
  },
  { externalId: 'show-ctrl', displayName: 'Show controller', metadata: { vendor: 'Acme', firmware: { major: 4 } } },
  { externalId: 'lighting', healthCheck: { mode: 'tcp', host: '127.0.0.1', port: 9, intervalSeconds: 30 } },
  { externalId: 'audio-dsp', healthGracePeriod: 5, description: 'goes offline during the build' },
  { externalId: 'signage', type: 'signage', description: 'deleted at the end, leaving its references behind' },
  { externalId: 'doors', healthEnabled: false, description: 'never seen' },
] as const;

async function subsystemsAndHeartbeats(t: TestApp, d: Devices): Promise<void> {
  for (const body of SUBSYSTEMS)
    d.subsystems[body.externalId] = (await made(t, 'POST', '/subsystems', { ...ADMIN, body }))._id;
  // Heartbeats from field drivers (no credential, trusted network) and one from an integration token.
  await beat(t, 'media-1');
  await beat(t, 'show-ctrl', INTEGRATION);
  await pass(t, gapsAround(1000.37, 6), ['media-1', 'show-ctrl', 'audio-dsp', 'signage']);
  // An NTP step of the wall clock: liveness runs on the monotonic clock, so nobody goes offline.
  t.clock.setWall(t.clock.now() - 3_600_000 + 0.25);
  await pass(t, [999.81, 1003.2, 1000.0001, 1500.75], ['media-1', 'show-ctrl', 'audio-dsp', 'signage']);
  t.clock.setWall(t.clock.now() + 3_600_000);
  await pass(t, [998.4], ['media-1', 'show-ctrl', 'audio-dsp', 'signage']);
}

/** Variables of every type, registered by their integrations, then written many times. */
async function variables(t: TestApp, d: Devices): Promise<void> {
  const defs: [string, string, Record<string, unknown>][] = [
    ['media-1', 'uptime', { type: 'number', unit: 's' }],
    ['media-1', 'state', { type: 'enum', valueMapping: { '0': 'idle', '1': 'playing' }, tags: ['state', 'main'] }],
    ['media-1', 'config', { type: 'json', storeHistory: false }],
    [
      'show-ctrl',
      'temperature',
      {
        type: 'number',
        unit: '°C',
        healthEnabled: true,
        healthRules: [
          ['warning', '>', 60],
          ['error', '>', 80],
        ],
        healthGracePeriod: 2,
        alert: true,
      },
    ],
    ['show-ctrl', 'armed', { type: 'boolean', log: true }],
    ['show-ctrl', 'level', { type: 'number', description: 'fader' }],
    ['audio-dsp', 'gain', { type: 'number' }],
    ['audio-dsp', 'mute', { type: 'boolean' }],
    ['signage', 'slide', { type: 'string' }],
    ['signage', 'visitors', { type: 'number', lastValue: '12' }],
    ['lighting', 'scene', { type: 'string', availableInSubsystem: false }],
  ];
  for (const [sub, ref, fields] of defs) {
    const res = await must(t, 'PUT', `/subsystems/${sub}/variables/${ref}`, { ...FIELD, body: fields });
    d.variables[`${sub}/${ref}`] = res.body._id;
  }
  // One registered through the collection upsert with an integration token, one by a person.
  d.variables['show-ctrl/cue'] = (
    await made(t, 'POST', '/variables', {
      ...INTEGRATION,
      body: { subsystemExternalId: 'show-ctrl', externalRef: 'cue', lastValue: '1' },
    })
  )._id;
  d.variables['media-1/volume'] = (
    await made(t, 'POST', '/variables', {
      ...OPERATOR,
      body: { subsystemId: d.subsystems['media-1'], externalRef: 'volume', displayName: 'Volume (house)' },
    })
  )._id;
  // A composite over three subsystems: deleting signage later drops one of its inputs.
  const inputs = ['show-ctrl/level', 'audio-dsp/gain', 'signage/visitors'].map((k) => String(need(d.variables, k)));
  d.variables['show-ctrl/total'] = (
    await made(t, 'POST', '/variables', {
      ...ADMIN,
      body: {
        subsystemExternalId: 'show-ctrl',
        externalRef: 'total',
        composite: true,
        compositeDefinition: ['sum', ...inputs],
      },
    })
  )._id;

  const writes: [string, unknown][] = [
    ['media-1/uptime', 12.5],
    ['show-ctrl/temperature', '41.2'],
    ['show-ctrl/armed', true],
    ['media-1/state', '1'],
    ['media-1/config', { loop: true, files: ['a.mp4'] }],
    ['show-ctrl/level', 10],
    ['audio-dsp/gain', -3.5],
    ['show-ctrl/temperature', '65'],
    ['audio-dsp/mute', false],
    ['signage/slide', 'welcome'],
    ['media-1/uptime', 13.5],
    ['show-ctrl/level', 95],
    ['show-ctrl/temperature', '85.5'],
    ['show-ctrl/armed', 'false'],
    ['media-1/volume', null],
    ['signage/slide', 'line one\nline two, "quoted"\ttab'],
    ['media-1/state', '0'],
    ['show-ctrl/level', 20],
  ];
  for (const [i, [key, value]] of writes.entries()) {
    const id = d.variables[key];
    // Values arrive from the field (trusted network) and from operators, interleaved with time.
    await must(t, 'POST', `/variables/${id}/value`, { ...(i % 3 === 0 ? OPERATOR : FIELD), body: { value } }, 200);
    await pass(t, [137.3 + i * 11.07]);
  }
  await must(
    t,
    'PUT',
    '/subsystems/media-1/variables/uptime/lastValue',
    { ...FIELD, body: { value: '99.25' } },
    [200, 201],
  );
  await must(t, 'PUT', '/variable/lastValue/show-ctrl/cue', { ...FIELD, body: { value: '2' } }, [200, 201]);
  await pass(t, gapsAround(1000.5, 4));
}

async function eventsAndPlayables(t: TestApp, d: Devices): Promise<void> {
  for (const [sub, ref, body] of [
    ['show-ctrl', 'go-1', { command: 'GO 1', metadata: { cue: 1 } }],
    ['show-ctrl', 'go-2', { command: 'GO 2' }],
    ['show-ctrl', 'blackout', { command: 'BLACKOUT', active: false }],
    ['media-1', 'restart', { command: 'restart --soft' }],
    ['signage', 'refresh', { command: 'refresh' }],
  ] as const) {
    const res = await must(t, 'PUT', `/subsystem/${sub}/events/${ref}`, { ...FIELD, body });
    d.events[`${sub}/${ref}`] = res.body._id;
  }
  await must(t, 'POST', `/events/${d.events['show-ctrl/go-1']}/trigger`, { ...OPERATOR, body: {} }, 200);
  await must(t, 'POST', `/events/${d.events['media-1/restart']}/trigger`, { ...ADMIN, body: { zoneId: 1 } }, 200);
  for (const [sub, ref, body] of [
    ['media-1', 'intro', { duration: 60_000, displayName: 'Intro loop', group: 'shows' }],
    ['media-1', 'feature', { duration: 3_600_000, type: 'video', metadata: { rating: 'PG' } }],
    ['media-1', 'ambient', { durationType: 'infinite', duration: 0 }],
    ['media-1', 'promo', { duration: 30_000 }],
    ['signage', 'menu', { duration: 15_000 }],
  ] as const) {
    const res = await made(t, 'POST', '/playables', {
      ...INTEGRATION,
      body: { subsystemExternalId: sub, externalRef: ref, ...body },
    });
    d.playables[`${sub}/${ref}`] = res._id;
  }
}

async function parametersPresetsPanels(t: TestApp, d: Devices): Promise<void> {
  for (const [sub, ref, body] of [
    ['audio-dsp', 'master', { type: 'number', min: -60, max: 12, step: 0.5, default: '0', unit: 'dB' }],
    ['audio-dsp', 'input', { type: 'enum', options: ['mic', 'line', 'usb'], value: 'line' }],
    ['audio-dsp', 'eq-on', { type: 'boolean', value: 'true' }],
    ['signage', 'colour', { type: 'color', value: '#FF8800' }],
    ['signage', 'headline', { type: 'string', value: 'Welcome' }],
  ] as const) {
    const res = await made(t, 'POST', '/parameters', {
      ...FIELD,
      body: { subsystemExternalId: sub, externalRef: ref, ...body },
    });
    d.parameters[`${sub}/${ref}`] = res._id;
  }
  await must(
    t,
    'PUT',
    `/parameters/${d.parameters['audio-dsp/master']}/value`,
    { ...OPERATOR, body: { value: '-6.5' } },
    200,
  );
  d.presets['audio-dsp/show'] = (
    await made(t, 'POST', '/presets', {
      ...OPERATOR,
      body: {
        subsystemExternalId: 'audio-dsp',
        externalRef: 'show',
        displayName: 'Show',
        parameters: [
          { parameter: 'master', value: '-3' },
          { parameter: d.parameters['audio-dsp/input'], value: 'mic' },
        ],
      },
    })
  )._id;
  d.presets['signage/closed'] = (
    await made(t, 'POST', '/presets', {
      ...ADMIN,
      body: {
        subsystemExternalId: 'signage',
        displayName: 'Closed',
        parameters: [{ parameter: 'headline', value: 'Closed' }],
      },
    })
  )._id;
  await must(t, 'POST', `/presets/${d.presets['audio-dsp/show']}/apply`, { ...OPERATOR, body: {} }, 200);

  for (const [sub, ref, url] of [
    ['media-1', 'main', 'http://10.0.0.5/panel'],
    ['show-ctrl', 'cues', 'https://show.local/cues'],
    ['signage', 'editor', 'http://signage.local/'],
  ] as const) {
    const res = await made(t, 'POST', '/controlpanels', {
      ...FIELD,
      body: { subsystemExternalId: sub, externalRef: ref, connection: { url } },
    });
    d.panels[`${sub}/${ref}`] = res._id;
  }
  for (const [key, extra] of [
    ['media-1/main', { displayName: 'Media (front desk)', scale: { enabled: true, width: 1280, height: 720 } }],
    ['show-ctrl/cues', { openExternally: true }],
    ['signage/editor', {}],
  ] as const) {
    const res = await made(t, 'POST', '/controlpanels', {
      ...ADMIN,
      query: { location: 'available' },
      body: { registeredPanelId: d.panels[key], ...extra },
    });
    d.panels[`${key}#available`] = res._id;
  }
  await must(t, 'PATCH', `/controlpanels/${d.panels['show-ctrl/cues']}`, { ...ADMIN, body: { active: false } }, 200);
}

/** Subsystems with heartbeats, then everything they register and people do with it. */
export async function buildDevices(t: TestApp): Promise<Devices> {
  const d: Devices = {
    subsystems: {},
    variables: {},
    events: {},
    playables: {},
    parameters: {},
    presets: {},
    panels: {},
  };
  await subsystemsAndHeartbeats(t, d);
  await variables(t, d);
  await eventsAndPlayables(t, d);
  await parametersPresetsPanels(t, d);
  return d;
}
