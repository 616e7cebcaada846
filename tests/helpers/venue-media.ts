/**
 * The venue's media library (§12): content uploaded by an operator (an image whose type and size come
 * from its bytes, a text file replaced once), a record still waiting for its content, and one in the
 * trash, so every read of cms-media meets each status. Its branding (§18): a name, a logo and a
 * background, and mail settings whose server never answers (alert mail retries in the history).
 */
import type { TestApp } from './app';
import { ADMIN, must, OPERATOR } from './venue-kit';

function upload(bytes: Uint8Array) {
  return {
    ...OPERATOR,
    rawBody: bytes,
    headers: { 'content-length': String(bytes.byteLength), 'content-type': 'application/octet-stream' },
  };
}

/** A PNG header of 1920×1080, enough for the probe. */
function png(): Uint8Array {
  const bytes = new Uint8Array(96);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52], 0);
  const view = new DataView(bytes.buffer);
  view.setUint32(16, 1920);
  view.setUint32(20, 1080);
  bytes.set([8, 6, 0, 0, 0], 24);
  return bytes;
}

/** Settings an administrator makes on the first day: name, mail (to a closed port), logo and background. */
export async function buildBranding(t: TestApp): Promise<void> {
  const smtp = {
    host: '127.0.0.1',
    port: 1,
    from: 'Venue <pms@venue.example>',
    username: 'pms',
    password: 'mail-pass',
  };
  await must(t, 'PATCH', '/settings', { ...ADMIN, body: { systemName: 'Grand Hall', smtp } }, 200);
  for (const kind of ['logo', 'background']) {
    await must(t, 'PUT', `/settings/${kind}`, { ...upload(png()), ...ADMIN }, 200);
  }
}

export async function buildMedia(t: TestApp): Promise<void> {
  const text = new TextEncoder();
  await must(t, 'PUT', '/objects/cms-media/lobby-poster.png/content', upload(png()), 201);
  const notes = await must(
    t,
    'POST',
    '/objects/cms-media',
    { ...OPERATOR, body: { name: 'opening-hours.txt', tags: ['lobby', 'info'], metadata: { room: 'A' } } },
    201,
  );
  await must(t, 'PUT', `/objects/${notes.body._id}/content`, upload(text.encode('Open 9-17')), 200);
  await must(t, 'PUT', `/objects/${notes.body._id}/content`, upload(text.encode('Open 9-18, Fri 9-21')), 200);
  await must(t, 'POST', '/objects/cms-media', { ...OPERATOR, body: { name: 'show-intro.mp4', tags: 'show' } }, 201);
  const old = await must(t, 'PUT', '/objects/cms-media/old-flyer.txt/content', upload(text.encode('2025')), 201);
  await must(t, 'DELETE', `/objects/${old.body._id}`, ADMIN, 204);
}
