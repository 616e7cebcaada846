/**
 * Variable health (§4 rule 4) over time: a worse target state takes effect only after it kept
 * matching for `healthGracePeriod` seconds (`evaluateHealth`, rules.ts); `tickVariableHealth`, run
 * every second by main, applies those that waited long enough.
 */
import { and, isNotNull, lte, sql } from 'drizzle-orm';
import { prepared } from '../../db/prepared';
import { variables } from '../../db/schema';
import type { Deps } from '../../deps';
import { reevaluateHealth } from './values';

/** Ids of variables whose pending worse state has waited its grace period (run every second: prepared once). */
function duePending(deps: Deps, now: number): number[] {
  const { due } = prepared(deps, 'variables.health', () => ({
    due: deps.db
      .select({ id: variables.id })
      .from(variables)
      .where(
        and(
          isNotNull(variables.healthPendingState),
          lte(sql`${variables.healthPendingSince} + ${variables.healthGracePeriod} * 1000`, sql.placeholder('now')),
        ),
      )
      .prepare(),
  }));
  return due.all({ now }).map((r) => r.id);
}

/**
 * Applies pending states whose grace period has passed (through the writer, so it orders with value
 * writes). Resolves with the number of variables whose health fields changed.
 */
export async function tickVariableHealth(deps: Deps): Promise<number> {
  const now = deps.clock.now();
  const due = duePending(deps, now);
  if (due.length === 0) return 0;
  return deps.work.submit((scope) => {
    let changed = 0;
    for (const id of due) if (reevaluateHealth({ deps, scope, now }, id)) changed += 1;
    return changed;
  });
}
