/**
 * Subsystem rows as last read (`deps.subsystemRows`), so a heartbeat or a value write finds its
 * subsystem without a query. Data only: core/subsystems.ts fills it, outside any transaction (so a
 * rolled-back change is never remembered), and every write to the subsystems table forgets the row
 * it touched (`forgetSubsystem`). Imports no Deps, so deps.ts can name it.
 */
import type { subsystems } from '../db/schema';

export type SubsystemRow = typeof subsystems.$inferSelect;

export class SubsystemRows {
  readonly byId = new Map<number, SubsystemRow>();
  /** `_id` by `externalId`, for the rows in `byId` only. */
  readonly idOf = new Map<string, number>();
}
