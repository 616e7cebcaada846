/** The maintenance gate's state (maintenance.ts), data only so `Deps` can hold it without a circle. */
export type MaintenanceReason = 'restore' | 'shutdown';

export interface MaintenanceEntry {
  reason: MaintenanceReason;
  /** The `Retry-After` of the 503s, in seconds. */
  retryAfterSeconds: number;
  /** What `reason` lets through besides health and version (method and path without the query). */
  allow?: (method: string, path: string) => boolean;
  /** Epoch ms it was entered. */
  since: number;
}

/** Per daemon: whether the gate is closed, and why. */
export class MaintenanceState {
  current: MaintenanceEntry | null = null;
}
