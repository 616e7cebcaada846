/**
 * The venue's equipment (§16): a site and a room as parents, infra assets monitored by subsystems
 * (one whose subsystem goes offline, one whose subsystem is deleted later, so it is left unlinked),
 * metrics attached to them (one with health on), a retired display, and a deleted asset whose metric
 * is detached.
 */
import type { TestApp } from './app';
import type { Devices } from './venue-devices';
import { ADMIN, INTEGRATION, made, must, need, OPERATOR } from './venue-kit';

/** The assets by name. */
export type Assets = Record<string, number>;

export async function buildAssets(t: TestApp, d: Devices): Promise<Assets> {
  const a: Assets = {};
  a.site = (await made(t, 'POST', '/assets', { ...ADMIN, body: { displayName: 'Main venue', type: 'site' } }))._id;
  a.room = (
    await made(t, 'PUT', '/asset', {
      ...OPERATOR,
      body: { displayName: 'Control room', type: 'room', parentId: a.site, tags: ['foh'] },
    })
  )._id;
  a.switch = (
    await made(t, 'POST', '/infra/assets', {
      ...INTEGRATION,
      body: {
        subsystemExternalId: 'show-ctrl',
        externalRef: 'core-switch',
        displayName: 'Core switch',
        type: 'switch',
        profileType: 'network_switch',
        parentId: a.room,
        manufacturer: 'Acme',
        metadata: { ip_address: '10.0.0.2' },
      },
    })
  )._id;
  a.processor = (
    await made(t, 'POST', '/infra/assets', {
      ...INTEGRATION,
      body: {
        subsystemExternalId: 'signage',
        externalRef: 'led-1',
        displayName: 'LED processor',
        profileType: 'led_processor',
        parentId: a.room,
        status: 'repair',
      },
    })
  )._id;
  a.dsp = (
    await made(t, 'POST', '/assets', {
      ...ADMIN,
      body: { subsystemExternalId: 'audio-dsp', externalRef: 'dsp', displayName: 'DSP', profileType: 'dsp' },
    })
  )._id;
  a.display = (
    await made(t, 'POST', '/assets', {
      ...ADMIN,
      body: { displayName: 'Old display', status: 'retired', parentId: a.room },
    })
  )._id;
  // Metrics: a port of the switch, the controller's temperature (health on), the DSP's gain and mute.
  const attach = async (key: string, assetId: number, fields: Record<string, unknown>) =>
    must(t, 'PATCH', `/variables/${need(d.variables, key)}`, { ...ADMIN, body: { assetId, ...fields } }, 200);
  await attach('show-ctrl/level', a.switch, { metricType: 'port', portNumber: 1, ifDesc: 'Gi0/1' });
  await attach('show-ctrl/temperature', a.switch, { metricType: 'temperature' });
  await attach('audio-dsp/gain', a.dsp, { metricType: 'gain' });
  await attach('signage/slide', a.processor, { metricType: 'slide' });
  // A spare asset deleted with its metric attached: the variable stays, detached.
  const spare = (await made(t, 'POST', '/assets', { ...ADMIN, body: { displayName: 'Spare', status: 'spare' } }))._id;
  await attach('audio-dsp/mute', spare, { metricType: 'mute' });
  await must(t, 'DELETE', `/assets/${spare}`, ADMIN, 204);
  return a;
}
