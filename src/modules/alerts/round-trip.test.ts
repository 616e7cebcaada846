/**
 * GET then PUT of the same body (C: Requests) for the rules a client cannot shape itself: the built-in
 * system rules (condition fields null, §8 rule 10) and a rule whose variable was deleted (its
 * `variable` names no variable any more, `inactiveReason` `variable_missing`).
 * tests/put-round-trip.test.ts covers a typical variable rule.
 */
import { describe, expect, it } from 'bun:test';
import { auditEntries } from '../../../tests/helpers/app';
import { SYSTEM_KINDS } from './model';
import { alertsApp } from './test-support';

async function putBack(t: Awaited<ReturnType<typeof alertsApp>>, id: number) {
  const before = await t.call('GET', `/alerts/${id}`, { as: 'admin' });
  const put = await t.call('PUT', `/alerts/${id}`, { as: 'admin', body: before.body });
  return { before: before.body, put };
}

describe('an alert read and sent back', () => {
  it.each(SYSTEM_KINDS.map((kind, i) => [kind, i + 1] as const))(
    'system rule %s (/alerts/%d) is accepted unchanged',
    async (kind, id) => {
      const t = await alertsApp();
      const { before, put } = await putBack(t, id);
      expect(before.systemKind).toBe(kind);
      expect({ status: put.status, body: put.body }).toEqual({ status: 200, body: before });
    },
  );

  it('a system rule still takes its writable fields from the same body', async () => {
    const t = await alertsApp();
    const before = (await t.call('GET', '/alerts/1', { as: 'admin' })).body;
    const put = await t.call('PUT', '/alerts/1', { as: 'admin', body: { ...before, criticality: 'critical' } });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ ...before, criticality: 'critical' });
  });

  it('a rule whose variable was deleted is accepted unchanged and stays inactive', async () => {
    const t = await alertsApp();
    const rule = await t.rule();
    expect((await t.call('DELETE', `/variables/${t.temp._id}`, { as: 'admin' })).status).toBe(204);
    const { before, put } = await putBack(t, rule._id);
    expect(before).toMatchObject({ variable: t.temp._id, active: false, inactiveReason: 'variable_missing' });
    expect({ status: put.status, body: put.body }).toEqual({ status: 200, body: before });
  });
});

describe('an alert update that changes nothing', () => {
  it('{} or the rule sent back: 200 with the rule as it is, _updatedAt kept, no alert.updated, no audit entry', async () => {
    const t = await alertsApp();
    const rule = await t.rule();
    const audits = auditEntries(t).length;
    t.events.length = 0;
    t.clock.advance(1000);
    for (const [method, body] of [
      ['PATCH', {}],
      ['PUT', {}],
      ['PUT', rule],
      ['PATCH', { displayName: rule.displayName, active: rule.active }],
    ] as const) {
      const res = await t.call(method, `/alerts/${rule._id}`, { as: 'admin', body });
      expect({ method, status: res.status, body: res.body }).toEqual({ method, status: 200, body: rule });
    }
    expect(t.events.filter((e) => e.type.startsWith('alert.') || e.type === 'log.created')).toEqual([]);
    expect(auditEntries(t)).toHaveLength(audits);
  });
});
