/** The `asset-health` system rule (§8 rule 10 with an asset as source, §16): one incident per asset. */
import { describe, expect, it } from 'bun:test';
import { tickVariableHealth } from '../variables/health';
import { assetsApp as setup } from './test-support';

const HEALTH = {
  healthEnabled: true,
  healthGracePeriod: 1,
  healthRules: [
    ['warning', '>', 50],
    ['error', '>', 90],
  ],
};

type App = Awaited<ReturnType<typeof setup>>;

async function send(t: App, id: number, value: string): Promise<void> {
  expect((await t.call('POST', `/variables/${id}/value`, { as: 'admin', body: { value } })).status).toBe(200);
  t.clock.advance(1000);
  await tickVariableHealth(t.deps);
}

const incidents = async (t: App, sourceType: string) =>
  (await t.call('GET', '/alerts/history', { as: 'admin', query: { sourceType } })).body as Array<{
    source: { type: string; id: number; displayName: string };
    state: string;
    closedReason: string | null;
    lastValue: string | null;
    matchCount: number;
  }>;

const ruleOf = async (t: App, kind: string) =>
  (
    (await t.call('GET', '/alerts', { as: 'admin', query: { type: 'system' } })).body as Array<{
      _id: number;
      systemKind: string;
    }>
  ).find((r) => r.systemKind === kind);

describe('asset-health', () => {
  it('opens one incident per asset in warning or error, named after it; healthy recovers it; the metrics raise none of their own', async () => {
    const t = await setup();
    const a = await t.make({ displayName: 'Projector 3', externalRef: 'p3', subsystemExternalId: 'snmp-1' });
    const fan = await t.metric('fan', { assetId: a, ...HEALTH });
    const lamp = await t.metric('lamp', { assetId: a, ...HEALTH });
    const plain = await t.metric('plain', HEALTH);
    await send(t, fan._id, '95');
    await send(t, lamp._id, '60');
    await send(t, plain._id, '95');
    const open = await incidents(t, 'asset');
    expect(open).toEqual([
      expect.objectContaining({
        source: expect.objectContaining({ type: 'asset', id: a, displayName: 'Projector 3' }),
        state: 'open',
        lastValue: 'error',
      }),
    ]);
    // A variable that is no asset's metric keeps its own incident.
    expect((await incidents(t, 'variable')).map((i) => i.source.id)).toEqual([plain._id]);
    const rule = await ruleOf(t, 'asset-health');
    const notices = (await t.call('GET', '/notifications', { as: 'admin' })).body as Array<{
      key: string;
      title: string;
    }>;
    expect(notices.filter((n) => n.key === `alert:${rule?._id}:${a}`).map((n) => n.title)).toEqual([
      'Asset health: Projector 3',
    ]);
    expect(t.events.filter((e) => e.type === 'alert.fired')).toHaveLength(2);
    // The fan recovers: the lamp keeps the asset in warning, the incident stays open.
    await send(t, fan._id, '10');
    expect((await incidents(t, 'asset'))[0]).toMatchObject({ state: 'open', lastValue: 'warning' });
    await send(t, lamp._id, '10');
    expect((await incidents(t, 'asset'))[0]).toMatchObject({ state: 'closed', closedReason: 'recovered' });
    expect(
      t.events.filter((e) => e.type === 'alert.recovered').map((e) => (e.data.incident as { source: unknown }).source),
    ).toEqual([expect.objectContaining({ type: 'asset', id: a })]);
  });

  it('an asset that becomes unknown or is deleted closes its incident without a recovery notice', async () => {
    const t = await setup();
    const a = await t.make({ displayName: 'Switch' });
    const cpu = await t.metric('cpu', { assetId: a, ...HEALTH });
    await send(t, cpu._id, '95');
    expect((await incidents(t, 'asset'))[0]?.state).toBe('open');
    // Detached: the asset has no metric left, unknown.
    expect((await t.call('PATCH', `/variables/${cpu._id}`, { as: 'admin', body: { assetId: null } })).status).toBe(200);
    expect((await incidents(t, 'asset'))[0]).toMatchObject({ state: 'closed', closedReason: 'recovered' });
    expect(t.events.filter((e) => e.type === 'alert.recovered')).toHaveLength(1);
    const b = await t.make({ displayName: 'Router' });
    const mem = await t.metric('mem', { assetId: b, ...HEALTH });
    await send(t, mem._id, '95');
    expect((await t.call('DELETE', `/assets/${b}`, { as: 'admin' })).status).toBe(204);
    expect((await incidents(t, 'asset')).map((i) => [i.source.id, i.state])).toEqual([
      [b, 'closed'],
      [a, 'closed'],
    ]);
    const notices = (await t.call('GET', '/notifications', { as: 'admin' })).body as Array<{ key: string }>;
    expect(notices.filter((n) => n.key.endsWith(':recovered'))).toEqual([]);
  });

  it('with asset-health off, variable-health reports the metrics themselves', async () => {
    const t = await setup();
    const a = await t.make({ displayName: 'Display' });
    const temp = await t.metric('temp', { assetId: a, ...HEALTH });
    const rule = await ruleOf(t, 'asset-health');
    const off = await t.call('PATCH', `/alerts/${rule?._id}`, { as: 'admin', body: { active: false } });
    expect(off.status).toBe(200);
    await send(t, temp._id, '95');
    expect(await incidents(t, 'asset')).toEqual([]);
    expect((await incidents(t, 'variable')).map((i) => [i.source.id, i.lastValue])).toEqual([[temp._id, 'error']]);
  });
});
