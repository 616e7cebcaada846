/**
 * Parameter values (§6 rules 1, 3): storing them, `parameter.changed` per changed parameter and the
 * one `setParameters` heartbeat message per request for the owning subsystem.
 */
import { eq } from 'drizzle-orm';
import { writeAuditLog } from '../../core/platform-log';
import { type Principal, requireOwnWrite } from '../../core/principal';
import { requireSubsystem } from '../../core/subsystems';
import { parameters } from '../../db/schema';
import type { Deps } from '../../deps';
import { invalid } from '../../http/errors';
import { emit, transact } from '../../realtime/emit';
import { queueMessage } from '../subsystems/actions';
import type { ParameterRow } from './mapper';
import type { ParameterDto } from './model';
import { requireFit, valueText } from './rules';
import { parameterDto, parameterRow } from './service';

/** Who set a value: an integration caller is its subsystem reporting; a preset apply names itself. */
export type ValueSource = 'subsystem' | 'user' | 'token' | 'preset';

export function sourceOf(principal: Principal): ValueSource {
  if (principal.integration) return 'subsystem';
  return principal.via === 'session' ? 'user' : 'token';
}

export interface ValueWrite {
  row: ParameterRow;
  value: string;
}

/**
 * The text a body's `value` stores, the one rule of every route that sets a parameter's value (the
 * upsert, PUT/PATCH by `{id}`, `PUT …/value`, a preset entry): as sent (numbers and booleans as their
 * text); `null` is the parameter's `default` (RESOURCES §6: `value` defaults to `default`). A
 * parameter without a default has nothing to go back to, so null is refused (400, nothing stored),
 * except where it changes nothing: `stored` (the value the parameter holds now, passed by the routes
 * that set the parameter itself) is null too, as a parameter never given a value reads back, so its
 * record fetched and sent back whole is taken; then null is returned and nothing is set. A value once
 * set is never cleared to none: the subsystem is sent values as text (`setParameters`) and could not
 * be told "no value", so the platform and the device would disagree; an empty text is `""`.
 * A preset entry passes no `stored`: it must hold a value. Not checked against the type here.
 */
export function valueInput(value: unknown, defaultValue: string | null, path: string): string;
export function valueInput(
  value: unknown,
  defaultValue: string | null,
  path: string,
  stored: string | null,
): string | null;
export function valueInput(
  value: unknown,
  defaultValue: string | null,
  path: string,
  stored?: string | null,
): string | null {
  const text = valueText(value, path);
  if (text !== null) return text;
  if (defaultValue !== null) return defaultValue;
  if (stored === null) return null;
  throw invalid(path, 'must not be null when the parameter has no default');
}

/**
 * Stores the values that differ from the stored ones, stamping `valueUpdatedAt`; synchronous, so a
 * caller may run it inside its transaction. Returns the rows whose value changed, as stored.
 */
export function storeValues(deps: Deps, writes: readonly ValueWrite[], now: number): ParameterRow[] {
  const changed: ParameterRow[] = [];
  for (const { row, value } of writes) {
    if (row.value === value) continue;
    const updated = deps.db
      .update(parameters)
      .set({ value, valueUpdatedAt: now, updatedAt: now })
      .where(eq(parameters.id, row.id))
      .returning()
      .get();
    if (updated) changed.push(updated);
  }
  return changed;
}

/** `parameter.changed` for each changed parameter; call inside the write's `transact` (published after its commit). */
export function announceValues(
  deps: Deps,
  subsystemExternalId: string,
  changed: readonly ParameterRow[],
  source: ValueSource,
): void {
  for (const row of changed) {
    emit(deps, 'parameter.changed', {
      _id: row.id,
      externalRef: row.externalRef,
      subsystemExternalId,
      value: row.value,
      source,
    });
  }
}

/** Queues the one `setParameters` message (§3 heartbeat answer) carrying the values; returns its uuid. */
export function queueSetParameters(
  deps: Deps,
  subsystemId: number,
  values: ReadonlyArray<{ externalRef: string; value: string }>,
): string {
  const payload = { parameters: values.map((v) => ({ externalRef: v.externalRef, value: v.value })) };
  return queueMessage(deps, subsystemId, { type: 'setParameters', payload }).uuid;
}

/**
 * `PUT /parameters/{id}/value`: an explicit set. The value is stored (an unchanged one is not
 * announced). A person's or script's set is always sent to the subsystem in a `setParameters`
 * message, so it also resends a value the subsystem may have lost; an integration caller is the
 * subsystem reporting its own value and gets nothing back (rule 3).
 */
export function setParameterValue(
  deps: Deps,
  principal: Principal,
  id: string,
  body: { value?: unknown },
): ParameterDto {
  const row = parameterRow(deps, id);
  requireOwnWrite(principal, 'parameters:write', row.subsystemId);
  if (body.value === undefined) throw invalid('/value', 'is required');
  const value = valueInput(body.value, row.defaultValue, '/value', row.value);
  // null for a parameter that has neither a value nor a default: nothing to set, nothing to send.
  if (value === null) return parameterDto(deps, row.id);
  requireFit(row, value, '/value');
  const subsystem = requireSubsystem(deps, row.subsystemId);
  transact(deps, () => {
    const changed = storeValues(deps, [{ row, value }], deps.clock.now());
    announceValues(deps, subsystem.externalId, changed, sourceOf(principal));
    if (!principal.integration) queueSetParameters(deps, row.subsystemId, [{ externalRef: row.externalRef, value }]);
    writeAuditLog(deps, principal, {
      key: 'parameter.value_set',
      value: `parameter ${row.id} (${subsystem.externalId}/${row.externalRef}) value set`,
      subsystemId: row.subsystemId,
      subsystemExternalId: subsystem.externalId,
    });
  });
  return parameterDto(deps, row.id);
}
