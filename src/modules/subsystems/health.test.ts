import { describe, expect, it } from 'bun:test';
import { runFor } from '../../../tests/helpers/app';
import { putSettingGroup } from '../../core/settings';
import { OFFLINE_PER_TURN, tickHealth } from './health';
import { upsertSubsystem } from './service';
import { restarted, subsystemApp as setup } from './test-support';

const T0 = '2026-01-15T12:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();

async function online(externalId = 'media', body: Record<string, unknown> = {}) {
  const t = setup();
  const created = await t.create({ externalId, ...body });
  await t.beat(externalId);
  return { ...t, id: created.body._id as number };
}

describe('health state machine', () => {
  it('a subsystem never seen stays unknown and raises nothing', async () => {
    const t = setup();
    const { body } = await t.create({ externalId: 'media' });
    t.clock.advance(24 * 3600_000);
    tickHealth(t.deps);
    expect(await t.read(body._id)).toMatchObject({
      status: 'unknown',
      isAlive: false,
      healthState: -1,
      healthGracePeriodRemaining: null,
      lastContactedAt: null,
      statusChangedAt: null,
    });
    expect(t.events.filter((e) => /online|offline/.test(e.type))).toEqual([]);
    expect(t.systemLog()).toEqual([]);
  });

  it('first contact: unknown → online with subsystem.online, a system log entry and the status persisted', async () => {
    const t = await online();
    expect(t.emitted('subsystem.online')).toEqual([
      { _id: t.id, externalId: 'media', status: 'online', lastContactedAt: T0, recovered: false },
    ]);
    expect(await t.read(t.id)).toMatchObject({
      status: 'online',
      isAlive: true,
      healthState: 0,
      healthGracePeriodRemaining: 30,
      lastContactedAt: T0,
      statusChangedAt: T0,
    });
    expect(t.row(t.id)).toMatchObject({
      status: 'online',
      lastContactedAt: Date.parse(T0),
      statusChangedAt: Date.parse(T0),
    });
    expect(t.systemLog()).toEqual(['subsystem.online: subsystem media is online']);
  });

  it('turns offline exactly when the grace period has passed without contact, not 1 ms before', async () => {
    const t = await online();
    t.clock.advance(29_999);
    tickHealth(t.deps);
    expect(await t.read(t.id)).toMatchObject({ status: 'online', healthGracePeriodRemaining: 1 });
    expect(t.emitted('subsystem.offline')).toEqual([]);
    t.clock.advance(1);
    tickHealth(t.deps);
    expect(t.emitted('subsystem.offline')).toEqual([
      { _id: t.id, externalId: 'media', status: 'offline', lastContactedAt: T0 },
    ]);
    expect(await t.read(t.id)).toMatchObject({
      status: 'offline',
      isAlive: false,
      healthState: 2,
      healthGracePeriodRemaining: null,
      lastContactedAt: T0,
      statusChangedAt: at(30_000),
    });
    expect(t.row(t.id)).toMatchObject({ status: 'offline', statusChangedAt: Date.parse(at(30_000)) });
    t.clock.advance(60_000);
    tickHealth(t.deps);
    expect(t.emitted('subsystem.offline')).toHaveLength(1);
    expect(t.systemLog()).toEqual([
      'subsystem.online: subsystem media is online',
      'subsystem.offline: subsystem media is offline: no contact for 30 s',
    ]);
  });

  it('uses its own grace period, else the setting', async () => {
    const t = await online('own', { healthGracePeriod: 5 });
    await t.create({ externalId: 'dflt' });
    putSettingGroup(t.deps, 'health', { defaultGracePeriodSeconds: 8 });
    await t.beat('dflt');
    t.clock.advance(5000);
    tickHealth(t.deps);
    expect(t.emitted('subsystem.offline').map((d) => d.externalId)).toEqual(['own']);
    expect((await t.read('dflt')).healthGracePeriodRemaining).toBe(3);
    t.clock.advance(3000);
    tickHealth(t.deps);
    expect(t.emitted('subsystem.offline').map((d) => d.externalId)).toEqual(['own', 'dflt']);
  });

  it('contact within the grace period keeps it online and restarts the grace period', async () => {
    const t = await online();
    for (let i = 0; i < 5; i++) {
      t.clock.advance(25_000);
      tickHealth(t.deps);
      await t.beat('media');
    }
    t.clock.advance(29_000);
    tickHealth(t.deps);
    expect((await t.read(t.id)).status).toBe('online');
    expect(t.emitted('subsystem.online')).toHaveLength(1);
    expect(t.emitted('subsystem.offline')).toEqual([]);
  });

  it('offline → online on contact carries recovered and the downtime', async () => {
    const t = await online();
    t.clock.advance(30_000);
    tickHealth(t.deps);
    t.clock.advance(12_400);
    await t.beat('media');
    expect(t.emitted('subsystem.online')[1]).toEqual({
      _id: t.id,
      externalId: 'media',
      status: 'online',
      lastContactedAt: at(42_400),
      recovered: true,
      downtimeSeconds: 12,
    });
    expect(await t.read(t.id)).toMatchObject({ status: 'online', statusChangedAt: at(42_400) });
    expect(t.systemLog()[2]).toBe('subsystem.online: subsystem media is online again after 12 s offline');
  });

  it('wall-clock jumps never make anything offline; the grace period runs on the monotonic clock', async () => {
    const t = await online();
    t.clock.setWall(Date.parse(T0) + 7 * 24 * 3600_000);
    tickHealth(t.deps);
    t.clock.setWall(Date.parse(T0) - 3600_000);
    tickHealth(t.deps);
    expect((await t.read(t.id)).status).toBe('online');
    t.clock.advance(29_999);
    tickHealth(t.deps);
    expect(t.emitted('subsystem.offline')).toEqual([]);
    t.clock.advance(1);
    tickHealth(t.deps);
    expect(t.emitted('subsystem.offline')).toHaveLength(1);
  });

  it('a stall of the appliance itself is no missed heartbeat: the tick right after it turns nobody offline', async () => {
    const t = setup();
    const ids = ['media', 'lights', 'gone'];
    for (const id of ids) {
      await t.create({ externalId: id });
      await t.beat(id);
    }
    runFor(t, 20_000, () => tickHealth(t.deps));
    await t.beat('media');
    await t.beat('lights');
    // The daemon stalls 10 minutes (a VM paused); the heartbeats of those minutes wait in the sockets
    // and the health tick runs before they are read.
    t.clock.advance(10 * 60_000);
    tickHealth(t.deps);
    expect(t.emitted('subsystem.offline')).toEqual([]);
    // Its first second counts as listening time.
    expect((await t.read('media')).healthGracePeriodRemaining).toBe(29);
    expect((await t.read('gone')).healthGracePeriodRemaining).toBe(9);
    await t.beat('media');
    await t.beat('lights');
    // `gone` really went silent: 30 s of listening after its last heartbeat, it is offline, alone.
    runFor(t, 8000, () => tickHealth(t.deps));
    expect(t.emitted('subsystem.offline')).toEqual([]);
    runFor(t, 1000, () => tickHealth(t.deps));
    expect(t.emitted('subsystem.offline').map((d) => d.externalId)).toEqual(['gone']);
    for (const id of ['media', 'lights']) expect((await t.read(id)).status).toBe('online');
  });

  it('healthEnabled false → disabled (no evaluation), true → online with a fresh grace period when seen before', async () => {
    const t = await online();
    const off = await t.call('PATCH', `/subsystems/${t.id}`, { as: 'admin', body: { healthEnabled: false } });
    expect(off.body).toMatchObject({
      status: 'disabled',
      isAlive: false,
      healthState: -1,
      healthGracePeriodRemaining: null,
    });
    expect(t.emitted('subsystem.updated').at(-1)).toMatchObject({ status: 'disabled', changed: ['healthEnabled'] });
    expect(t.row(t.id)?.status).toBe('disabled');
    t.clock.advance(3600_000);
    tickHealth(t.deps);
    await t.beat('media');
    const disabled = await t.read(t.id);
    expect(disabled).toMatchObject({ status: 'disabled', lastContactedAt: at(3600_000) });
    expect(disabled.heartbeat.count).toBe(2);
    t.clock.advance(10_000);
    const on = await t.call('PATCH', `/subsystems/${t.id}`, { as: 'admin', body: { healthEnabled: true } });
    expect(on.body).toMatchObject({ status: 'online', isAlive: true, healthGracePeriodRemaining: 30 });
    expect(t.emitted('subsystem.updated').at(-1)).toMatchObject({ status: 'online', changed: ['healthEnabled'] });
    expect(t.emitted('subsystem.offline')).toEqual([]);
    expect(t.emitted('subsystem.online')).toHaveLength(1);
    t.clock.advance(30_000);
    tickHealth(t.deps);
    expect(t.emitted('subsystem.offline')).toHaveLength(1);
  });

  it('healthEnabled back to true on a subsystem never seen → unknown', async () => {
    const t = setup();
    const { body } = await t.create({ externalId: 'media', healthEnabled: false });
    expect(body.status).toBe('disabled');
    const on = await t.call('PUT', '/subsystems/media', { as: 'admin', body: { healthEnabled: 'true' } });
    expect(on.body.status).toBe('unknown');
    expect(t.row(body._id)?.status).toBe('unknown');
  });

  it('lastContactedAt reaches the row at most every 10 s between status changes', async () => {
    const t = await online();
    t.clock.advance(5000);
    await t.beat('media');
    expect(t.row(t.id)?.lastContactedAt).toBe(Date.parse(T0));
    expect((await t.read(t.id)).lastContactedAt).toBe(at(5000));
    t.clock.advance(5000);
    await t.beat('media');
    expect(t.row(t.id)?.lastContactedAt).toBe(Date.parse(at(10_000)));
    t.clock.advance(9000);
    await t.beat('media');
    expect(t.row(t.id)?.lastContactedAt).toBe(Date.parse(at(10_000)));
    t.clock.advance(30_000);
    tickHealth(t.deps);
    expect(t.row(t.id)).toMatchObject({ status: 'offline', lastContactedAt: Date.parse(at(19_000)) });
  });

  it('the list filter status uses the live status', async () => {
    const t = await online();
    await t.create({ externalId: 'other' });
    const ids = async (status: string) =>
      (await t.call('GET', '/subsystems', { as: 'admin', query: { status } })).body.map(
        (s: { externalId: string }) => s.externalId,
      );
    expect(await ids('online')).toEqual(['media']);
    expect(await ids('unknown')).toEqual(['other']);
    t.clock.advance(30_000);
    tickHealth(t.deps);
    expect(await ids('online')).toEqual([]);
    expect(await ids('offline')).toEqual(['media']);
  });
});

describe('many going offline at once', () => {
  it(`turns ${OFFLINE_PER_TURN} offline in the tick and the rest in the next turns, each checked again`, async () => {
    const t = setup();
    const count = OFFLINE_PER_TURN * 2 + 30;
    for (let n = 1; n <= count; n++) upsertSubsystem(t.deps, { externalId: `d${n}` });
    for (let n = 1; n <= count; n++) expect((await t.beat(`d${n}`)).status).toBe(200);
    t.clock.advance(30_000);
    tickHealth(t.deps);
    expect(t.emitted('subsystem.offline')).toHaveLength(OFFLINE_PER_TURN);
    // One that calls in before its turn stays online.
    await t.beat(`d${count}`);
    // A tick before the backlog is worked off does not turn anyone offline twice.
    tickHealth(t.deps);
    for (let turn = 0; turn < 10 && t.emitted('subsystem.offline').length < count - 1; turn++) await Bun.sleep(0);
    const offline = t.emitted('subsystem.offline').map((e) => e.externalId);
    expect(offline).toEqual(Array.from({ length: count - 1 }, (_, i) => `d${i + 1}`));
    expect((await t.read(`d${count}`)).status).toBe('online');
    expect(t.deps.health.offlineBacklog).toEqual([]);
  });
});

describe('daemon restart (rule 6)', () => {
  it('online ones get a fresh grace period from the start; offline ones stay offline without a second event', async () => {
    const first = setup();
    const a = (await first.create({ externalId: 'a' })).body._id;
    const b = (await first.create({ externalId: 'b', healthGracePeriod: 10 })).body._id;
    await first.create({ externalId: 'c' });
    await first.beat('a');
    await first.beat('b');
    first.clock.advance(10_000);
    tickHealth(first.deps);
    first.clock.advance(15_000);
    await first.beat('a');
    expect(first.row(b)?.status).toBe('offline');

    const second = restarted(first, '2026-01-15T13:00:00.000Z');
    expect(await second.read(a)).toMatchObject({
      status: 'online',
      lastContactedAt: at(25_000),
      healthGracePeriodRemaining: 30,
      heartbeat: { lastAt: null, remoteAddress: null, intervalMs: null, count: 0 },
    });
    expect(await second.read(b)).toMatchObject({ status: 'offline', statusChangedAt: at(10_000) });
    expect((await second.read('c')).status).toBe('unknown');
    second.clock.advance(29_999);
    tickHealth(second.deps);
    expect(second.emitted('subsystem.offline')).toEqual([]);
    second.clock.advance(1);
    tickHealth(second.deps);
    expect(second.emitted('subsystem.offline')).toEqual([
      { _id: a, externalId: 'a', status: 'offline', lastContactedAt: at(25_000) },
    ]);
    await second.beat('b');
    expect(second.emitted('subsystem.online')).toEqual([
      {
        _id: b,
        externalId: 'b',
        status: 'online',
        lastContactedAt: '2026-01-15T13:00:30.000Z',
        recovered: true,
        downtimeSeconds: 3620,
      },
    ]);
    second.deps.sqlite.close();
  });
});
