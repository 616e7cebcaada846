/** Shared set-up for the parameter and preset HTTP tests. */
import { addSubsystem, makeTestApp, recordEvents, rowCount } from '../../../tests/helpers/app';
import type { Config } from '../../config';
import { systemPrincipal } from '../../core/principal';
import { builtInRoleId } from '../roles/service';
import { createToken } from '../tokens/service';

export { errorBody, validationBody as validation } from '../../../tests/helpers/errors';

type As = 'admin' | 'operator' | 'viewer' | 'integration';

/**
 * A test app recording every event, with two subsystems (`media`, `gfx`), `param(body)` upserting a
 * parameter of `media` as admin, `beat(id)` collecting the subsystem's heartbeat messages from the
 * trusted loopback address, and counters to prove a refused request changed nothing.
 */
export async function parameterApp(options: { config?: Partial<Config> } = {}) {
  const t = makeTestApp(options);
  const events = recordEvents(t);
  const media = await addSubsystem(t, 'media');
  const gfx = await addSubsystem(t, 'gfx');

  /** Upserts a parameter of `media` as admin; fields override. Throws unless 200/201. */
  const param = async (body: Record<string, unknown>, as: As = 'admin') => {
    const res = await t.call('POST', '/parameters', { as, body: { subsystemExternalId: 'media', ...body } });
    if (res.status !== 201 && res.status !== 200) throw new Error(`parameter failed: ${res.text}`);
    return res.body;
  };
  /** The messages the subsystem's next heartbeat answer carries. */
  const beat = async (id = 'media') =>
    (await t.call('PUT', `/subsystems/${id}/heartbeat`, { from: '127.0.0.1' })).body.messages;
  /** Forgets what set-up caused: collects waiting messages and clears the recorded events. */
  const settle = async () => {
    for (const id of ['media', 'gfx']) await beat(id);
    events.length = 0;
  };
  /** Events of one type, data only. */
  const emitted = (type: string) => events.filter((e) => e.type === type).map((e) => e.data);
  const count = (table: 'parameters' | 'presets' | 'preset_entries' | 'subsystem_messages') => rowCount(t, table);
  /** Every parameter row as `externalRef=value`, to prove what was stored. */
  const values = () =>
    t.deps.sqlite
      .query<{ ref: string; value: string | null }, []>('SELECT external_ref AS ref, value FROM parameters ORDER BY id')
      .all()
      .map((r) => `${r.ref}=${r.value}`);
  /** An integration-role token acting only for the given subsystems. */
  const integrationToken = (subsystemIds: number[]) =>
    createToken(t.deps, systemPrincipal(), {
      displayName: 'limited integration',
      roleId: builtInRoleId(t.deps, 'integration'),
      subsystemIds,
    }).token ?? '';
  return { ...t, events, media, gfx, param, beat, settle, emitted, count, values, integrationToken };
}

export type ParameterApp = Awaited<ReturnType<typeof parameterApp>>;
