import { t } from 'elysia';
import { EntityMeta } from '../../http/entity';
import { Description, DisplayNameOrEmpty, NO_CONTROL } from '../../http/fields';
import { type FieldKinds, fieldFilterQuery, PageQuery } from '../../http/lists';
import { LogPageQuery } from './model';

const Name = t.String({ minLength: 1, maxLength: 128, pattern: NO_CONTROL });

const ScenarioDto = t.Object({
  ...EntityMeta,
  origin: t.String(),
  action: t.String(),
  displayName: t.String(),
  description: t.String(),
  log: t.Boolean(),
});

const ScenarioRunDto = t.Object({
  ...EntityMeta,
  time: t.String({ format: 'date-time' }),
  origin: t.String(),
  action: t.String(),
  text: t.String(),
  displayName: t.String(),
});

/** The exact-match filters of the scenario list beside `origin` and `action` (C: Responses), on the wire form. */
export const SCENARIO_FIELD_FILTERS = {
  displayName: 'string',
  description: 'string',
  log: 'boolean',
} as const satisfies FieldKinds;

export const ScenarioModel = {
  dto: ScenarioDto,
  list: t.Array(ScenarioDto),
  /** One body for create and update; `origin` and `action` are required on create (checked by the service). */
  write: t.Object({
    _id: t.Optional(t.Integer({ minimum: 1 })),
    origin: t.Optional(Name),
    action: t.Optional(Name),
    displayName: t.Optional(DisplayNameOrEmpty),
    description: t.Optional(Description),
    log: t.Optional(t.BooleanString()),
  }),
  listQuery: t.Object({
    ...PageQuery,
    origin: t.Optional(t.String()),
    action: t.Optional(t.String()),
    ...fieldFilterQuery(SCENARIO_FIELD_FILTERS),
    fuzzy: t.Optional(t.String()),
  }),
  run: ScenarioRunDto,
  runPage: t.Object({
    page: t.Integer(),
    perPage: t.Integer(),
    totalPages: t.Integer(),
    totalLogs: t.Integer(),
    logs: t.Array(ScenarioRunDto),
  }),
  runCreate: t.Object({
    origin: Name,
    action: Name,
    text: t.Optional(t.String({ maxLength: 16384 })),
    displayName: t.Optional(DisplayNameOrEmpty),
  }),
  runQuery: t.Object({
    ...LogPageQuery,
    origin: t.Optional(t.String()),
    action: t.Optional(t.String()),
    from: t.Optional(t.String()),
    to: t.Optional(t.String()),
  }),
};

export type ScenarioDto = typeof ScenarioModel.dto.static;
export type ScenarioWrite = typeof ScenarioModel.write.static;
export type ScenarioListQuery = typeof ScenarioModel.listQuery.static;
export type ScenarioRunDto = typeof ScenarioModel.run.static;
export type ScenarioRunCreate = typeof ScenarioModel.runCreate.static;
export type ScenarioRunQuery = typeof ScenarioModel.runQuery.static;
export type ScenarioRunPage = typeof ScenarioModel.runPage.static;
