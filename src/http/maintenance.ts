/**
 * Maintenance mode (CONVENTIONS "Errors": 503 `unavailable`): while a restore swaps the data (§17
 * rule 4.4) or the appliance shuts down (§20 rule 2), every request gets 503 with `Retry-After`,
 * except `GET /api/v1/health`, `GET /api/v1/version` and what the one who entered it lets through
 * (the restore's own backup record). The gate is the first `onRequest` hook, before the value door,
 * so nothing reaches a route, a body reader or the database while it is closed.
 *
 * `deps.maintenance` holds the state (data only, maintenance-state.ts); `enterMaintenance` / `leaveMaintenance` move it.
 * Only one reason holds the gate at a time: entering while it is held by another throws, so a
 * shutdown cannot end a restore's maintenance by leaving its own.
 */
import type { Deps } from '../deps';
import { AppError } from './errors';
import type { MaintenanceEntry, MaintenanceReason } from './maintenance-state';

export type { MaintenanceEntry, MaintenanceReason } from './maintenance-state';

const ALWAYS = new Set(['/api/v1/health', '/api/v1/version']);

/** Closes the gate for `reason`; throws when another reason holds it. */
export function enterMaintenance(deps: Deps, entry: Omit<MaintenanceEntry, 'since'>): void {
  const held = deps.maintenance.current;
  if (held && held.reason !== entry.reason) throw new Error(`maintenance is held by ${held.reason}`);
  deps.maintenance.current = { ...entry, since: deps.clock.now() };
  deps.log.warn({ reason: entry.reason }, 'maintenance: new requests get 503');
}

/** Opens the gate again if `reason` holds it. */
export function leaveMaintenance(deps: Deps, reason: MaintenanceReason): void {
  if (deps.maintenance.current?.reason !== reason) return;
  deps.maintenance.current = null;
  deps.log.info({ reason }, 'maintenance ended: serving again');
}

export function inMaintenance(deps: Deps): MaintenanceReason | null {
  return deps.maintenance.current?.reason ?? null;
}

/** The 503 of a closed gate. */
export function unavailable(entry: MaintenanceEntry): AppError {
  const why = entry.reason === 'restore' ? 'a backup is being restored' : 'the appliance is shutting down';
  return new AppError('unavailable', `${why}; try again later`, undefined, {
    'retry-after': String(Math.max(1, Math.ceil(entry.retryAfterSeconds))),
  });
}

/** The `onRequest` hook: throws the 503 for anything the closed gate does not let through. */
export function maintenanceHook(deps: Deps) {
  return ({ request }: { request: Request }): void => {
    const entry = deps.maintenance.current;
    if (entry === null) return;
    const url = request.url;
    const start = url.indexOf('/', url.indexOf('//') + 2);
    const end = url.indexOf('?', start);
    const path = start < 0 ? '/' : url.slice(start, end < 0 ? undefined : end);
    if (request.method === 'GET' && ALWAYS.has(path)) return;
    if (entry.allow?.(request.method, path)) return;
    throw unavailable(entry);
  };
}
