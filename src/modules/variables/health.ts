/**
 * Variable health (§4 rule 4). The worst matching rule gives the target state; a better target
 * takes effect at once, a worse one only after it kept matching for `healthGracePeriod` seconds
 * (`tickVariableHealth`, run every second by main, applies those that waited long enough).
 * From unknown (-1) a worse target waits with the state still unknown; a healthy target applies at once.
 */
import { and, isNotNull, lte, sql } from 'drizzle-orm';
import { variables } from '../../db/schema';
import { writerFor } from '../../db/writer';
import type { Deps } from '../../deps';
import type { VariableRow } from './repo';
import { targetState } from './rules';
import { reevaluateHealth } from './values';

export interface HealthFields {
  healthState: number;
  healthPendingState: number | null;
  healthPendingSince: number | null;
}

type HealthInput = Pick<
  VariableRow,
  | 'healthEnabled'
  | 'availableInSubsystem'
  | 'healthRules'
  | 'healthGracePeriod'
  | 'lastValue'
  | 'lastValueUpdatedAt'
  | 'healthState'
  | 'healthPendingState'
  | 'healthPendingSince'
>;

const UNKNOWN: HealthFields = { healthState: -1, healthPendingState: null, healthPendingSince: null };

/** The health a variable should have now, given its stored state and current value. */
export function evaluateHealth(row: HealthInput, now: number): HealthFields {
  if (!row.healthEnabled || !row.availableInSubsystem || row.lastValueUpdatedAt === null) return UNKNOWN;
  const target = targetState(row.healthRules, row.lastValue);
  const current = row.healthState;
  if (target <= Math.max(current, 0))
    return { healthState: target, healthPendingState: null, healthPendingSince: null };
  const since = row.healthPendingState === target && row.healthPendingSince !== null ? row.healthPendingSince : now;
  if (now - since >= row.healthGracePeriod * 1000) {
    return { healthState: target, healthPendingState: null, healthPendingSince: null };
  }
  return { healthState: current, healthPendingState: target, healthPendingSince: since };
}

export function sameHealth(a: HealthFields, b: HealthFields): boolean {
  return (
    a.healthState === b.healthState &&
    a.healthPendingState === b.healthPendingState &&
    a.healthPendingSince === b.healthPendingSince
  );
}

/** Ids of variables whose pending worse state has waited its grace period. */
function duePending(deps: Deps, now: number): number[] {
  return deps.db
    .select({ id: variables.id })
    .from(variables)
    .where(
      and(
        isNotNull(variables.healthPendingState),
        lte(sql`${variables.healthPendingSince} + ${variables.healthGracePeriod} * 1000`, now),
      ),
    )
    .all()
    .map((r) => r.id);
}

/**
 * Applies pending states whose grace period has passed (through the writer, so it orders with value
 * writes). Resolves with the number of variables whose health fields changed.
 */
export async function tickVariableHealth(deps: Deps): Promise<number> {
  const now = deps.clock.now();
  const due = duePending(deps, now);
  if (due.length === 0) return 0;
  return writerFor(deps).submit((scope) => {
    let changed = 0;
    for (const id of due) if (reevaluateHealth({ deps, scope, now }, id)) changed += 1;
    return changed;
  });
}
