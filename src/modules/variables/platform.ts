/**
 * The platform-managed pair every subsystem has (§3 rule 3, §4 rule 7): `is_alive` ("true"/"false",
 * with history) and `last_contacted_at` (ISO time or "", without history). Only the platform sets
 * their values; clients may change displayName, tags, log and alert.
 *
 * Both functions are synchronous. Called inside a writer job, pass its scope so the events wait for
 * that batch's commit; otherwise they run in a `transact` (joining the caller's, e.g. a subsystem
 * create): the outbox rows commit with the change and the events are published after the outermost
 * commit (§10 rule 3).
 */

import { variables } from '../../db/schema';
import type { WriteScope } from '../../db/writer';
import type { Deps } from '../../deps';
import { notFound } from '../../http/errors';
import { emit, transact } from '../../realtime/emit';
import { WRITABLE_FIELDS } from './fields';
import { findVariableByRef } from './repo';
import { applyValue } from './values';

export type PlatformVariable = 'is_alive' | 'last_contacted_at';

const PAIR: ReadonlyArray<{ ref: PlatformVariable; value: string; type: string; storeHistory: boolean }> = [
  { ref: 'is_alive', value: 'false', type: 'boolean', storeHistory: true },
  { ref: 'last_contacted_at', value: '', type: 'string', storeHistory: false },
];

/**
 * Runs `work` with a scope: the caller's, or a `transact` whose events wait for the (outermost)
 * commit. Undos (dropping cached rows) run when it throws, and also when it joined a caller's
 * transaction, which may still roll back after this returns: a cache never keeps an uncommitted row.
 */
function withScope<T>(deps: Deps, scope: WriteScope | undefined, work: (scope: WriteScope) => T): T {
  if (scope) return work(scope);
  const effects: Array<() => void> = [];
  const undos: Array<() => void> = [];
  const joined = deps.sqlite.inTransaction;
  let result: T;
  try {
    result = transact(deps, () =>
      work({
        afterCommit: (e) => effects.push(e),
        onUndo: (u) => undos.push(u),
        emit: (type, data) => emit(deps, type, data),
      }),
    );
  } catch (err) {
    for (const undo of undos.reverse()) undo();
    throw err;
  }
  if (joined) for (const undo of undos.reverse()) undo();
  for (const effect of effects) effect();
  return result;
}

/** Creates the subsystem's `is_alive` and `last_contacted_at` when missing. Idempotent. */
export function ensurePlatformVariables(deps: Deps, subsystemId: number, scope?: WriteScope): void {
  withScope(deps, scope, (s) => {
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
      s.emit('variable.created', data);
    }
  });
}

/** Sets a platform-managed value (source `system`), creating the pair first when missing. */
export function setPlatformValue(
  deps: Deps,
  subsystemId: number,
  ref: PlatformVariable,
  value: string,
  scope?: WriteScope,
): void {
  withScope(deps, scope, (s) => {
    let row = findVariableByRef(deps, subsystemId, ref);
    if (!row) {
      ensurePlatformVariables(deps, subsystemId, s);
      row = findVariableByRef(deps, subsystemId, ref);
    }
    if (!row) throw notFound('subsystem', subsystemId);
    applyValue({ deps, scope: s, now: deps.clock.now() }, row, value, { source: 'system', by: 'system' });
  });
}
