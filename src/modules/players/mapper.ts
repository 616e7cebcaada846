/** The only row → wire mapping of a player (§13): the subsystem form (§3) plus what players add. */
import type { SubsystemRow } from '../../core/subsystems';
import { selfLink } from '../../http/links';
import type { SubsystemDto } from '../subsystems/model';
import type { DefaultStateDto, PlayerDto } from './model';

export type PlayerRow = SubsystemRow;

/**
 * `base` is the row's subsystem form with the monitor's live health; `zoneIds` the zones listing
 * the player as a member; `defaultState` with its `mediaDetails` computed for this read.
 */
export function toPlayerDto(
  base: SubsystemDto,
  row: PlayerRow,
  containerExternalId: string,
  zoneIds: number[],
  defaultState: DefaultStateDto,
): PlayerDto {
  return {
    ...base,
    _links: { ...base._links, self: selfLink('players', row.id) },
    kind: 'player',
    container: row.containerId ?? 0,
    containerExternalId,
    zoneIds,
    defaultState,
  };
}
