import { describe, expect, it } from 'bun:test';
import { mp4 } from '../objects/probe/test-support';
import { newObject, pngBytes, uploadedObject } from '../objects/test-support';
import { queueMessage } from './actions';
import { errorBody, subsystemApp as setup, validation } from './test-support';

const T0 = '2026-01-15T12:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();

/** A registered control panel of `subsystem`, for a preview to name. */
async function panelOf(t: ReturnType<typeof setup>, subsystem: string): Promise<number> {
  const panel = await t.call('POST', '/controlpanels', {
    as: 'admin',
    body: {
      subsystemExternalId: subsystem,
      externalRef: `preview-${subsystem}`,
      connection: { url: 'http://panel.local/ui' },
    },
  });
  expect(panel.status).toBe(201);
  return panel.body._id;
}

describe('PUT /subsystems/:id/action', () => {
  it.each([
    [{}, '/type', 'is required'],
    [{ type: 'dance' }, '/type', 'must be one of: forcePlay, forceStop, previewPlay, previewStop, identify'],
    [{ type: 'forcePlay' }, '/playableId', 'is required'],
    [{ type: 'forcePlay', playableId: 999 }, '/playableId', 'is not a playable of this subsystem'],
    [{ type: 'forcePlay', objectId: 5 }, '/objectId', 'names no object in cms-media'],
    [{ type: 'previewPlay', objectId: 5 }, '/objectId', 'names no object in cms-media'],
    [{ type: 'forcePlay', playableId: 1, objectId: 5 }, '/objectId', 'must not be sent with playableId'],
    [{ type: 'forcePlay', playableId: 1, playType: 'twice' }, '/playType', 'must be one of: once, infinite'],
    [{ type: 'previewPlay' }, '/playableId', 'is required'],
    [{ type: 'forceStop', zoneId: 0 }, '/zoneId', 'must be an integer from 1 to 65535'],
    [{ type: 'identify', topic: 'x'.repeat(257) }, '/topic', 'must be a string of at most 256 characters'],
  ])('refuses %j and queues nothing', async (body, path, message) => {
    const t = setup();
    await t.create({ externalId: 'media' });
    const res = await t.call('PUT', '/subsystems/media/action', { as: 'admin', body });
    expect(res.body).toEqual(validation(res, path, message));
    expect((await t.call('GET', '/subsystems/media/actions', { as: 'admin' })).body).toEqual([]);
    expect(t.emitted('subsystem.action.queued')).toEqual([]);
  });

  it('404 for an unknown subsystem', async () => {
    const t = setup();
    const res = await t.call('PUT', '/subsystems/nope/action', { as: 'admin', body: { type: 'identify' } });
    expect(res.body).toEqual(errorBody(res, 404, 'not_found', 'subsystem nope not found'));
  });

  it('needs subsystems:write: the integration role and viewers are refused, a limited token only acts for its own', async () => {
    const t = setup();
    await t.create({ externalId: 'media' });
    const other = (await t.create({ externalId: 'other' })).body._id;
    for (const opts of [{ as: 'integration' as const }, { as: 'viewer' as const }, { from: '127.0.0.1' }]) {
      const res = await t.call('PUT', '/subsystems/media/action', { ...opts, body: { type: 'identify' } });
      expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this needs the subsystems:write permission'));
    }
    const limited = t.tokenWith(['subsystems:write'], [other]);
    const res = await t.call('PUT', '/subsystems/media/action', { token: limited, body: { type: 'identify' } });
    expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this credential does not act for that subsystem'));
    expect(
      (await t.call('PUT', '/subsystems/other/action', { token: limited, body: { type: 'identify' } })).status,
    ).toBe(202);
    expect((await t.call('GET', '/subsystems/media/actions', { as: 'admin' })).body).toEqual([]);
  });
});

describe('forcePlay and previewPlay', () => {
  async function withPlayable() {
    const t = setup();
    await t.create({ externalId: 'media' });
    await t.create({ externalId: 'other' });
    const make = async (subsystem: string, body: Record<string, unknown> = {}) =>
      (
        await t.call('POST', '/playables', {
          as: 'admin',
          body: { subsystemExternalId: subsystem, externalRef: 'show', command: 'PLAY show', duration: 5000, ...body },
        })
      ).body;
    return { t, make };
  }

  it('queues forcePlay with the instant playable, the zone and the play type, delivered by the heartbeat', async () => {
    const { t, make } = await withPlayable();
    const playable = await make('media');
    const stage = await t.call('POST', '/zones', { as: 'admin', body: { displayName: 'Stage' } });
    expect(stage.body._id).toBe(2);
    const res = await t.call('PUT', '/subsystems/media/action', {
      as: 'operator',
      body: { type: 'forcePlay', playableId: playable._id, zoneId: 2, playType: 'infinite' },
    });
    expect(res.status).toBe(202);
    const beat = await t.beat('media');
    expect(beat.body.messages).toEqual([
      {
        uuid: res.body.uuid,
        type: 'forcePlay',
        createdAt: res.body.createdAt,
        zone: 'Stage',
        zoneId: 2,
        playType: 'infinite',
        payload: {
          playable: expect.objectContaining({
            _id: playable._id,
            externalRef: 'show',
            command: 'PLAY show',
            duration: 5000,
          }),
        },
      },
    ]);
  });

  it("queues previewPlay with the control panel, and refuses another subsystem's or an inactive playable", async () => {
    const { t, make } = await withPlayable();
    const mine = await make('media', { active: false });
    const theirs = await make('other');
    const panelId = await panelOf(t, 'media');
    const preview = await t.call('PUT', '/subsystems/media/action', {
      as: 'admin',
      body: { type: 'previewPlay', playableId: mine._id, controlPanelId: panelId },
    });
    expect(preview.status).toBe(202);
    expect((await t.beat('media')).body.messages[0].payload).toEqual({
      playable: expect.objectContaining({ _id: mine._id }),
      controlPanelId: panelId,
    });
    const inactive = await t.call('PUT', '/subsystems/media/action', {
      as: 'admin',
      body: { type: 'forcePlay', playableId: mine._id },
    });
    expect(inactive.body).toEqual(
      errorBody(inactive, 409, 'conflict', `playable ${mine._id} is inactive or unavailable in its subsystem`),
    );
    const foreign = await t.call('PUT', '/subsystems/media/action', {
      as: 'admin',
      body: { type: 'forcePlay', playableId: theirs._id },
    });
    expect(foreign.body).toEqual(validation(foreign, '/playableId', 'is not a playable of this subsystem'));
    expect((await t.beat('media')).body.messages).toEqual([]);
  });
});

describe('forcePlay and previewPlay of a cms-media object (objectId)', () => {
  async function withMedia() {
    const t = setup();
    await t.create({ externalId: 'screen', directMediaPlayback: true });
    await t.create({ externalId: 'show' });
    const clip = await uploadedObject(t, 'clip.mp4', mp4());
    return { t, clip };
  }
  const act = (t: ReturnType<typeof setup>, id: string, body: Record<string, unknown>) =>
    t.call('PUT', `/subsystems/${id}/action`, { as: 'admin', body });

  it('queues the instant playable of the object (§14 rule 1), delivered by the heartbeat', async () => {
    const { t, clip } = await withMedia();
    for (const displayName of ['Stage', 'Foyer'])
      await t.call('POST', '/zones', { as: 'admin', body: { displayName } });
    const res = await act(t, 'screen', { type: 'forcePlay', objectId: clip._id, zoneId: 3 });
    expect(res.status).toBe(202);
    const [message] = (await t.beat('screen')).body.messages;
    const self = { self: `api/v1/objects/${clip._id}` };
    const object = (await t.call('GET', `/objects/${clip._id}`, { as: 'admin' })).body;
    expect(message).toMatchObject({ type: 'forcePlay', zone: 'Foyer', zoneId: 3, playType: 'once' });
    expect(message.payload).toEqual({
      playable: {
        _id: null,
        type: 'media',
        displayName: 'clip.mp4',
        externalRef: null,
        command: JSON.stringify({ data: { video: self } }),
        duration: 10010,
        durationType: 'static',
        objects: [clip._id],
        objectsDetails: [
          {
            ...object,
            _links: {
              ...object._links,
              get: expect.stringMatching(
                new RegExp(`^http://localhost/api/v1/objects/${clip._id}/content\\?expires=\\d+&signature=`),
              ),
            },
          },
        ],
        thumbId: null,
        active: true,
        autoSync: false,
        isCached: false,
        metadata: {},
        group_name: '',
      },
    });
    const image = await uploadedObject(t, 'poster.png', pngBytes(16, 9));
    const controlPanelId = await panelOf(t, 'screen');
    const preview = await act(t, 'screen', { type: 'previewPlay', objectId: image._id, controlPanelId });
    expect(preview.status).toBe(202);
    expect((await t.beat('screen')).body.messages[0].payload).toEqual({
      playable: expect.objectContaining({
        _id: null,
        command: JSON.stringify({
          data: { image: { self: `api/v1/objects/${image._id}` }, video: { self: `api/v1/objects/${image._id}` } },
        }),
        duration: 10_000,
      }),
      controlPanelId,
    });
  });

  it('409 for an object without content or in the trash, and for a subsystem without directMediaPlayback', async () => {
    const { t, clip } = await withMedia();
    const pending = await newObject(t, 'later.mp4');
    const waiting = await act(t, 'screen', { type: 'forcePlay', objectId: pending._id });
    expect(waiting.body).toEqual(
      errorBody(waiting, 409, 'conflict', `object ${pending._id} has no content yet; only uploaded media plays`),
    );
    const old = await uploadedObject(t, 'old.mp4', mp4());
    await t.call('DELETE', `/objects/${old._id}`, { as: 'admin' });
    const trashed = await act(t, 'screen', { type: 'previewPlay', objectId: old._id });
    expect(trashed.body).toEqual(
      errorBody(trashed, 409, 'conflict', `object ${old._id} is in the trash; only uploaded media plays`),
    );
    for (const type of ['forcePlay', 'previewPlay']) {
      const res = await act(t, 'show', { type, objectId: clip._id });
      expect(res.body).toEqual(
        errorBody(res, 409, 'conflict', 'subsystem show does not play media objects (directMediaPlayback is false)'),
      );
    }
    expect(await t.beat('screen')).toMatchObject({ body: { messages: [] } });
    expect(await t.beat('show')).toMatchObject({ body: { messages: [] } });
    expect(t.emitted('subsystem.action.queued')).toEqual([]);
  });

  it('sends a media playable only to a subsystem with directMediaPlayback', async () => {
    const { t, clip } = await withMedia();
    const make = async (subsystem: string) =>
      (
        await t.call('POST', '/playables', {
          as: 'admin',
          body: { subsystemExternalId: subsystem, externalRef: 'clip', type: 'media', objects: [clip._id] },
        })
      ).body;
    const own = await make('screen');
    const theirs = await make('show');
    expect((await act(t, 'screen', { type: 'forcePlay', playableId: own._id })).status).toBe(202);
    expect((await t.beat('screen')).body.messages[0].payload.playable).toMatchObject({
      _id: own._id,
      command: JSON.stringify({ data: { video: { self: `api/v1/objects/${clip._id}` } } }),
      objectsDetails: [expect.objectContaining({ _id: clip._id, status: 'uploaded' })],
    });
    const refused = await act(t, 'show', { type: 'forcePlay', playableId: theirs._id });
    expect(refused.body).toEqual(
      errorBody(refused, 409, 'conflict', 'subsystem show does not play media objects (directMediaPlayback is false)'),
    );
  });
});

describe('object links in a play message: built for the host of whoever reads it', () => {
  it("the heartbeat gets them on the host the player used, not the operator's; the actions list on its reader's", async () => {
    const t = setup({ start: T0 });
    await t.create({ externalId: 'screen', directMediaPlayback: true });
    const clip = await uploadedObject(t, 'clip.mp4', mp4());
    const media = await t.call('POST', '/playables', {
      as: 'admin',
      body: { subsystemExternalId: 'screen', externalRef: 'clip', type: 'media', objects: [clip._id] },
    });
    // An operator's browser reaches the appliance as pms.example (a tunnel, a DNS name the player lacks).
    const operator = { as: 'admin' as const, host: 'pms.example' };
    for (const body of [
      { type: 'forcePlay', objectId: clip._id },
      { type: 'previewPlay', playableId: media.body._id },
    ]) {
      expect((await t.call('PUT', '/subsystems/screen/action', { ...operator, body })).status).toBe(202);
    }
    expect((await t.call('POST', `/playables/${media.body._id}/play`, { ...operator, body: {} })).status).toBe(202);
    const list = await t.call('GET', '/subsystems/screen/actions', { as: 'admin', host: 'desk.local:8080' });
    for (const m of list.body) {
      expect(m.payload.playable.objectsDetails[0]._links.get).toStartWith(
        `http://desk.local:8080/api/v1/objects/${clip._id}/content?`,
      );
    }
    t.clock.advance(1000);
    for (let i = 0; i < 3; i += 1) {
      const beat = await t.call('PUT', '/subsystems/screen/heartbeat', { from: '127.0.0.1', host: '10.0.0.5' });
      const [message] = beat.body.messages;
      const details = message.payload.playable.objectsDetails;
      expect(details).toHaveLength(1);
      expect(details[0]._links).toMatchObject({
        self: `/api/v1/objects/${clip._id}`,
        object: `/api/v1/objects/${clip._id}/content`,
      });
      const get = new URL(details[0]._links.get);
      expect(get.origin).toBe('http://10.0.0.5');
      // Signed at delivery: 24 h from now, and it downloads without a credential.
      expect(Number(get.searchParams.get('expires'))).toBe(Math.floor((Date.parse(T0) + 1000 + 24 * 3600_000) / 1000));
      const download = await t.call('GET', `${get.pathname}${get.search}`, { host: '10.0.0.5' });
      expect(download.status).toBe(200);
    }
  });
});

describe('GET /subsystems/:id/actions', () => {
  it('lists the last 24 h, newest first, with state and delivery time', async () => {
    const t = setup();
    const { body } = await t.create({ externalId: 'media' });
    await t.call('PUT', '/subsystems/media/action', { as: 'admin', body: { type: 'identify', topic: 'old' } });
    t.clock.advance(25 * 3600_000);
    const a = await t.call('PUT', '/subsystems/media/action', { as: 'admin', body: { type: 'identify', topic: 'a' } });
    t.clock.advance(1000);
    await t.beat('media');
    for (const displayName of ['Stage', 'Foyer'])
      await t.call('POST', '/zones', { as: 'admin', body: { displayName } });
    const b = await t.call('PUT', '/subsystems/media/action', { as: 'admin', body: { type: 'forceStop', zoneId: 3 } });
    const res = await t.call('GET', `/subsystems/${body._id}/actions`, { as: 'viewer' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        uuid: b.body.uuid,
        type: 'forceStop',
        state: 'queued',
        createdAt: at(25 * 3600_000 + 1000),
        expiresAt: at(25 * 3600_000 + 61_000),
        deliveredAt: null,
        zone: 'Foyer',
        zoneId: 3,
        payload: {},
        subsystemId: body._id,
      },
      {
        uuid: a.body.uuid,
        type: 'identify',
        state: 'delivered',
        createdAt: at(25 * 3600_000),
        expiresAt: at(25 * 3600_000 + 60_000),
        deliveredAt: at(25 * 3600_000 + 1000),
        payload: { topic: 'a' },
        subsystemId: body._id,
      },
    ]);
  });

  it('shows at most 100 and shows a queued message past its expiry as expired (each counts from the head)', async () => {
    const t = setup();
    const { body } = await t.create({ externalId: 'media' });
    for (let i = 0; i < 105; i++) {
      queueMessage(t.deps, body._id, { type: 'identify', payload: { topic: String(i) } });
      t.clock.advance(10);
    }
    const res = await t.call('GET', '/subsystems/media/actions', { as: 'admin' });
    expect(res.body).toHaveLength(100);
    expect(res.body[0].payload).toEqual({ topic: '104' });
    expect(res.body[99].payload).toEqual({ topic: '5' });
    // The oldest reached the head when the 101st pushed the first out; those behind it wait their turn.
    t.clock.advance(60_000);
    const later = await t.call('GET', '/subsystems/media/actions', { as: 'admin' });
    const states = later.body.map((m: { state: string }) => m.state);
    expect(states.slice(-1)).toEqual(['expired']);
    expect(states.slice(0, -1)).toEqual(Array(99).fill('queued'));
    t.clock.advance(99 * 60_000);
    const last = await t.call('GET', '/subsystems/media/actions', { as: 'admin' });
    expect(last.body.map((m: { state: string }) => m.state)).toEqual(Array(100).fill('expired'));
  });

  it('pages like every list: X-Total-Count of the (at most 100) messages, limit/offset, Link rel="next" when cut', async () => {
    const t = setup();
    const { body } = await t.create({ externalId: 'media' });
    for (let i = 0; i < 105; i++) {
      queueMessage(t.deps, body._id, { type: 'identify', payload: { topic: String(i) } });
      t.clock.advance(10);
    }
    const all = await t.call('GET', '/subsystems/media/actions', { as: 'admin' });
    expect(all.headers.get('x-total-count')).toBe('100');
    expect(all.headers.get('link')).toBeNull();
    const cut = await t.call('GET', '/subsystems/media/actions', { as: 'admin', query: { limit: 2, offset: 1 } });
    expect(cut.body.map((m: { payload: unknown }) => m.payload)).toEqual([{ topic: '103' }, { topic: '102' }]);
    expect(cut.headers.get('x-total-count')).toBe('100');
    expect(cut.headers.get('link')).toBe('</api/v1/subsystems/media/actions?limit=2&offset=3>; rel="next"');
    const last = await t.call('GET', '/subsystems/media/actions', { as: 'admin', query: { limit: 10, offset: 95 } });
    expect(last.body).toHaveLength(5);
    expect(last.headers.get('link')).toBeNull();
  });

  it('404 for an unknown subsystem', async () => {
    const t = setup();
    const res = await t.call('GET', '/subsystems/nope/actions', { as: 'admin' });
    expect(res.body).toEqual(errorBody(res, 404, 'not_found', 'subsystem nope not found'));
  });
});

describe('previewPlay names a control panel that exists', () => {
  it('400 at /controlPanelId for a panel never made or deleted; nothing queued', async () => {
    const t = setup();
    await t.call('POST', '/subsystems', { as: 'admin', body: { externalId: 'media' } });
    await t.call('PUT', '/playables', { as: 'admin', body: { subsystemExternalId: 'media', externalRef: 'clip' } });
    const clip = (await t.call('GET', '/playables/media/clip', { as: 'admin' })).body;
    const gone = await panelOf(t, 'media');
    await t.call('DELETE', `/controlpanels/${gone}`, { as: 'admin' });
    for (const controlPanelId of [gone, 999]) {
      const res = await t.call('PUT', '/subsystems/media/action', {
        as: 'admin',
        body: { type: 'previewPlay', playableId: clip._id, controlPanelId },
      });
      expect(res.body).toEqual(validation(res, '/controlPanelId', 'names no control panel'));
    }
    expect((await t.beat('media')).body.messages).toEqual([]);
  });
});
