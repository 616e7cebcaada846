import { describe, expect, it } from 'bun:test';
import { makeTestApp } from '../../tests/helpers/app';
import { findRow, insertRow, updateRow } from './prepared';
import { alertIncidents, alertRules } from './schema';

describe('insertRow / updateRow: prepared per set of columns, values mapped as drizzle maps them', () => {
  function withRule() {
    const t = makeTestApp();
    const rule = t.deps.db.select().from(alertRules).get();
    if (!rule) throw new Error('no system rule');
    const incident = insertRow(t.deps, 'test.incidents', alertIncidents, {
      alertId: rule.id,
      sourceType: 'subsystem',
      sourceId: 7,
      state: 'open',
      firedAt: 1000,
      matchCount: 1,
      notified: false,
      createdAt: 1000,
      updatedAt: 1000,
    });
    return { t, rule, incident };
  }

  it('inserts and returns the stored row with booleans as booleans', () => {
    const { incident } = withRule();
    expect(incident).toMatchObject({ sourceId: 7, state: 'open', notified: false, locked: false, closedAt: null });
  });

  it('updates only the columns given (undefined leaves one out), one statement per shape', () => {
    const { t, incident } = withRule();
    const a = updateRow(t.deps, 'test.incidents', alertIncidents, alertIncidents.id, incident.id, {
      notified: true,
      lastNotifiedAt: 2000,
      lastValue: undefined,
    });
    expect(a).toMatchObject({ notified: true, lastNotifiedAt: 2000, state: 'open', matchCount: 1 });
    const b = updateRow(t.deps, 'test.incidents', alertIncidents, alertIncidents.id, incident.id, {
      state: 'closed',
      closedAt: 3000,
      locked: true,
    });
    expect(b).toMatchObject({ notified: true, state: 'closed', closedAt: 3000, locked: true });
    updateRow(t.deps, 'test.incidents', alertIncidents, alertIncidents.id, incident.id, {
      lastNotifiedAt: 4000,
      notified: false,
    });
    const shapes = [...t.deps.statements.sets.keys()].filter((k) => k.startsWith('test.incidents.update:'));
    expect(shapes.sort()).toEqual([
      'test.incidents.update:lastNotifiedAt,notified',
      'test.incidents.update:notified,lastNotifiedAt',
      'test.incidents.update:state,closedAt,locked',
    ]);
    expect(t.deps.db.select().from(alertIncidents).get()).toMatchObject({ notified: false, lastNotifiedAt: 4000 });
  });

  it('answers undefined for an id with no row and changes nothing', () => {
    const { t, incident } = withRule();
    expect(updateRow(t.deps, 'test.incidents', alertIncidents, alertIncidents.id, 999, { state: 'closed' })).toBe(
      undefined,
    );
    expect(t.deps.db.select().from(alertIncidents).get()).toEqual(incident);
  });
});

describe('findRow: a row by one column, prepared once under its name', () => {
  it('finds by a number or a text, maps the row as drizzle does, answers undefined for no row, and prepares once', () => {
    const t = makeTestApp();
    const rule = t.deps.db.select().from(alertRules).get();
    if (!rule) throw new Error('no system rule');
    const byId = findRow(t.deps, 'test.rules.byId', alertRules, alertRules.id, rule.id);
    expect(byId).toEqual(rule);
    expect(typeof byId?.recovery).toBe('boolean');
    expect(findRow(t.deps, 'test.rules.byId', alertRules, alertRules.id, 987654)).toBeUndefined();
    const kind = rule.systemKind;
    if (kind === null) throw new Error('a system rule has its kind');
    expect(findRow(t.deps, 'test.rules.byKind', alertRules, alertRules.systemKind, kind)?.id).toBe(rule.id);
    const statement = t.deps.statements.sets.get('test.rules.byId');
    findRow(t.deps, 'test.rules.byId', alertRules, alertRules.id, rule.id);
    expect(t.deps.statements.sets.get('test.rules.byId')).toBe(statement);
  });
});
