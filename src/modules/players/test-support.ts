/** Shared set-up for the player HTTP tests: two containers, a plain subsystem and an event recorder. */
import { addSubsystem, makeTestApp, recordEvents } from '../../../tests/helpers/app';
import { systemPrincipal } from '../../core/principal';
import { builtInRoleId } from '../roles/service';
import { createToken } from '../tokens/service';

export { errorBody, expectError, validationBody as validation } from '../../../tests/helpers/errors';

export const T0 = '2026-01-15T12:00:00.000Z';
export const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();

export async function playerApp() {
  const t = makeTestApp({ start: T0 });
  const wall = await addSubsystem(t, 'wall', { type: 'screenContainer' });
  const lobby = await addSubsystem(t, 'lobby', { type: 'signageContainer' });
  const media = await addSubsystem(t, 'media', { type: 'mediaServer' });
  const events = recordEvents(t);
  /** The events of one type, data only. */
  const emitted = (type: string) => events.filter((e) => e.type === type).map((e) => e.data);

  /** `POST /players` as admin (upsert); extra fields override. */
  const create = (body: Record<string, unknown>) =>
    t.call('POST', '/players', { as: 'admin', body: { container: wall._id, ...body } });
  /** A new player in `wall` (or the container given), its `_id`. */
  const add = async (externalId: string, body: Record<string, unknown> = {}): Promise<number> => {
    const res = await create({ externalId, ...body });
    if (res.status !== 201) throw new Error(`player ${externalId}: ${res.status} ${res.text}`);
    return res.body._id as number;
  };
  const read = async (id: string | number) => (await t.call('GET', `/players/${id}`, { as: 'admin' })).body;
  /** An integration token acting only for these subsystems. */
  const integrationFor = (...subsystemIds: number[]): string =>
    createToken(t.deps, systemPrincipal(), {
      displayName: `integration ${subsystemIds.join(',')}`,
      roleId: builtInRoleId(t.deps, 'integration'),
      subsystemIds,
    }).token ?? '';
  return { ...t, wall, lobby, media, events, emitted, create, add, read, integrationFor };
}

export type PlayerApp = Awaited<ReturnType<typeof playerApp>>;
