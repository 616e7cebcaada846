import { describe, expect, it } from 'bun:test';
import { toVariableDto, variableDtoJson, variableRefJson } from './mapper';
import { loadForWrite } from './repo';
import type { LoadedVariable } from './state';
import { variableApp } from './test-support';

const routeJson = (row: LoadedVariable, now: number) => variableDtoJson(toVariableDto(row, now));

describe('variableRefJson, the answer of the door of the writes by reference', () => {
  it('is the routes’ answer byte for byte, for every kind of variable and after value writes', async () => {
    const t = variableApp();
    const rack = await t.call('POST', '/assets', { as: 'admin', body: { displayName: 'Rack "A"' } });
    const plain = await t.make({ externalRef: 'plain' });
    const full = await t.make({
      externalRef: 'full',
      displayName: 'Room temp',
      description: 'line\nbreak "quoted" \u2028',
      type: 'number',
      unit: '°C',
      valueMapping: { '1': 'on' },
      tags: 'a, b',
      log: true,
      healthEnabled: true,
      healthGracePeriod: 45,
      healthRules: [['warning', '>', 50]],
      alert: true,
      assetId: rack.body._id,
      metricType: 'cpu',
      portNumber: 2,
      ifDesc: 'eth0',
    });
    const composite = await t.make({
      externalRef: 'sum',
      composite: true,
      compositeDefinition: ['sum', String(plain._id), String(full._id)],
    });
    const now = t.clock.now();
    for (const id of [plain._id, full._id, composite._id]) {
      const row = loadForWrite(t.deps, id);
      if (!row) throw new Error(`no row ${id}`);
      expect(variableRefJson(row, now)).toBe(routeJson(row, now));
      // The row as later writes leave it, the template kept (a copy keeps it too): only the changing fields move.
      const next: LoadedVariable = {
        ...row,
        lastValue: 'new "value" \\ é',
        lastValueUpdatedAt: now + 1500,
        updatedAt: now + 1500,
        healthState: 2,
        healthPendingState: 3,
        healthPendingSince: now,
      };
      expect(variableRefJson(next, now + 2000)).toBe(routeJson(next, now + 2000));
      expect(JSON.parse(variableRefJson(next, now + 2000))).toMatchObject({
        lastValue: 'new "value" \\ é',
        healthGracePeriodRemaining: expect.any(Number),
      });
    }
  });

  it('answers what the write stored, through the door', async () => {
    const t = variableApp();
    await t.make({ externalRef: 'temp', unit: 'K' });
    for (const value of [1, 'two', '']) {
      const res = await t.call('PUT', '/subsystems/media/variables/temp/lastValue', {
        from: '127.0.0.1',
        body: { value },
      });
      expect(res.status).toBe(200);
      const row = loadForWrite(t.deps, res.body._id);
      if (!row) throw new Error('no row');
      expect(res.text).toBe(routeJson(row, t.clock.now()));
      expect(res.body).toMatchObject({ lastValue: String(value), unit: 'K' });
    }
  });
});
