import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { assets } from './assets';

/**
 * Health changes of assets and their metrics (§16 rule 1), kept 400 days. A metric's row names its
 * variable and keeps what it was then (type, name, value); an asset's own row has `variableId` null.
 * States are the health codes (0, 1, 2, -1). Rows go with their asset.
 */
export const assetHealthChanges = sqliteTable(
  'asset_health_changes',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    at: integer().notNull(),
    assetId: integer()
      .notNull()
      .references(() => assets.id, { onDelete: 'cascade' }),
    /** The metric's variable; null for a change of the asset's own state. Kept after the variable goes. */
    variableId: integer(),
    metricType: text(),
    displayName: text(),
    fromState: integer().notNull(),
    toState: integer().notNull(),
    lastValue: text(),
  },
  (t) => [
    index('asset_health_changes_asset_at').on(t.assetId, t.at),
    index('asset_health_changes_at').on(t.at),
    // The asset's own chain (last recorded state, historicCounts) and each metric's (network counts).
    index('asset_health_changes_own').on(t.assetId, t.at).where(sql`variable_id is null`),
    index('asset_health_changes_metric').on(t.variableId, t.at).where(sql`variable_id is not null`),
  ],
);
