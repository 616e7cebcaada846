import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { assets } from './assets';

/**
 * Status changes of assets (§16 `status`), kept with the health history (400 days): `historicCounts`
 * leaves an asset out while it was retired, so it needs to know since when. Rows go with their asset.
 */
export const assetStatusChanges = sqliteTable(
  'asset_status_changes',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    at: integer().notNull(),
    assetId: integer()
      .notNull()
      .references(() => assets.id, { onDelete: 'cascade' }),
    fromStatus: text().notNull(),
    toStatus: text().notNull(),
  },
  (t) => [index('asset_status_changes_asset_at').on(t.assetId, t.at), index('asset_status_changes_at').on(t.at)],
);
