import type { controlPanels } from '../../db/schema';
import { entityMeta } from '../../http/entity';
import type { ControlPanelDto } from './model';

export type ControlPanelRow = typeof controlPanels.$inferSelect;

/** The only row → wire mapping of a panel; available panels name their registered panel. */
export function toControlPanelDto(
  row: ControlPanelRow,
  subsystemExternalId: string,
  registeredDisplayName: string | null,
): ControlPanelDto {
  return {
    ...entityMeta(row, 'controlpanels'),
    location: row.location,
    subsystemId: row.subsystemId,
    subsystemExternalId,
    externalRef: row.location === 'registered' ? row.externalRef : null,
    displayName: row.displayName,
    description: row.description,
    type: row.type,
    connection: row.connection,
    active: row.active,
    registeredPanelId: row.registeredPanelId,
    roles: row.roles,
    scale: row.scale,
    openExternally: row.openExternally,
    ...(row.location === 'available' && registeredDisplayName !== null
      ? { displayNameRegisteredPanel: registeredDisplayName }
      : {}),
  };
}
