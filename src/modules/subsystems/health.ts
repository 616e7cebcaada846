/**
 * The health state machine of §3 (rules 1, 2, 4-6) over `deps.health` (state.ts). State lives
 * in memory keyed on the monotonic clock, so a wall-clock jump never makes anything offline, and the
 * grace period counts only time the daemon could listen (`deps.stalls.listening()`, clock.ts): after
 * the appliance itself paused for minutes, the tick that may run before the heartbeats waiting in the
 * sockets are read turns nobody offline (no 5 000 alerts for the appliance's own pause). The row
 * keeps `status`, `statusChangedAt` and `lastContactedAt` (the latter at most every 10 s, and at every
 * status change, so a status change is never lost).
 *
 * The platform-managed variables follow (rule 3): `is_alive` at every status change, and
 * `last_contacted_at` wherever `lastContactedAt` is persisted (so at most every 10 s).
 *
 * Players (§13 rule 1) go through the same machine; their transitions are `player.online` and
 * `player.offline` (same data), logged under those keys as "player <externalId> …".
 */
import { isoOrNull } from '../../clock';
import { writePlatformLog } from '../../core/platform-log';
import { getSettingGroup } from '../../core/settings';
import { findSubsystem, forgetSubsystem, type SubsystemRow } from '../../core/subsystems';
import { updateRow } from '../../db/prepared';
import { subsystems } from '../../db/schema';
import type { Deps } from '../../deps';
import { settledUnlessDiskFull } from '../../http/errors';
import { emit, transact } from '../../realtime/emit';
import { setPlatformValue } from '../variables/platform';
import type { HealthEntry, HealthStatus } from './state';

/** lastContactedAt is written at most this often per subsystem between status changes (rule 2). */
export const PERSIST_CONTACT_EVERY_MS = 10_000;
const INTERVALS_KEPT = 10;

export interface HeartbeatInfo {
  lastAt: number | null;
  remoteAddress: string | null;
  intervalMs: number | null;
  count: number;
}

/** What reads show instead of the stored health columns. */
export interface LiveHealth {
  status: HealthStatus;
  lastContactedAt: number | null;
  statusChangedAt: number | null;
  /** Milliseconds before it turns offline without contact; null unless online. */
  graceRemainingMs: number | null;
  heartbeat: HeartbeatInfo;
}

export interface ContactOptions {
  /** A heartbeat (counted in `heartbeat`); a passing health check is contact without it. */
  heartbeat?: boolean;
  remoteAddress?: string | null;
}

/** Whole milliseconds: intervals come from a real monotonic clock, which has fractions. */
function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const upper = sorted[mid] ?? 0;
  return Math.round(sorted.length % 2 === 1 ? upper : ((sorted[mid - 1] ?? 0) + upper) / 2);
}

/** Daemon start (rule 6): online ones get a fresh grace period from now; offline ones stay offline quietly. */
export function loadHealth(deps: Deps): void {
  deps.health.entries.clear();
  for (const row of deps.db.select().from(subsystems).all()) deps.health.entries.set(row.id, fromRow(deps, row));
}

/**
 * Contact by heartbeat or a passing health check. What it must store (a status change; the throttled
 * `lastContactedAt`) goes through the writer, so the contacts of many subsystems commit together;
 * the returned promise settles once that is committed (null when nothing was written). Memory moves
 * at once, so a second contact before the commit does not write twice. On a full disk the contact
 * still counts (a refused heartbeat would cut the device off from its messages): the memory of the
 * write is undone and the next contact tries again.
 */
export function recordContact(deps: Deps, subsystemId: number, options: ContactOptions = {}): Promise<void> | null {
  const e = entryOf(deps, subsystemId);
  if (!e) return null;
  const { clock } = deps;
  const mono = clock.monotonic();
  if (options.heartbeat) {
    if (e.heartbeatMono !== null) {
      e.intervals.push(mono - e.heartbeatMono);
      if (e.intervals.length > INTERVALS_KEPT) e.intervals.shift();
    }
    e.heartbeatMono = mono;
    e.heartbeatAt = clock.now();
    e.count += 1;
    if (options.remoteAddress) e.remoteAddress = options.remoteAddress;
  }
  e.lastContactedAt = clock.now();
  e.graceFrom = deps.stalls.listening(mono);
  if (e.status === 'unknown' || e.status === 'offline') return goOnline(deps, subsystemId, e);
  if (e.persistedAt !== null && mono - e.persistedAt < PERSIST_CONTACT_EVERY_MS) return null;
  e.persistedAt = mono;
  // The row and its `last_contacted_at` variable in one unit: both or neither.
  const stored = deps.work.submit(() => {
    updateRow(deps, 'subsystems.health', subsystems, subsystems.id, subsystemId, {
      lastContactedAt: e.lastContactedAt,
    });
    forgetSubsystem(deps, subsystemId);
    setPlatformValue(deps, subsystemId, 'last_contacted_at', isoOrNull(e.lastContactedAt) ?? '');
  });
  return settledUnlessDiskFull(stored, () => {
    e.persistedAt = null;
  });
}

/**
 * Most subsystems turned offline in one turn of the event loop. Each costs 110–250 µs with its
 * incident and notification; a venue losing power on 5 000 at once would otherwise hold every other
 * request for a second. The rest follow in the next turns, a few ms later, in order.
 */
export const OFFLINE_PER_TURN = 100;

/**
 * Turns online subsystems offline once their grace period has passed without contact (rule 4): up to
 * `OFFLINE_PER_TURN` now, in one transaction with their events in order, and the rest in the
 * following turns of the event loop (each checked again then: one that made contact meanwhile stays
 * online).
 */
export function tickHealth(deps: Deps): void {
  const listening = deps.stalls.listening();
  const fallback = getSettingGroup(deps, 'health').defaultGracePeriodSeconds;
  const backlog = new Set(deps.health.offlineBacklog);
  for (const [id, e] of deps.health.entries) {
    if (!backlog.has(id) && isDue(e, listening, fallback)) deps.health.offlineBacklog.push(id);
  }
  workOfflineBacklog(deps);
}

function isDue(e: HealthEntry, listening: number, fallbackSeconds: number): boolean {
  return e.status === 'online' && listening - e.graceFrom >= (e.ownGrace ?? fallbackSeconds) * 1000;
}

/** Turns the next `OFFLINE_PER_TURN` of the backlog offline, and books a turn for the rest. */
function workOfflineBacklog(deps: Deps): void {
  const state = deps.health;
  const listening = deps.stalls.listening();
  const fallback = getSettingGroup(deps, 'health').defaultGracePeriodSeconds;
  const due: Array<[number, HealthEntry]> = [];
  let taken = 0;
  for (const id of state.offlineBacklog) {
    if (due.length === OFFLINE_PER_TURN) break;
    taken += 1;
    const e = state.entries.get(id);
    if (e && isDue(e, listening, fallback)) due.push([id, e]);
  }
  state.offlineBacklog.splice(0, taken);
  if (state.offlineBacklog.length > 0 && !state.offlineTurnBooked) {
    state.offlineTurnBooked = true;
    setImmediate(() => {
      state.offlineTurnBooked = false;
      try {
        workOfflineBacklog(deps);
      } catch (err) {
        deps.log.error({ err }, 'turning subsystems offline failed');
      }
    });
  }
  if (due.length > 0) goOffline(deps, due);
}

/**
 * After a subsystem's row changed: picks up its grace period, and `healthEnabled` false → disabled;
 * back to true → as at daemon start (seen before: online with a fresh grace period; else unknown).
 * The caller's `subsystem.updated` announces it.
 */
export function configureHealth(deps: Deps, row: SubsystemRow): void {
  const e = entryOf(deps, row.id);
  if (!e) return;
  e.ownGrace = row.healthGracePeriod;
  if (!row.healthEnabled && e.status !== 'disabled') setStatus(deps, row.id, e, 'disabled');
  else if (row.healthEnabled && e.status === 'disabled') {
    e.graceFrom = deps.stalls.listening();
    setStatus(deps, row.id, e, e.lastContactedAt === null ? 'unknown' : 'online');
  }
}

/** A deleted subsystem. */
export function forgetHealth(deps: Deps, subsystemId: number): void {
  deps.health.entries.delete(subsystemId);
}

/** The live health of a subsystem for reads. */
export function liveHealth(deps: Deps, row: SubsystemRow): LiveHealth {
  const e = entryOf(deps, row.id, row);
  if (!e) throw new Error(`no health entry for subsystem ${row.id}`);
  const grace = (e.ownGrace ?? getSettingGroup(deps, 'health').defaultGracePeriodSeconds) * 1000;
  return {
    status: e.status,
    lastContactedAt: e.lastContactedAt,
    statusChangedAt: e.statusChangedAt,
    graceRemainingMs: e.status === 'online' ? Math.max(0, grace - (deps.stalls.listening() - e.graceFrom)) : null,
    heartbeat: {
      lastAt: e.heartbeatAt,
      remoteAddress: e.remoteAddress,
      intervalMs: median(e.intervals),
      count: e.count,
    },
  };
}

function entryOf(deps: Deps, id: number, known?: SubsystemRow): HealthEntry | undefined {
  const existing = deps.health.entries.get(id);
  if (existing) return existing;
  const row = known ?? findSubsystem(deps, id);
  if (!row) return undefined;
  const e = fromRow(deps, row);
  deps.health.entries.set(id, e);
  return e;
}

/** The state of a stored subsystem as at daemon start (rule 6). */
function fromRow(deps: Deps, row: SubsystemRow): HealthEntry {
  const seen = row.lastContactedAt !== null;
  let status: HealthStatus = 'unknown';
  if (!row.healthEnabled) status = 'disabled';
  else if (row.status === 'online' || row.status === 'offline') status = row.status;
  else if (row.status === 'disabled' && seen) status = 'online';
  const e: HealthEntry = {
    status,
    ownGrace: row.healthGracePeriod,
    graceFrom: deps.stalls.listening(),
    lastContactedAt: row.lastContactedAt,
    statusChangedAt: row.statusChangedAt,
    offlineSince: null,
    persistedAt: null,
    heartbeatAt: null,
    heartbeatMono: null,
    remoteAddress: null,
    intervals: [],
    count: 0,
  };
  if (status !== row.status) setStatus(deps, row.id, e, status);
  return e;
}

/** The status fields of an entry, as a status change moves them (and its undo puts them back). */
type StatusFields = Pick<HealthEntry, 'status' | 'statusChangedAt' | 'persistedAt' | 'offlineSince'>;

function statusFields(e: HealthEntry): StatusFields {
  return {
    status: e.status,
    statusChangedAt: e.statusChangedAt,
    persistedAt: e.persistedAt,
    offlineSince: e.offlineSince,
  };
}

/** A status change in memory. */
function markStatus(deps: Deps, e: HealthEntry, status: HealthStatus): void {
  const { clock } = deps;
  e.status = status;
  e.statusChangedAt = clock.now();
  e.persistedAt = clock.monotonic();
  e.offlineSince = status === 'offline' ? clock.monotonic() : null;
}

/** Writes a status (as in memory when it changed) to the row and the platform variables; returns the updated row. */
function storeStatus(
  deps: Deps,
  id: number,
  fields: { status: HealthStatus; statusChangedAt: number | null; lastContactedAt: number | null },
): SubsystemRow | undefined {
  const row = updateRow(deps, 'subsystems.health', subsystems, subsystems.id, id, fields);
  forgetSubsystem(deps, id);
  if (row) {
    setPlatformValue(deps, id, 'is_alive', fields.status === 'online' ? 'true' : 'false');
    setPlatformValue(deps, id, 'last_contacted_at', isoOrNull(fields.lastContactedAt) ?? '');
  }
  return row;
}

/** Records a status change in memory and in the row (in the caller's unit); returns the updated row. */
function setStatus(deps: Deps, id: number, e: HealthEntry, status: HealthStatus): SubsystemRow | undefined {
  markStatus(deps, e, status);
  return storeStatus(deps, id, e);
}

/**
 * Back online: memory now, and the row, event and log entry as one writer job (§10 rule 3), so a
 * venue powering up commits its transitions in batches, in order. Settles after the commit.
 */
function goOnline(deps: Deps, id: number, e: HealthEntry): Promise<void> {
  const before = statusFields(e);
  const recovered = e.status === 'offline';
  const downMs =
    e.offlineSince !== null
      ? deps.clock.monotonic() - e.offlineSince
      : deps.clock.now() - (e.statusChangedAt ?? deps.clock.now());
  markStatus(deps, e, 'online');
  const fields = { status: e.status, statusChangedAt: e.statusChangedAt, lastContactedAt: e.lastContactedAt };
  const stored = deps.work.submit(() => {
    const row = storeStatus(deps, id, fields);
    if (!row) return;
    const downtimeSeconds = Math.max(0, Math.round(downMs / 1000));
    emit(deps, `${row.kind}.online`, {
      ...statusData(row),
      recovered,
      ...(recovered ? { downtimeSeconds } : {}),
    });
    writePlatformLog(deps, {
      category: 'system',
      key: `${row.kind}.online`,
      value: recovered
        ? `${row.kind} ${row.externalId} is online again after ${downtimeSeconds} s offline`
        : `${row.kind} ${row.externalId} is online`,
    });
  });
  return settledUnlessDiskFull(stored, () => Object.assign(e, before));
}

/**
 * Offline, for every entry given, in one `transact`: rows, events and log entries (§10 rule 3). When
 * it throws, the entries get their status fields back so memory matches the rolled-back rows.
 */
function goOffline(deps: Deps, due: ReadonlyArray<[number, HealthEntry]>): void {
  const before = due.map(([, e]) => statusFields(e));
  const fallback = getSettingGroup(deps, 'health').defaultGracePeriodSeconds;
  try {
    transact(deps, () => {
      for (const [id, e] of due) {
        const row = setStatus(deps, id, e, 'offline');
        if (!row) continue;
        emit(deps, `${row.kind}.offline`, statusData(row));
        writePlatformLog(deps, {
          category: 'system',
          key: `${row.kind}.offline`,
          severity: 'warning',
          value: `${row.kind} ${row.externalId} is offline: no contact for ${e.ownGrace ?? fallback} s`,
        });
      }
    });
  } catch (err) {
    due.forEach(([, e], i) => {
      Object.assign(e, before[i]);
    });
    throw err;
  }
}

function statusData(row: SubsystemRow): Record<string, unknown> {
  return {
    _id: row.id,
    externalId: row.externalId,
    status: row.status,
    lastContactedAt: isoOrNull(row.lastContactedAt),
  };
}
