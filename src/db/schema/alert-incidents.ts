import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { timestamps } from './common';

/**
 * Alert incidents (§8): one per (rule, source) while open. `alertId` is no foreign key: the history
 * outlives a deleted rule (kept 365 days). `notified` and `lastNotifiedAt` make a restart send no
 * notice twice; `locked` marks an incident held open by the rule's lock after its condition cleared.
 */
export const alertIncidents = sqliteTable(
  'alert_incidents',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    alertId: integer().notNull(),
    sourceType: text().notNull(),
    sourceId: integer().notNull(),
    sourceExternalId: text(),
    sourceDisplayName: text(),
    state: text().notNull().default('open'),
    firedAt: integer().notNull(),
    closedAt: integer(),
    closedReason: text(),
    acknowledgedAt: integer(),
    acknowledgedBy: text(),
    lastValue: text(),
    matchCount: integer().notNull().default(1),
    notified: integer({ mode: 'boolean' }).notNull().default(false),
    lastNotifiedAt: integer(),
    locked: integer({ mode: 'boolean' }).notNull().default(false),
    ...timestamps,
  },
  (t) => [
    index('alert_incidents_rule_source').on(t.alertId, t.sourceId, t.state),
    index('alert_incidents_state').on(t.state, t.alertId),
    index('alert_incidents_fired').on(t.firedAt),
    index('alert_incidents_closed').on(t.closedAt),
  ],
);
