/**
 * Rules follow a variable a driver deletes and registers again (relink.ts): same subsystem
 * externalId + externalRef, new `_id`.
 */
import { describe, expect, it } from 'bun:test';
import { auditEntries } from '../../../tests/helpers/app';
import { type AlertsApp, alertsApp } from './test-support';

/** The driver's re-sync: delete `temp`, register it again (optionally with a value); the new variable. */
async function resync(t: AlertsApp, body: Record<string, unknown> = {}, subsystem = 'media') {
  expect((await t.call('DELETE', `/variables/${t.temp._id}`, { as: 'admin' })).status).toBe(204);
  return register(t, body, subsystem);
}

async function register(t: AlertsApp, body: Record<string, unknown> = {}, subsystem = 'media') {
  const res = await t.call('PUT', `/subsystems/${subsystem}/variables/temp`, {
    from: '127.0.0.1',
    body: { displayName: 'Temperature', ...body },
  });
  expect(res.status).toBe(201);
  return res.body as { _id: number; subsystemId: number };
}

describe('a rule whose variable a driver deletes and registers again', () => {
  it('re-links to the new variable, is active again and fires on its value; alert.updated, no audit entry', async () => {
    const t = await alertsApp();
    const a = await t.rule();
    await t.write('95');
    await t.call('DELETE', `/variables/${t.temp._id}`, { as: 'admin' });
    expect(await t.read(a._id)).toMatchObject({ active: false, inactiveReason: 'variable_missing' });
    const audits = auditEntries(t).filter((e) => e.key.startsWith('alert.')).length;
    t.events.length = 0;
    const fresh = await register(t);
    expect(fresh._id).not.toBe(t.temp._id);
    expect(await t.read(a._id)).toMatchObject({
      variable: fresh._id,
      active: true,
      inactiveReason: null,
      state: 'ok',
      subsystemExternalId: 'media',
      variableDisplayName: 'Temperature',
    });
    expect(t.emitted('alert.updated')).toEqual([{ _id: a._id, changed: ['variable', 'active', 'inactiveReason'] }]);
    expect(auditEntries(t).filter((e) => e.key.startsWith('alert.'))).toHaveLength(audits);
    await t.write('97', fresh._id);
    expect(await t.read(a._id)).toMatchObject({ state: 'firing', openIncidents: 1 });
    expect(t.emitted('alert.fired')).toEqual([
      expect.objectContaining({
        incident: expect.objectContaining({ source: expect.objectContaining({ id: fresh._id }) }),
      }),
    ]);
    expect(
      (await t.call('GET', '/alerts', { as: 'admin', query: { subsystemExternalId: 'media', variable: 'temp' } })).body,
    ).toEqual([expect.objectContaining({ _id: a._id })]);
  });

  it('is evaluated at once against the value the registration carries (rule 1)', async () => {
    const t = await alertsApp();
    const a = await t.rule();
    await resync(t, { lastValue: 99 });
    expect(await t.read(a._id)).toMatchObject({ active: true, state: 'firing', openIncidents: 1 });
    expect(t.emitted('alert.fired')).toHaveLength(1);
    expect(t.notices()).toEqual([expect.objectContaining({ state: 'shown', count: 1 })]);
    expect(await t.history({ state: 'open' })).toEqual([expect.objectContaining({ matchCount: 1, lastValue: '99' })]);
  });

  it('keeps edits made while it was missing', async () => {
    const t = await alertsApp();
    const a = await t.rule();
    await t.call('DELETE', `/variables/${t.temp._id}`, { as: 'admin' });
    const edit = await t.call('PATCH', `/alerts/${a._id}`, {
      as: 'operator',
      body: { value: '50', displayName: 'Warm' },
    });
    expect(edit.body).toMatchObject({ active: false, inactiveReason: 'variable_missing', value: '50' });
    const fresh = await register(t, { lastValue: '60' });
    expect(await t.read(a._id)).toMatchObject({
      variable: fresh._id,
      displayName: 'Warm',
      value: '50',
      active: true,
      state: 'firing',
    });
  });

  it('a rule an operator deactivated stays inactive; only its variable follows', async () => {
    const t = await alertsApp();
    const a = await t.rule();
    await t.call('PATCH', `/alerts/${a._id}`, { as: 'operator', body: { active: false } });
    t.events.length = 0;
    const fresh = await resync(t, { lastValue: '95' });
    expect(await t.read(a._id)).toMatchObject({
      variable: fresh._id,
      active: false,
      inactiveReason: null,
      state: 'inactive',
    });
    expect(t.emitted('alert.updated')).toEqual([{ _id: a._id, changed: ['variable'] }]);
    await t.write('96', fresh._id);
    expect(t.emitted('alert.fired')).toEqual([]);
    // Switched on again by the operator, it watches the live variable.
    await t.call('PATCH', `/alerts/${a._id}`, { as: 'operator', body: { active: true } });
    expect(await t.read(a._id)).toMatchObject({ active: true, state: 'firing' });
  });

  it("a rule on another subsystem's variable with the same externalRef is not touched", async () => {
    const t = await alertsApp();
    await t.call('POST', '/subsystems', { as: 'admin', body: { externalId: 'lights' } });
    const other = await register(t, {}, 'lights');
    const a = await t.rule();
    const b = await t.rule({ variable: other._id });
    expect((await t.call('DELETE', `/variables/${other._id}`, { as: 'admin' })).status).toBe(204);
    t.events.length = 0;
    const fresh = await resync(t);
    expect(await t.read(a._id)).toMatchObject({ variable: fresh._id, active: true });
    expect(await t.read(b._id)).toMatchObject({
      variable: other._id,
      active: false,
      inactiveReason: 'variable_missing',
    });
    expect(t.emitted('alert.updated').filter((e) => e._id === b._id)).toEqual([]);
    const back = await register(t, {}, 'lights');
    expect(await t.read(b._id)).toMatchObject({ variable: back._id, active: true, subsystemExternalId: 'lights' });
    expect(await t.read(a._id)).toMatchObject({ variable: fresh._id, active: true });
  });

  it('a rule whose variable is live is never moved, and one pointed at another variable while missing stays there', async () => {
    const t = await alertsApp();
    await t.call('POST', '/subsystems', { as: 'admin', body: { externalId: 'lights' } });
    const other = await register(t, {}, 'lights');
    const a = await t.rule();
    await t.call('DELETE', `/variables/${t.temp._id}`, { as: 'admin' });
    const moved = await t.call('PATCH', `/alerts/${a._id}`, { as: 'operator', body: { variable: other._id } });
    expect(moved.body).toMatchObject({ variable: other._id, active: false, inactiveReason: null });
    await register(t);
    expect(await t.read(a._id)).toMatchObject({ variable: other._id, active: false, subsystemExternalId: 'lights' });
  });

  it('the subsystem deleted and created again with the same externalId: its variables re-link the rules', async () => {
    const t = await alertsApp();
    const a = await t.rule();
    const alive = (await t.call('GET', '/subsystems/media/variables/is_alive', { as: 'admin' })).body;
    const b = await t.rule({ variable: alive._id, operator: '==', value: 'false' });
    expect((await t.call('DELETE', '/subsystems/media', { as: 'admin' })).status).toBe(204);
    expect(await t.read(a._id)).toMatchObject({ active: false, inactiveReason: 'variable_missing' });
    expect(await t.read(b._id)).toMatchObject({ active: false, inactiveReason: 'variable_missing' });
    const created = await t.call('POST', '/subsystems', { as: 'admin', body: { externalId: 'media' } });
    expect(created.status).toBe(201);
    const aliveAgain = (await t.call('GET', '/subsystems/media/variables/is_alive', { as: 'admin' })).body;
    expect(await t.read(b._id)).toMatchObject({
      variable: aliveAgain._id,
      active: true,
      subsystemId: created.body._id,
      state: 'firing',
    });
    expect(aliveAgain.lastValue).toBe('false');
    expect(await t.read(a._id)).toMatchObject({ active: false, inactiveReason: 'variable_missing' });
    const fresh = await register(t, { lastValue: '91.5' });
    expect(await t.read(a._id)).toMatchObject({
      variable: fresh._id,
      subsystemId: created.body._id,
      active: true,
      state: 'firing',
    });
    expect(
      (await t.call('GET', '/alerts', { as: 'admin', query: { subsystemExternalId: 'media', type: 'variable' } })).body,
    ).toHaveLength(2);
  });

  it("follows the subsystem's new externalId", async () => {
    const t = await alertsApp();
    const a = await t.rule();
    const renamed = await t.call('PATCH', `/subsystems/${t.media._id}`, {
      as: 'admin',
      body: { externalId: 'media-2' },
    });
    expect(renamed.status).toBe(200);
    expect((await t.call('DELETE', `/variables/${t.temp._id}`, { as: 'admin' })).status).toBe(204);
    const fresh = await register(t, {}, 'media-2');
    expect(await t.read(a._id)).toMatchObject({ variable: fresh._id, active: true });
  });

  it("a limited token's re-registration re-links; one limited to another subsystem is refused and re-links nothing", async () => {
    const t = await alertsApp();
    const a = await t.rule();
    await t.call('POST', '/subsystems', { as: 'admin', body: { externalId: 'lights' } });
    const lights = (await t.call('GET', '/subsystems/lights', { as: 'admin' })).body;
    const integration = (await t.call('GET', '/roles/integration', { as: 'admin' })).body;
    const tokenFor = async (subsystemId: number) => {
      const res = await t.call('POST', '/tokens', {
        as: 'admin',
        body: { displayName: `driver ${subsystemId}`, roleId: integration._id, subsystemIds: [subsystemId] },
      });
      expect(res.status).toBe(201);
      return res.body.token as string;
    };
    const driver = await tokenFor(t.media._id);
    const stranger = await tokenFor(lights._id);
    const del = await t.call('DELETE', `/variables/${t.temp._id}`, { headers: { 'isaac-token': driver } });
    expect(del.status).toBe(204);
    const body = { displayName: 'Temperature', lastValue: '95' };
    const refused = await t.call('PUT', '/subsystems/media/variables/temp', {
      headers: { 'isaac-token': stranger },
      body,
    });
    expect(refused.status).toBe(403);
    expect(await t.read(a._id)).toMatchObject({ active: false, inactiveReason: 'variable_missing' });
    const anonymous = await t.call('PUT', '/subsystems/media/variables/temp', { body });
    expect(anonymous.status).toBe(401);
    const put = await t.call('PUT', '/subsystems/media/variables/temp', { headers: { 'isaac-token': driver }, body });
    expect(put.status).toBe(201);
    expect(await t.read(a._id)).toMatchObject({ variable: put.body._id, active: true, state: 'firing' });
  });

  it('survives a restart: a rule missing before it re-links after it', async () => {
    const first = await alertsApp();
    const a = await first.rule();
    await first.call('DELETE', `/variables/${first.temp._id}`, { as: 'admin' });
    first.deps.sqlite.close();
    const t = await alertsApp({ dataDir: first.deps.config.dataDir });
    expect(await t.read(a._id)).toMatchObject({ active: false, inactiveReason: 'variable_missing' });
    const put = await t.call('PUT', '/subsystems/media/variables/temp', {
      from: '127.0.0.1',
      body: { lastValue: '95' },
    });
    expect(put.status).toBe(201);
    expect(await t.read(a._id)).toMatchObject({ variable: put.body._id, active: true, state: 'firing' });
  });
});
