/**
 * `POST /presets/{id}/apply` (§6 rules 1, 2): every value is checked against its parameter as it is
 * now before anything is stored, so a preset applies whole or not at all. Then the values are stored
 * in one transaction, `parameter.changed` goes out for each that changed, and one `setParameters`
 * message carries every value of the preset (a recall resends values the subsystem may have lost);
 * the message, the events' webhook deliveries and the audit entry commit in that same transaction.
 */
import { eq } from 'drizzle-orm';
import { iso } from '../../clock';
import { writeAuditLog } from '../../core/platform-log';
import { type Principal, requireOwnWrite } from '../../core/principal';
import { requireSubsystem } from '../../core/subsystems';
import { presets } from '../../db/schema';
import type { Deps } from '../../deps';
import { invalid } from '../../http/errors';
import { emit, transact } from '../../realtime/emit';
import { misfit, parameterRows } from '../parameters/service';
import { announceValues, queueSetParameters, storeValues, type ValueWrite } from '../parameters/values';
import type { AppliedPresetDto } from './model';
import { entriesOf, presetRow } from './service';

/** Applies every value of the preset, or none (400 at the first entry that no longer fits). */
export function applyPreset(deps: Deps, principal: Principal, id: string): AppliedPresetDto {
  const preset = presetRow(deps, id);
  requireOwnWrite(principal, 'parameters:write', preset.subsystemId);
  const entries = entriesOf(deps, [preset.id]).get(preset.id) ?? [];
  // Only a preset emptied by an earlier version: a forced parameter delete now deletes it (service.ts).
  if (entries.length === 0) throw invalid('/parameters', 'must have at least 1 entry');
  const rows = new Map(
    parameterRows(
      deps,
      entries.map((e) => e.parameterId),
    ).map((p) => [p.id, p]),
  );
  const writes: ValueWrite[] = entries.map((entry, n) => {
    const row = rows.get(entry.parameterId);
    if (!row) throw invalid(`/parameters/${n}/parameter`, 'matches nothing in this subsystem');
    const problem = misfit(row, entry.value);
    if (problem) throw invalid(`/parameters/${n}/value`, problem);
    return { row, value: entry.value };
  });
  const subsystem = requireSubsystem(deps, preset.subsystemId);
  const now = deps.clock.now();
  const applied = writes.map((w) => ({ parameter: w.row.id, externalRef: w.row.externalRef, value: w.value }));
  const messageUuid = transact(deps, () => {
    const changed = storeValues(deps, writes, now);
    deps.db.update(presets).set({ lastAppliedAt: now }).where(eq(presets.id, preset.id)).run();
    announceValues(deps, subsystem.externalId, changed, 'preset');
    const uuid = queueSetParameters(deps, subsystem.id, applied);
    emit(deps, 'preset.applied', { _id: preset.id, parameters: applied });
    writeAuditLog(deps, principal, {
      key: 'preset.applied',
      value: `preset ${preset.id} (${subsystem.externalId}/${preset.externalRef ?? '-'}) applied`,
      subsystemId: subsystem.id,
      subsystemExternalId: subsystem.externalId,
    });
    return uuid;
  });
  return { presetId: preset.id, appliedAt: iso(now), parameters: applied, messageUuid };
}
