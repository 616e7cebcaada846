/**
 * The licence's limits (§19 rules 2 and 3): what is in use, and the one check the create paths of
 * subsystems, players and users call before inserting (`requireLicenseRoom`). Only creating is ever
 * refused; nothing existing is removed, disabled or refused, whatever the status, and with no licence
 * installed nothing is limited. An expired licence's limits keep applying (rule 3).
 *
 * The counts are read here from the tables rather than through the owners' services: those services
 * call this file from their create paths, so reaching back into them would close an import circle.
 * Players are subsystem rows of kind `player` and count as players only. The administrator made at
 * the first start (`PMS_INITIAL_ADMIN_PASSWORD`) or by `pmsd user add --admin` is never refused:
 * those are how an appliance gets an administrator back, whatever its licence.
 */
import { count, eq } from 'drizzle-orm';
import { prepared } from '../../db/prepared';
import { subsystems, users } from '../../db/schema';
import type { Deps } from '../../deps';
import { AppError } from '../../http/errors';
import type { LimitName } from './document';
import { loaded } from './store';

export type Usage = Record<LimitName, number>;

const statements = (deps: Deps) =>
  prepared(deps, 'license', () => ({
    subsystems: deps.db.select({ n: count() }).from(subsystems).where(eq(subsystems.kind, 'subsystem')).prepare(),
    players: deps.db.select({ n: count() }).from(subsystems).where(eq(subsystems.kind, 'player')).prepare(),
    users: deps.db.select({ n: count() }).from(users).prepare(),
  }));

/** How many of `name` exist. */
export function usageOf(deps: Deps, name: LimitName): number {
  return statements(deps)[name].get()?.n ?? 0;
}

export function usage(deps: Deps): Usage {
  return { subsystems: usageOf(deps, 'subsystems'), players: usageOf(deps, 'players'), users: usageOf(deps, 'users') };
}

/**
 * 409 `conflict` (detail path `/license/limits/<name>`) when the installed licence allows no more of
 * `name`; nothing when it does or when no licence is installed. Call it on the create path, in the
 * same synchronous stretch (or unit) as the insert, so two creates cannot both take the last place.
 */
export function requireLicenseRoom(deps: Deps, name: LimitName): void {
  const limit = loaded(deps).installed?.license.limits[name] ?? null;
  if (limit === null) return;
  const used = usageOf(deps, name);
  if (used < limit) return;
  throw new AppError(
    'conflict',
    `the license allows ${limit} ${limit === 1 ? name.slice(0, -1) : name} and ${used} exist; install a license with a higher limit to add more`,
    [{ path: `/license/limits/${name}`, message: `allows ${limit}` }],
  );
}
