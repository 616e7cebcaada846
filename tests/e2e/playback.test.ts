/**
 * Media playback end to end on the compiled executable (the media issue's "done when"): an operator
 * uploads an image and a video, creates a container and a player and queues an instant play; the
 * player's next heartbeat (with its container's token, nothing trusted, a short Host) carries the
 * `forcePlay` whose command points at the object; the player downloads the video by its signed link
 * in two `Range` requests attributed to it, and the copy status turns `complete`; a default state is
 * set and read back with its `mediaDetails`.
 */
import { describe, expect, it } from 'bun:test';
import { mp4 } from '../../src/modules/objects/probe/test-support';
import { pngBytes, sha256Of } from '../../src/modules/objects/test-support';
import { ADMIN_PASSWORD, E2E_ENABLED, sessionOf, suiteDaemon } from './daemon';

describe.skipIf(!E2E_ENABLED)('media playback (compiled)', () => {
  const suite = suiteDaemon({ PMS_INITIAL_ADMIN_PASSWORD: ADMIN_PASSWORD, PMS_TRUSTED_NETWORKS: '' });

  it('uploads, plays on a player, copies to it by attributed ranges and sets its default state', async () => {
    const daemon = suite.running();
    const session = await sessionOf(daemon, 'admin', ADMIN_PASSWORD);
    const call = async (method: string, path: string, body?: unknown, credential = `Bearer ${session}`) => {
      const res = await fetch(`${daemon.baseUrl}/api/v1${path}`, {
        method,
        headers: { authorization: credential, host: 'pms', 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text === '' ? null : JSON.parse(text) };
    };
    const upload = async (name: string, bytes: Uint8Array) => {
      const res = await fetch(`${daemon.baseUrl}/api/v1/objects/cms-media/${name}/content`, {
        method: 'PUT',
        headers: {
          authorization: `Bearer ${session}`,
          'content-length': String(bytes.length),
          'x-checksum-sha256': sha256Of(bytes),
        },
        body: bytes,
      });
      expect(res.status).toBe(201);
      return (await res.json()) as { _id: number; mediaType: string; objectSize: number };
    };
    const image = await upload('poster.png', pngBytes(1920, 1080, 4096));
    const videoBytes = mp4();
    const video = await upload('intro.mp4', videoBytes);

    const wall = await call('POST', '/subsystems', { externalId: 'wall', type: 'screenContainer' });
    expect(wall.status).toBe(201);
    expect((await call('POST', '/players', { externalId: 'wall-1', container: 'wall' })).status).toBe(201);
    const roles = await call('GET', '/roles');
    const integration = roles.body.find((r: { name: string }) => r.name === 'integration')._id;
    const token = (
      await call('POST', '/tokens', { displayName: 'wall driver', roleId: integration, subsystemIds: [wall.body._id] })
    ).body.token as string;
    const asPlayer = `Bearer ${token}`;

    // Instant play of the video object on the player.
    const queued = await call('PUT', '/subsystems/wall-1/action', { type: 'forcePlay', objectId: video._id });
    expect(queued.status).toBe(202);
    const beat = await call('PUT', '/subsystems/wall-1/heartbeat', undefined, asPlayer);
    expect(beat.status).toBe(200);
    const [message] = beat.body.message;
    expect(message.type).toBe('forcePlay');
    const playable = message.payload.playable;
    expect(JSON.parse(playable.command).data.video.self).toBe(`api/v1/objects/${video._id}`);
    const link = new URL(playable.objectsDetails[0]._links.get);
    expect(link.host).toBe('pms');

    // A media playable of the container, copied to its players; the player fetches it in two ranges.
    const media = await call('POST', '/playables', {
      subsystemExternalId: 'wall',
      externalRef: 'intro',
      type: 'media',
      objects: [video._id],
    });
    expect(media.status).toBe(201);
    const copy = await call('POST', `/playables/${media.body._id}/copyToPlayer`, {});
    expect(copy.status).toBe(202);
    expect(copy.body.players.map((p: { externalId: string; state: string }) => [p.externalId, p.state])).toEqual([
      ['wall-1', 'pending'],
    ]);
    const half = Math.floor(videoBytes.length / 2);
    const fetched: Uint8Array[] = [];
    for (const range of [`bytes=0-${half - 1}`, `bytes=${half}-`]) {
      const res = await fetch(`${daemon.baseUrl}${link.pathname}${link.search}&player=wall-1`, { headers: { range } });
      expect(res.status).toBe(206);
      fetched.push(new Uint8Array(await res.arrayBuffer()));
    }
    expect(sha256Of(new Uint8Array([...(fetched[0] ?? []), ...(fetched[1] ?? [])]))).toBe(sha256Of(videoBytes));
    let status = await call('GET', `/playables/${media.body._id}/copyToPlayerStatus`);
    for (let i = 0; i < 50 && status.body.state !== 'complete'; i++) {
      await Bun.sleep(100);
      status = await call('GET', `/playables/${media.body._id}/copyToPlayerStatus`);
    }
    expect(status.body).toMatchObject({ state: 'complete', targets: 1, complete: 1 });

    // A default state, read back with the instant playable of the image.
    const set = await call('PUT', '/players/wall-1/defaultState', { mediaType: 'single', mediaId: image._id });
    expect(set.status).toBe(200);
    const state = await call('GET', '/players/wall-1/defaultState', undefined, asPlayer);
    expect(state.status).toBe(200);
    expect(state.body.mediaDetails.objects).toEqual([image._id]);
    expect(JSON.parse(state.body.mediaDetails.command).data.video.self).toBe(`api/v1/objects/${image._id}`);
    expect(daemon.output.stdout.text).not.toContain('"level":50');
  });
});
