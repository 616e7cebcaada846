import type { StoredPlaylistEntry } from '../../../db/schema';
import { entityMeta } from '../../../http/entity';
import type { PlaylistRow } from '../snapshot/loaded';
import type { PlaylistDto } from './model';

/** What a playlist entry's target is now; null when it is gone. */
export interface EntryTarget {
  displayName: string;
  /** ms of one play (events: 0; playables without a fixed duration: 0). */
  durationMs: number;
}

/** The only row → wire mapping of a playlist: entries with their target's name, `missing`, and one pass's `duration`. */
export function toPlaylistDto(
  row: PlaylistRow,
  targetOf: (entry: StoredPlaylistEntry) => EntryTarget | null,
): PlaylistDto {
  let duration = 0;
  const entries = row.entries.map((entry) => {
    const target = targetOf(entry);
    if (entry.itemType === 'PLAYABLE') duration += entry.durationMs ?? target?.durationMs ?? 0;
    return {
      itemType: entry.itemType,
      itemId: entry.itemId,
      durationMs: entry.durationMs,
      displayName: target?.displayName ?? '',
      missing: target === null,
    };
  });
  return {
    ...entityMeta(row, 'playlists'),
    displayName: row.displayName,
    description: row.description,
    entries,
    loop: row.loop,
    shuffle: row.shuffle,
    duration,
  };
}
