/** The field rules of §2 that a schema cannot say; each throws the one validation error. */

import { type SubsystemRow, subsystemNamedBy } from '../../core/subsystems';
import type { PanelScale } from '../../db/schema';
import type { Deps } from '../../deps';
import { longerThan } from '../../http/characters';
import { invalid } from '../../http/errors';
import { refuseNonFinite, unique } from '../../http/fields';
import { roleExists } from '../roles/service';
import type { ControlPanelWrite } from './model';

const MAX_URL = 2048;

/** `connection` as sent; its `url`, when present, must be an absolute http(s) URL of at most 2048 characters. */
export function connectionOf(connection: Record<string, unknown>): Record<string, unknown> {
  refuseNonFinite(connection, '/connection');
  const url = connection.url;
  if (url === undefined) return connection;
  if (typeof url !== 'string' || !URL.canParse(url) || !['http:', 'https:'].includes(new URL(url).protocol)) {
    throw invalid('/connection/url', 'must be an absolute http or https URL');
  }
  if (longerThan(url, MAX_URL)) throw invalid('/connection/url', `must be at most ${MAX_URL} characters`);
  return connection;
}

/** An iframe panel is nothing without the address it embeds. */
export function requireIframeUrl(type: string, connection: Record<string, unknown>): void {
  if (type === 'iframe' && connection.url === undefined) {
    throw invalid('/connection/url', 'is required for an iframe panel');
  }
}

/** Merges a `scale` patch key by key (null clears a size); an enabled scale needs both sizes. */
export function scaleOf(current: PanelScale, patch: ControlPanelWrite['scale']): PanelScale {
  if (patch === undefined) return current;
  const next: PanelScale = { ...current, enabled: patch.enabled ?? current.enabled };
  for (const key of ['width', 'height'] as const) {
    const value = patch[key];
    if (value === null) delete next[key];
    else if (value !== undefined) next[key] = value;
  }
  if (next.enabled) {
    for (const key of ['width', 'height'] as const) {
      if (next[key] === undefined) throw invalid(`/scale/${key}`, 'is required when scale is enabled');
    }
  }
  return next;
}

/** Role ids that must all exist (400 at `/roles/<n>`), duplicates dropped. */
export function rolesOf(deps: Deps, roles: readonly number[]): number[] {
  roles.forEach((id, i) => {
    if (!roleExists(deps, id)) throw invalid(`/roles/${i}`, 'names a role that does not exist');
  });
  return unique(roles);
}

/** The subsystem a new registered panel belongs to: `subsystemId` or `subsystemExternalId` (404 when unknown). */
export function subsystemOf(deps: Deps, body: ControlPanelWrite): SubsystemRow {
  const subsystem = subsystemNamedBy(deps, body);
  if (!subsystem) throw invalid('/subsystemId', 'is required');
  return subsystem;
}
