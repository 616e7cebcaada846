import { type Static, t } from 'elysia';
import { PageQuery } from '../../http/lists';
import { HOST_ACTIONS } from './state';

const Time = t.String({ format: 'date-time' });
const Action = t.Union([t.Literal(HOST_ACTIONS[0]), t.Literal(HOST_ACTIONS[1])]);
const Executor = t.Union([t.Literal('dry-run'), t.Literal('systemd')]);

export const HostActionModel = {
  listQuery: t.Object(PageQuery),
  /** `GET /platform/host/actions`: each action and whether the host would carry it out now. */
  item: t.Object({ action: Action, available: t.Boolean(), executor: Executor }),
  list: t.Array(t.Object({ action: Action, available: t.Boolean(), executor: Executor })),
  /** `GET …/system/shutdown` without `?confirm=true`. */
  description: t.Object({
    action: Action,
    executor: Executor,
    requires: t.Array(t.String()),
    lastRequest: t.Union([t.Object({ at: Time, by: t.String(), action: Action, dryRun: t.Boolean() }), t.Null()]),
  }),
  /** The 202 of rule 2. */
  accepted: t.Object({
    action: Action,
    requestId: t.String(),
    acceptedAt: Time,
    executor: Executor,
    dryRun: t.Boolean(),
    effectiveAt: Time,
  }),
  /** `false` (the same as leaving it out) describes; `true` acts. */
  confirmQuery: t.Object({
    confirm: t.Optional(
      t.Union([t.Literal('false'), t.Literal('true')], { error: 'must be true (act) or false (describe)' }),
    ),
  }),
  /**
   * `confirm` must be `true` (or `"true"`, read as true like every body boolean, §0.2): a missing or
   * false one is the 400 of "Bad input" (service).
   */
  confirmBody: t.Object({ confirm: t.Optional(t.BooleanString({ error: 'must be true or false' })) }),
};

export type HostActionItem = Static<typeof HostActionModel.item>;
export type HostActionDescription = Static<typeof HostActionModel.description>;
export type HostActionAccepted = Static<typeof HostActionModel.accepted>;
