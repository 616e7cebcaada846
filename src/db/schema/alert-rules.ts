import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { timestamps } from './common';

/** One destination of an alert (§8): a user or role (`_id`) and how they are told. */
export interface StoredAlertDestination {
  user?: number;
  role?: number;
  method: Array<'notification' | 'email'>;
}

/**
 * Alert rules (§8). `variable` rules watch one variable; `system` rules (one per `systemKind`) watch a
 * platform condition. `pendingSince` (the condition holds, `delaySeconds` not yet passed) and
 * `snoozedUntil` are stored so a restart keeps them. The variable is not a foreign key: a rule whose
 * variable disappears stays, deactivated (`inactiveReason: variable_missing`), and keeps the
 * variable's subsystem externalId and externalRef so it re-links when a driver registers that
 * variable again (modules/alerts/relink.ts).
 */
export const alertRules = sqliteTable(
  'alert_rules',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    displayName: text().notNull(),
    description: text().notNull().default(''),
    type: text().notNull().default('variable'),
    systemKind: text(),
    variableId: integer(),
    /** The variable's subsystem when the rule was written (a variable never moves), for the list filter. */
    subsystemId: integer(),
    /** The variable's subsystem externalId and externalRef, kept after it is deleted (re-link). */
    variableSubsystemExternalId: text(),
    variableExternalRef: text(),
    operator: text(),
    value: text(),
    delaySeconds: integer().notNull().default(0),
    message: text(),
    criticality: text().notNull().default('warning'),
    lifeCycle: text().notNull().default('once'),
    repeatIntervalSeconds: integer().notNull().default(900),
    lock: integer({ mode: 'boolean' }).notNull().default(false),
    recovery: integer({ mode: 'boolean' }).notNull().default(true),
    log: integer({ mode: 'boolean' }).notNull().default(true),
    active: integer({ mode: 'boolean' }).notNull().default(true),
    inactiveReason: text(),
    destinations: text({ mode: 'json' }).$type<StoredAlertDestination[]>().notNull(),
    snoozedUntil: integer(),
    pendingSince: integer(),
    lastFiredAt: integer(),
    lastRecoveredAt: integer(),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('alert_rules_system_kind').on(t.systemKind),
    index('alert_rules_variable').on(t.variableId),
    index('alert_rules_subsystem').on(t.subsystemId),
    index('alert_rules_variable_pair').on(t.variableSubsystemExternalId, t.variableExternalRef),
  ],
);
