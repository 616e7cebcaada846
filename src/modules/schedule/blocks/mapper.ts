import type { StoredBlockItem } from '../../../db/schema';
import { entityMeta } from '../../../http/entity';
import { selfLink } from '../../../http/links';
import type { BlockRow } from '../snapshot/loaded';
import type { BlockDto } from './model';

const COLLECTION: Record<StoredBlockItem['type'], string> = {
  EVENT: 'events',
  PLAYABLE: 'playables',
  PLAYLIST: 'playlists',
  START_PLAYLIST: 'playlists',
  STOP_PLAYLIST: 'playlists',
  BLOCK: 'schedule/blocks',
};

/** The only row → wire mapping of a block: its zone's name and, per item, the target's name, its length and link. */
export function toBlockDto(row: BlockRow, zone: string, nameOf: (item: StoredBlockItem) => string): BlockDto {
  return {
    ...entityMeta(row, 'schedule/blocks'),
    displayName: row.displayName,
    description: row.description,
    duration: row.duration,
    zoneId: row.zoneId,
    zone,
    items: row.items.map((item) => ({
      type: item.type,
      typeId: item.typeId,
      startTimeOffset: item.startTimeOffset ?? 0,
      endTimeOffset: item.endTimeOffset,
      displayName: nameOf(item),
      duration: item.endTimeOffset === null ? 0 : item.endTimeOffset - (item.startTimeOffset ?? 0),
      _links: { self: selfLink(COLLECTION[item.type], item.typeId) },
    })),
  };
}
