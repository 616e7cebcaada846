/**
 * The schedule of a window (§11.5, §11.6): occurrences expanded into segments, competition resolved,
 * sorted deterministically so the answer never depends on the order anything was created in.
 */
import { compareRank, competitionKey, rankReason } from './compete';
import { buildCandidates, indexSnapshot, type SnapshotIndex } from './expand';
import type { Entry, ResolveResult, ScheduleSnapshot } from './types';
import { buildWindow } from './window';

/** Entries overlapping [from, to) (events of no length: starting inside it). */
export function resolveWindow(snapshot: ScheduleSnapshot | SnapshotIndex, from: number, to: number): ResolveResult {
  const index = 'snapshot' in snapshot ? snapshot : indexSnapshot(snapshot);
  return buildWindow(index, from, to).result;
}

export interface Explained {
  zoneId: number;
  at: number;
  winner: Entry | null;
  candidates: { entry: Entry; reason: string }[];
}

const HOUR = 3_600_000;

/** `/schedule/resolve`: per zone, every playable segment covering `at`, the winner and why each lost. */
export function explainAt(snapshot: ScheduleSnapshot | SnapshotIndex, at: number, zoneId?: number): Explained[] {
  const index = 'snapshot' in snapshot ? snapshot : indexSnapshot(snapshot);
  const { candidates } = buildCandidates(index, at, at + 1);
  const zoneIds = index.snapshot.zones.map((z) => z.id).filter((id) => zoneId === undefined || id === zoneId);
  if (zoneId !== undefined && !zoneIds.includes(zoneId)) zoneIds.push(zoneId);
  return zoneIds
    .sort((a, b) => a - b)
    .map((zid) => {
      const covering = candidates
        .filter((c) => c.competes && c.entry.zoneId === zid && c.entry.start <= at && at < c.entry.end)
        .map((c) => c.entry)
        .sort(compareRank);
      const best = new Map<string, Entry>();
      for (const e of covering) if (!best.has(competitionKey(e))) best.set(competitionKey(e), e);
      const explained = covering.map((entry) => {
        const top = best.get(competitionKey(entry));
        return {
          entry,
          reason: !top || top === entry ? 'winner' : `${rankReason(top, entry)}: preempted by ${top.id}`,
        };
      });
      return { zoneId: zid, at, winner: covering[0] ?? null, candidates: explained };
    });
}

/**
 * The last instant up to `at` when `explainAt` changed its answer: a competing segment started or
 * ended. The search goes back to the hour start and reports that for anything earlier, which is late
 * but never early, so a conditional read of "now" never keeps an answer that has since changed.
 */
export function lastExplainChange(snapshot: ScheduleSnapshot | SnapshotIndex, at: number): number {
  const index = 'snapshot' in snapshot ? snapshot : indexSnapshot(snapshot);
  const from = Math.floor(at / HOUR) * HOUR;
  let last = from;
  for (const { competes, entry } of buildCandidates(index, from, at + 1).candidates) {
    if (!competes) continue;
    if (entry.start <= at && entry.start > last) last = entry.start;
    if (entry.end <= at && entry.end > last) last = entry.end;
  }
  return last;
}
