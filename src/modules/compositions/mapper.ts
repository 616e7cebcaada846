import type { compositions } from '../../db/schema';
import { entityMeta } from '../../http/entity';
import { selfLink } from '../../http/links';
import type { CompositionDto } from './model';

export type CompositionRow = typeof compositions.$inferSelect;

/**
 * The only row → wire mapping of a composition. `duration` is the one it plays: its own, else the one
 * its playable took from the template (`playableDuration`, 0 without a playable). `_links` name its
 * subsystem, its template while it is not broken (a broken composition's template is gone or is no
 * template any more: the link would lead a client to a 404 or to another kind of playable;
 * `templatePath` still names it) and, while it has one, its playable.
 */
export function toCompositionDto(
  row: CompositionRow,
  subsystemExternalId: string,
  playableDuration: number | null,
): CompositionDto {
  const links: Record<string, string> = { subsystem: selfLink('subsystems', row.subsystemId) };
  if (row.status !== 'broken') links.template = selfLink('playables', row.templatePath._id);
  if (row.playableId !== null) links.playable = selfLink('playables', row.playableId);
  return {
    ...entityMeta(row, 'compositions', links),
    subsystemId: row.subsystemId,
    subsystemExternalId,
    externalRef: row.externalRef,
    displayName: row.displayName,
    description: row.description,
    templatePath: row.templatePath,
    slots: row.slots,
    parameters: row.parameters,
    duration: row.duration ?? playableDuration ?? 0,
    status: row.status,
    playableId: row.playableId,
  };
}
