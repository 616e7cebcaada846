/**
 * What a player has received of a playable's media (§12 rule 6, §14 rule 4): the byte ranges its
 * attributed downloads delivered, per object and content version (`copy_received`), measured against
 * the objects as they are now.
 *
 * Decisions where §14 is silent:
 * - The objects to copy are the playable's `objects` that exist and are not in the trash; each must
 *   have content and be received in full (every byte of its current version, in any number of
 *   requests and ranges) for the copy to be complete. An object without content yet keeps the copy
 *   from completing; a playable with nothing to copy is complete at once.
 * - Bytes received of an earlier version count for nothing once the content is replaced.
 * - At most MAX_RANGES disjoint ranges are kept per object; past that the smallest are forgotten
 *   (the player is then counted short, never long).
 */
import type { Deps } from '../../deps';

/** A player's copy of some objects, measured now. */
export interface Progress {
  bytesDone: number;
  bytesTotal: number;
  /** Every object to copy has content and all of it was received. */
  complete: boolean;
}

/** `[start, end)` byte ranges, ascending, disjoint, not touching. */
export type Ranges = Array<[number, number]>;

const MAX_RANGES = 256;

/** `ranges` with `[start, end)` added, merged with what it overlaps or touches. */
export function addRange(ranges: Ranges, start: number, end: number): Ranges {
  if (end <= start) return ranges;
  const out: Ranges = [];
  let s = start;
  let e = end;
  let placed = false;
  for (const [a, b] of ranges) {
    if (b < s) out.push([a, b]);
    else if (a > e) {
      if (!placed) {
        out.push([s, e]);
        placed = true;
      }
      out.push([a, b]);
    } else {
      s = Math.min(s, a);
      e = Math.max(e, b);
    }
  }
  if (!placed) out.push([s, e]);
  if (out.length <= MAX_RANGES) return out;
  return out
    .sort((x, y) => y[1] - y[0] - (x[1] - x[0]))
    .slice(0, MAX_RANGES)
    .sort((x, y) => x[0] - y[0]);
}

/** The bytes the ranges cover. */
export function coveredBytes(ranges: Ranges): number {
  let n = 0;
  for (const [a, b] of ranges) n += b - a;
  return n;
}

interface Measured {
  id: number;
  status: string;
  size: number | null;
  sha256: string | null;
  gotSha256: string | null;
  got: number | null;
}

function measure(deps: Deps, playerId: number, objectIds: readonly number[]): Measured[] {
  return deps.sqlite
    .query<Measured, [number, string]>(
      `SELECT o.id AS id, o.status AS status, o.size AS size, o.sha256 AS sha256,
              r.sha256 AS gotSha256, r.bytes AS got
       FROM objects o LEFT JOIN copy_received r ON r.object_id = o.id AND r.player_id = ?1
       WHERE o.bucket = 'cms-media' AND o.id IN (SELECT value FROM json_each(?2))`,
    )
    .all(playerId, JSON.stringify([...new Set(objectIds)]));
}

/** How far `playerId` has received the objects (one query); player 0 gives the totals of a copy not yet begun. */
export function progressOf(deps: Deps, playerId: number, objectIds: readonly number[]): Progress {
  let bytesDone = 0;
  let bytesTotal = 0;
  let complete = true;
  if (objectIds.length === 0) return { bytesDone, bytesTotal, complete };
  for (const o of measure(deps, playerId, objectIds)) {
    if (o.status === 'deleted') continue;
    if (o.status !== 'uploaded' || o.size === null || o.sha256 === null) {
      complete = false;
      continue;
    }
    const got = o.gotSha256 === o.sha256 ? Math.min(o.got ?? 0, o.size) : 0;
    bytesTotal += o.size;
    bytesDone += got;
    if (got < o.size) complete = false;
  }
  return { bytesDone, bytesTotal, complete };
}
