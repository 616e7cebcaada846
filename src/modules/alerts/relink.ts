/**
 * Variable rules follow a variable that a driver deletes and registers again (§8 "never lost: rules
 * whose variable disappears", the way §11.6 rule 17 re-links scheduled items). A rule keeps its
 * variable's subsystem externalId and externalRef (`variableSubsystemExternalId`,
 * `variableExternalRef`, kept current when the subsystem's externalId changes). When a variable is
 * created (a driver's upsert, a subsystem created again with the same externalId and its
 * platform-managed pair) the rules keeping its pair whose own variable no longer exists re-link to
 * it, inside the unit that creates it (`deps.work.react`), and are evaluated against its current
 * value (§8 rule 1): a value sent with the registration is evaluated once, by the `variable.changed`
 * that follows it. Value writes never come here.
 *
 * Decisions (the contract is silent):
 * - A rule the platform deactivated (`inactiveReason: variable_missing`) re-links and is active
 *   again: `variable` names the new `_id`, `inactiveReason` clears, it is evaluated against the
 *   variable's current value (rule 1). Edits made while it was missing (condition, name,
 *   destinations…) are kept: they did not change why it was inactive.
 * - A rule an operator deactivated (`active: false` with no `inactiveReason`, set before the
 *   variable went) stays inactive: only its `variable` follows, so switching it on later watches the
 *   live variable. While a rule is `variable_missing` its `active` cannot be changed (true is 400,
 *   false is what it already is), so the operator's choice is always the `active` they last set.
 * - A rule an operator pointed at another variable while missing watches that one and keeps its pair;
 *   the old variable coming back does not touch it.
 * - A rule whose variable still exists is never moved, and a rule that is active but whose variable
 *   is gone (its deactivation not yet heard) only has `variable` re-linked.
 * - Each re-linked rule emits `alert.updated` with the fields that changed (`variable`, `active`,
 *   `inactiveReason`); no audit entry: the platform made the change, not a person.
 * - Rules whose variable was already gone when the pair was introduced (migration 0013) keep no
 *   pair and do not re-link; they can be pointed at the variable again by hand.
 */
import { and, eq, ne, sql } from 'drizzle-orm';
import { findSubsystem } from '../../core/subsystems';
import { prepared } from '../../db/prepared';
import { alertRules } from '../../db/schema';
import type { Deps } from '../../deps';
import { emit, transact } from '../../realtime/emit';
import { getVariable } from '../variables/service';
import { changedRuleFields, ruleVariable } from './checks';
import { afterWrite } from './service';

function statements(deps: Deps) {
  return prepared(deps, 'alerts.relink', () => ({
    /** Rules keeping the pair whose variable is another one that no longer exists. */
    orphans: deps.db
      .select()
      .from(alertRules)
      .where(
        and(
          eq(alertRules.type, 'variable'),
          eq(alertRules.variableSubsystemExternalId, sql.placeholder('subsystemExternalId')),
          eq(alertRules.variableExternalRef, sql.placeholder('externalRef')),
          ne(alertRules.variableId, sql.placeholder('id')),
          sql`not exists (select 1 from variables v where v.id = ${alertRules.variableId})`,
        ),
      )
      .prepare(),
  }));
}

/** `variable.created`: the rules keeping this variable's pair whose variable is gone re-link to it. */
export function relinkRules(deps: Deps, id: number, subsystemExternalId: string, externalRef: string): void {
  const rows = statements(deps).orphans.all({ subsystemExternalId, externalRef, id });
  if (rows.length === 0) return;
  const variable = getVariable(deps, String(id));
  const target = ruleVariable(variable);
  // A value sent with the registration is heard next (`variable.changed` on the bus) and evaluates
  // the rule then; evaluating it here too would count that one value twice (`matchCount`). The
  // platform-managed pair is created with its value and no such event, so it is evaluated here.
  const valueFollows = !variable.platformManaged && variable.lastValue !== '';
  transact(deps, () => {
    for (const row of rows) {
      const next = {
        ...target,
        ...(row.inactiveReason === 'variable_missing' ? { active: true, inactiveReason: null } : {}),
      };
      // The wire names of an update's changes; the platform's clearing of the reason is named too.
      const changed = changedRuleFields(next, row);
      if (row.inactiveReason !== null && 'inactiveReason' in next) changed.push('inactiveReason');
      deps.db
        .update(alertRules)
        .set({ ...next, updatedAt: deps.clock.now() })
        .where(eq(alertRules.id, row.id))
        .run();
      emit(deps, 'alert.updated', { _id: row.id, changed });
      afterWrite(deps, row, row.id, !valueFollows);
    }
  });
}

/** `subsystem.updated` with a new `externalId`: the pair its rules keep follows (not on the wire, no event). */
export function followSubsystemExternalId(deps: Deps, subsystemId: number): void {
  const subsystem = findSubsystem(deps, subsystemId);
  if (!subsystem) return;
  deps.db
    .update(alertRules)
    .set({ variableSubsystemExternalId: subsystem.externalId })
    .where(
      and(
        eq(alertRules.type, 'variable'),
        eq(alertRules.subsystemId, subsystemId),
        ne(alertRules.variableSubsystemExternalId, subsystem.externalId),
      ),
    )
    .run();
}
