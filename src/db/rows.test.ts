import { describe, expect, it } from 'bun:test';
import { asc, eq, sql } from 'drizzle-orm';
import { makeTestApp } from '../../tests/helpers/app';
import { loadedColumns } from '../modules/variables/repo';
import { mapRows } from './rows';
import { subsystems, variables } from './schema';

describe('mapRows', () => {
  it('maps rows as drizzle does: booleans, JSON, nulls, sql fields with and without mapWith', async () => {
    const t = makeTestApp();
    const rack = await t.call('POST', '/assets', { as: 'admin', body: { displayName: 'Rack', type: 'rack' } });
    await t.call('POST', '/subsystems', { as: 'admin', body: { externalId: 'media', displayName: 'Media' } });
    for (const body of [
      { externalRef: 'plain' },
      {
        externalRef: 'full',
        valueMapping: { '1': 'on' },
        tags: ['a', 'b'],
        log: true,
        healthEnabled: true,
        healthRules: [['warning', '>', 50]],
        unit: '°C',
        assetId: rack.body._id,
      },
    ]) {
      const res = await t.call('POST', '/variables', { as: 'admin', body: { subsystemExternalId: 'media', ...body } });
      expect(res.status).toBe(201);
    }
    const select = t.deps.db
      .select(loadedColumns)
      .from(variables)
      .innerJoin(subsystems, eq(subsystems.id, variables.subsystemId))
      .orderBy(asc(variables.id));
    const mapped = mapRows<ReturnType<typeof select.all>[number]>(loadedColumns, select.values());
    expect(mapped).toEqual(select.all());
    expect(mapped.length).toBeGreaterThan(2);
    expect(mapped.find((r) => r.externalRef === 'full')).toMatchObject({
      log: true,
      tags: ['a', 'b'],
      valueMapping: { '1': 'on' },
      assetDisplayName: 'Rack',
      unit: '°C',
    });
    const counted = { id: variables.id, n: sql<number>`count(*)`.mapWith(String).as('n') };
    const grouped = t.deps.db.select(counted).from(variables).groupBy(variables.id);
    expect(mapRows(counted, grouped.values())).toEqual(grouped.all());
    expect(grouped.all()[0]?.n).toBe('1');
  });

  it('refuses a nested selection', () => {
    expect(() => mapRows({ variable: { id: variables.id } }, [[1]])).toThrow('flat selection');
  });
});
