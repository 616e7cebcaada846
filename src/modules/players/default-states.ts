/**
 * Player default states that name media which is going away (§13 "Never lost": the default state,
 * unless its media is force-deleted, then `none`). Apart from the players service so the modules that
 * delete media (objects, playlists) can call it without a circle through what the service reads.
 */
import { and, eq } from 'drizzle-orm';
import { forgetSubsystem } from '../../core/subsystems';
import { subsystems } from '../../db/schema';
import type { Deps } from '../../deps';
import { emit } from '../../realtime/emit';

export interface ClearedPlayer {
  id: number;
  externalId: string;
  displayName: string;
}

/** The players whose default state shows this object (`single`) or playlist. */
export function playersShowing(deps: Deps, mediaType: 'single' | 'playlist', mediaId: number): ClearedPlayer[] {
  return deps.db
    .select({ id: subsystems.id, externalId: subsystems.externalId, displayName: subsystems.displayName })
    .from(subsystems)
    .where(
      and(
        eq(subsystems.kind, 'player'),
        eq(subsystems.defaultMediaType, mediaType),
        eq(subsystems.defaultMediaId, mediaId),
      ),
    )
    .all();
}

/**
 * Inside the deleting unit: turns those players' default states to `none`; each emits
 * `player.updated` (changed `defaultState`) and `player.default_state_changed`. Returns the players,
 * for the deleting event to name (players/listeners.ts raises the notification from it).
 */
export function clearDefaultStates(deps: Deps, mediaType: 'single' | 'playlist', mediaId: number): ClearedPlayer[] {
  const players = playersShowing(deps, mediaType, mediaId);
  const now = deps.clock.now();
  for (const player of players) {
    deps.db
      .update(subsystems)
      .set({ defaultMediaType: 'none', defaultMediaId: null, updatedAt: now })
      .where(eq(subsystems.id, player.id))
      .run();
    forgetSubsystem(deps, player.id);
    emit(deps, 'player.updated', { _id: player.id, externalId: player.externalId, changed: ['defaultState'] });
    emit(deps, 'player.default_state_changed', {
      _id: player.id,
      externalId: player.externalId,
      defaultState: { mediaType: 'none', mediaId: null },
    });
  }
  return players;
}
