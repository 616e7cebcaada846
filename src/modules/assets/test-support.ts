/** Shared set-up for the assets HTTP tests. */
import { addSubsystem, makeTestApp, recordEvents, rowCount } from '../../../tests/helpers/app';
import { systemPrincipal } from '../../core/principal';
import { builtInRoleId } from '../roles/service';
import { createToken } from '../tokens/service';
import { upsertVariable } from '../variables/service';

export { errorBody, validationBody as validation } from '../../../tests/helpers/errors';

/** A test app recording bus events, with two subsystems (`snmp-1`, `other`) and helpers. */
export async function assetsApp() {
  const t = makeTestApp();
  const events = recordEvents(t);
  const snmp = await addSubsystem(t, 'snmp-1', { displayName: 'SNMP' });
  const other = await addSubsystem(t, 'other', { displayName: 'Other' });
  const create = (body: Record<string, unknown>, as: 'admin' | 'operator' | 'integration' | 'viewer' = 'admin') =>
    t.call('POST', '/assets', { as, body });
  /** Creates an asset as admin and returns its `_id`. */
  const make = async (body: Record<string, unknown>): Promise<number> => {
    const res = await create(body);
    if (res.status !== 201) throw new Error(`asset not created: ${res.status} ${res.text}`);
    return res.body._id;
  };
  /** A variable of `snmp-1` attached to the asset, through the service. */
  const metric = async (externalRef: string, fields: Record<string, unknown> = {}) =>
    (await upsertVariable(t.deps, systemPrincipal(), { subsystemId: snmp._id, externalRef, ...fields })).entity;
  /** An integration token limited to `snmp-1`. */
  const integrationToken = () =>
    createToken(t.deps, systemPrincipal(), {
      displayName: 'snmp poller',
      roleId: builtInRoleId(t.deps, 'integration'),
      subsystemIds: [snmp._id],
    }).token ?? '';
  const count = () => rowCount(t, 'assets');
  const auditKeys = () =>
    t.deps.sqlite
      .query<{ key: string }, []>("SELECT key FROM logs WHERE category = 'audit' ORDER BY id")
      .all()
      .map((r) => r.key);
  return { ...t, events, snmp, other, create, make, metric, integrationToken, count, auditKeys };
}
