/**
 * What the webhooks module keeps per daemon (`deps.webhooks`): the dispatcher's attempts in flight
 * and the shape of its hot statements. Data only: dispatch.ts and store.ts drive it. Imports no Deps, so deps.ts
 * can name it.
 */
import { WallSteps } from '../../clock';
import type { webhookDeliveries, webhooks } from '../../db/schema';

type WebhookRow = typeof webhooks.$inferSelect;
type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** Which attempts run now; lives only in memory (dispatch.ts says why that is safe). */
export class DispatcherState {
  /** delivery id → webhook id, for attempts running now. */
  readonly inFlight = new Map<number, number>();
  readonly perWebhook = new Map<number, number>();
  /** Attempts counted against the caps (a test send is not). */
  total = 0;
  readonly running = new Set<Promise<void>>();
  /** Started by webhookJobs (jobs.ts): kicks itself after every finished attempt. */
  automatic = false;
  stopped = false;
  kickScheduled = false;
  /**
   * delivery id → when (monotonic ms) it may be picked again, for attempts that could not be recorded (a full
   * disk): such a delivery is still due in the database, and without this it would be sent again
   * at once, in a loop, for as long as the disk stays full.
   */
  readonly heldUntil = new Map<number, number>();
}

/** The dispatcher's hot statements (store.ts): read a delivery and its webhook, write both back. */
export interface WebhookStore {
  delivery(id: number): DeliveryRow | undefined;
  webhook(id: number): WebhookRow | undefined;
  saveDelivery(row: DeliveryRow): unknown;
  saveHealth(row: WebhookRow): unknown;
}

export class WebhookState {
  readonly dispatcher = new DispatcherState();
  /** Wall-clock steps, which move the retry times (record.ts `followWallClock`). */
  readonly wallSteps = new WallSteps();
}
