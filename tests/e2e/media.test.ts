/**
 * The object store in the compiled executable (§12): an upload hashed on the hashing thread (its
 * module is an entrypoint of the executable, build/compile.ts; without it every upload would fail),
 * stored, and read back through the signed `_links.get` address, without a credential, by a client
 * that names the appliance by a short host name.
 */
import { describe, expect, it } from 'bun:test';
import { createHash } from 'node:crypto';
import { ADMIN_PASSWORD, E2E_ENABLED, sessionOf, suiteDaemon } from './daemon';

describe.skipIf(!E2E_ENABLED)('media (compiled)', () => {
  const suite = suiteDaemon({ PMS_INITIAL_ADMIN_PASSWORD: ADMIN_PASSWORD });

  it('uploads 20 MiB, hashes it on its thread and serves it back by the signed link', async () => {
    const daemon = suite.running();
    const session = await sessionOf(daemon, 'admin', ADMIN_PASSWORD);
    const bytes = new Uint8Array(20 * 1024 * 1024);
    for (let i = 0; i < bytes.length; i += 997) bytes[i] = i % 251;
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const put = await fetch(`${daemon.baseUrl}/api/v1/objects/cms-media/loop.bin/content`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${session}`,
        'content-length': String(bytes.length),
        'x-checksum-sha256': sha256,
      },
      body: bytes,
    });
    expect(put.status).toBe(201);
    const object = (await put.json()) as { _id: number; sha256: string; objectMD5: string; _links: { get: string } };
    expect(object.sha256).toBe(sha256);
    expect(object.objectMD5).toBe(createHash('md5').update(bytes).digest('hex'));

    // The link is built from the Host the request named; here a short name, then fetched by address.
    const read = await fetch(`${daemon.baseUrl}/api/v1/objects/${object._id}`, {
      headers: { authorization: `Bearer ${session}`, host: 'pms' },
    });
    const link = new URL(((await read.json()) as { _links: { get: string } })._links.get);
    expect(link.host).toBe('pms');
    const got = await fetch(`${daemon.baseUrl}${link.pathname}${link.search}`);
    expect(got.status).toBe(200);
    expect(
      createHash('sha256')
        .update(new Uint8Array(await got.arrayBuffer()))
        .digest('hex'),
    ).toBe(sha256);
    const range = await fetch(`${daemon.baseUrl}${link.pathname}${link.search}`, {
      headers: { range: 'bytes=997-1000' },
    });
    expect(range.status).toBe(206);
    expect([...new Uint8Array(await range.arrayBuffer())]).toEqual([997 % 251, 0, 0, 0]);
    expect(daemon.output.stdout.text).not.toContain('hashing thread');
  });
});
