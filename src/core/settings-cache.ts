/**
 * What settings keep per daemon (`deps.settings`): the stored groups, read once, and what is worked
 * out from them on every request. Data only: settings.ts fills it and drops it on every write. Apart
 * from settings.ts because that file takes Deps, and deps.ts must not import what imports it.
 */
import type { RateLimitSettings } from '../config';
import type { Cidr } from '../http/net';

export interface CachedSettings {
  groups: Map<string, unknown>;
  trusted?: Cidr[];
  rateLimits?: RateLimitSettings;
}

export class SettingsCache {
  /** null until read, and again after any settings write. */
  current: CachedSettings | null = null;
}
