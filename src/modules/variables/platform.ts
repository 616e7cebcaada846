/**
 * The platform-managed pair every subsystem has (§3 rule 3, §4 rule 7): `is_alive` ("true"/"false",
 * with history) and `last_contacted_at` (ISO time or "", without history). Only the platform sets
 * their values; clients may change displayName, tags, log and alert.
 *
 * Both functions are synchronous and run as a unit of work, joining the one open (a writer job, or a
 * subsystem create's `transact`): the change and its events commit together (§10 rule 3).
 */

import { variables } from '../../db/schema';
import type { Deps } from '../../deps';
import { notFound } from '../../http/errors';
import { transact } from '../../realtime/emit';
import { WRITABLE_FIELDS } from './fields';
import { findVariableByRef } from './repo';
import { applyValue } from './values';

export type PlatformVariable = 'is_alive' | 'last_contacted_at';

const PAIR: ReadonlyArray<{ ref: PlatformVariable; value: string; type: string; storeHistory: boolean }> = [
  { ref: 'is_alive', value: 'false', type: 'boolean', storeHistory: true },
  { ref: 'last_contacted_at', value: '', type: 'string', storeHistory: false },
];

/** Creates the subsystem's `is_alive` and `last_contacted_at` when missing. Idempotent. */
export function ensurePlatformVariables(deps: Deps, subsystemId: number): void {
  transact(deps, (unit) => {
    const now = deps.clock.now();
    for (const v of PAIR) {
      const inserted = deps.db
        .insert(variables)
        .values({
          subsystemId,
          externalRef: v.ref,
          displayName: v.ref,
          type: v.type,
          lastValue: v.value,
          storeHistory: v.storeHistory,
          platformManaged: true,
          valueMapping: {},
          tags: [],
          healthRules: [],
          compositeDefinition: [],
          createdAt: now,
          updatedAt: now,
        })
        .onConflictDoNothing()
        .returning({ id: variables.id })
        .get();
      if (!inserted) continue;
      const row = findVariableByRef(deps, subsystemId, v.ref);
      if (!row) continue;
      const data = {
        _id: row.id,
        externalRef: row.externalRef,
        subsystemExternalId: row.subsystemExternalId,
        changed: [...WRITABLE_FIELDS],
      };
      unit.emit('variable.created', data);
    }
  });
}

/** Sets a platform-managed value (source `system`), creating the pair first when missing. */
export function setPlatformValue(deps: Deps, subsystemId: number, ref: PlatformVariable, value: string): void {
  transact(deps, (unit) => {
    let row = findVariableByRef(deps, subsystemId, ref);
    if (!row) {
      ensurePlatformVariables(deps, subsystemId);
      row = findVariableByRef(deps, subsystemId, ref);
    }
    if (!row) throw notFound('subsystem', subsystemId);
    applyValue({ deps, scope: unit, now: deps.clock.now() }, row, value, { source: 'system', by: 'system' });
  });
}
