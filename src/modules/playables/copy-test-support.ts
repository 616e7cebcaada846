/**
 * Shared set-up for the copy-to-player tests (§14 rule 4): a container `wall` with players `s1` and
 * `s2`, a plain subsystem `media`, two uploaded objects, and a media playable of the wall naming both.
 */
import { addSubsystem, makeTestApp, recordEvents } from '../../../tests/helpers/app';
import { putBytes, uploadedObject } from '../objects/test-support';

export { errorBody, expectError, validationBody as validation } from '../../../tests/helpers/errors';

export const T0 = '2026-01-15T12:00:00.000Z';

/** `n` bytes of a repeating pattern (a file the probe calls `other`). */
export function bytesOf(n: number, seed = 1): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (i * 7 + seed) % 251;
  return out;
}

export async function copyApp() {
  const t = makeTestApp({ start: T0 });
  const wall = await addSubsystem(t, 'wall', { type: 'screenContainer' });
  const other = await addSubsystem(t, 'lobby', { type: 'signageContainer' });
  const media = await addSubsystem(t, 'media');
  const addPlayer = async (externalId: string, container = 'wall') => {
    const res = await t.call('POST', '/players', { as: 'admin', body: { externalId, container } });
    if (res.status !== 201) throw new Error(`player ${externalId}: ${res.status} ${res.text}`);
    return res.body._id as number;
  };
  const s1 = await addPlayer('s1');
  const s2 = await addPlayer('s2');
  const elsewhere = await addPlayer('x1', 'lobby');
  const clip = await uploadedObject(t, 'clip.bin', bytesOf(1000));
  const still = await uploadedObject(t, 'still.bin', bytesOf(200, 3));
  const registered = await t.call('POST', '/playables', {
    as: 'admin',
    body: { subsystemExternalId: 'wall', externalRef: 'loop', type: 'media', objects: [clip._id, still._id] },
  });
  if (registered.status !== 201) throw new Error(`playable: ${registered.text}`);
  const playable = registered.body as { _id: number };
  const events = recordEvents(t, (e) => e.type === 'playable.copy_status_changed');

  const status = async (id: number = playable._id) =>
    (await t.call('GET', `/playables/${id}/copyToPlayerStatus`, { as: 'admin' })).body;
  const copy = (body: Record<string, unknown> = {}, id: number = playable._id) =>
    t.call('POST', `/playables/${id}/copyToPlayer`, { as: 'admin', body });
  const report = (player: string, body: Record<string, unknown>, id: number = playable._id) =>
    t.call('PUT', `/playables/${id}/copyToPlayerStatus/${player}`, { as: 'admin', body });
  /** The player's entry of the status, by externalId. */
  const entry = async (externalId: string) =>
    ((await status()).players as Array<Record<string, unknown>>).find((p) => p.externalId === externalId);

  /**
   * Downloads an object's content as a viewer, reading the whole body, then commits the writer's batch
   * (where an attributed download is recorded). `query` and `headers` add to the request.
   */
  const download = async (
    objectId: number,
    options: { query?: Record<string, string>; headers?: Record<string, string> } = {},
  ) => {
    const url = new URL(`http://localhost/api/v1/objects/${objectId}/content`);
    for (const [k, v] of Object.entries(options.query ?? {})) url.searchParams.set(k, v);
    const res = await t.app.handle(
      new Request(url.toString(), { headers: { authorization: `Bearer ${t.tokenFor('viewer')}`, ...options.headers } }),
    );
    const bytes = new Uint8Array(await res.arrayBuffer());
    await settle();
    return { status: res.status, bytes };
  };
  /** Lets a finished stream's report reach the writer, and commits its batch. */
  const settle = async () => {
    await Bun.sleep(0);
    t.deps.work.drain();
    await Bun.sleep(0);
  };
  const replace = (objectId: number, bytes: Uint8Array) => putBytes(t, `/objects/${objectId}/content`, bytes);

  return {
    ...t,
    wall,
    other,
    media,
    s1,
    s2,
    elsewhere,
    clip,
    still,
    playable,
    events,
    addPlayer,
    status,
    copy,
    report,
    entry,
    download,
    settle,
    replace,
  };
}

export type CopyApp = Awaited<ReturnType<typeof copyApp>>;
