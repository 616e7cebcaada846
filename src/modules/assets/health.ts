/** An asset's health from its metrics (§16 `healthState`), shared by the read side and the history. */
import { findSubsystem } from '../../core/subsystems';
import type { Deps } from '../../deps';
import { liveHealth } from '../subsystems/health';
import type { AssetHealth } from './model';

const HEALTH_TEXT = { '0': 'healthy', '1': 'warning', '2': 'error', '-1': 'unknown' } as const;
/** Worse first: error, warning, unknown (a metric with health on and no value yet), healthy. */
const SEVERITY: Record<number, number> = { 2: 3, 1: 2, [-1]: 1, 0: 0 };

/** What a metric brings to its asset's health. */
export interface MetricHealth {
  healthState: number;
  healthEnabled: boolean;
  availableInSubsystem: boolean;
  lastValueUpdatedMs: number | null;
}

/** How bad a health code is: higher is worse (error, warning, unknown, healthy). */
export function severity(code: number): number {
  return SEVERITY[code] ?? 1;
}

/** The worst metric with health on (the latest of equals), or none: the asset's health without its subsystem. */
export function worstMetric<M extends MetricHealth>(metrics: readonly M[]): M | undefined {
  let worst: M | undefined;
  for (const m of metrics) {
    if (!m.healthEnabled || !m.availableInSubsystem) continue;
    const rank = severity(m.healthState);
    const worstRank = worst ? severity(worst.healthState) : -1;
    if (rank > worstRank || (rank === worstRank && (m.lastValueUpdatedMs ?? 0) > (worst?.lastValueUpdatedMs ?? 0)))
      worst = m;
  }
  return worst;
}

/**
 * The asset's monitoring subsystem is offline (its assets are unknown meanwhile, §16 `healthState`):
 * since when, or null while it is not (or there is none).
 */
export function monitorOffline(deps: Deps, subsystemId: number | null): { since: number | null } | null {
  if (subsystemId === null) return null;
  const subsystem = findSubsystem(deps, subsystemId);
  if (!subsystem) return null;
  const live = liveHealth(deps, subsystem);
  return live.status === 'offline' ? { since: live.statusChangedAt } : null;
}

/**
 * The asset's state (§16 `healthState`): unknown while its monitoring subsystem is offline (since it
 * went), else its worst metric with health on (since that metric's last value), else unknown.
 */
export function assetState(
  deps: Deps,
  subsystemId: number | null,
  metrics: readonly MetricHealth[],
): { code: number; since: number | null } {
  const offline = monitorOffline(deps, subsystemId);
  if (offline) return { code: -1, since: offline.since };
  const worst = worstMetric(metrics);
  return worst ? { code: worst.healthState, since: worst.lastValueUpdatedMs } : { code: -1, since: null };
}

/** The text of a health code (`2` → `error`). */
export function healthText(code: number): AssetHealth['state'] {
  return HEALTH_TEXT[String(code) as AssetHealth['lastValue']] ?? 'unknown';
}
