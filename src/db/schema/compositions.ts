import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { timestamps } from './common';
import { playables, type TemplatePath } from './playables';
import { subsystems } from './subsystems';

/** One filled media slot of a composition (§15): the template's slot name and a cms-media object. */
export interface CompositionSlot {
  name: string;
  objectId: number;
}

/** One parameter value of a composition (§15): the template's parameter (`_id`, externalRef) and its text. */
export interface CompositionParameter {
  parameter: number;
  externalRef: string;
  value: string;
}

export const COMPOSITION_STATUSES = ['ready', 'draft', 'broken'] as const;
export type CompositionStatus = (typeof COMPOSITION_STATUSES)[number];

/**
 * Compositions (§15): a template playable's slots and parameters filled, producing a playable of
 * their own (`playableId`). Unique per (subsystem, externalRef) when it has one. `templatePath._id`
 * keeps naming a deleted template while the composition is `broken`; `templateId` is its indexed
 * copy (written with it, never alone), since every playable change asks which compositions name it
 * as their template (drizzle-kit cannot write an index on a JSON expression).
 */
export const compositions = sqliteTable(
  'compositions',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    subsystemId: integer()
      .notNull()
      .references(() => subsystems.id, { onDelete: 'cascade' }),
    externalRef: text(),
    displayName: text().notNull(),
    description: text().notNull().default(''),
    templatePath: text({ mode: 'json' }).$type<TemplatePath>().notNull(),
    /** `templatePath._id`, indexed. */
    templateId: integer().notNull(),
    slots: text({ mode: 'json' }).$type<CompositionSlot[]>().notNull(),
    parameters: text({ mode: 'json' }).$type<CompositionParameter[]>().notNull(),
    /** Its own duration in ms; null: the template's. */
    duration: integer(),
    status: text({ enum: COMPOSITION_STATUSES }).notNull().default('draft'),
    /** The playable it produces (§15 rule 1); the composition's delete takes it along. */
    playableId: integer().references(() => playables.id, { onDelete: 'set null' }),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('compositions_subsystem_ref').on(t.subsystemId, t.externalRef).where(sql`${t.externalRef} IS NOT NULL`),
    index('compositions_template').on(t.templateId),
    index('compositions_playable').on(t.playableId),
  ],
);
