import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { parameters } from './parameters';
import { presets } from './presets';

/**
 * The `{parameter, value}` entries of a preset, in the order sent. A parameter appears once per
 * preset; deleting it (only with `force`) drops its entries.
 */
export const presetEntries = sqliteTable(
  'preset_entries',
  {
    presetId: integer()
      .notNull()
      .references(() => presets.id, { onDelete: 'cascade' }),
    position: integer().notNull(),
    parameterId: integer()
      .notNull()
      .references(() => parameters.id, { onDelete: 'cascade' }),
    value: text().notNull(),
  },
  (t) => [primaryKey({ columns: [t.presetId, t.position] }), index('preset_entries_parameter').on(t.parameterId)],
);
