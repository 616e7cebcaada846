/**
 * The object store in the compiled executable (§12): an upload written and hashed on the upload
 * thread (its module is an entrypoint of the executable, build/compile.ts; without it every upload
 * would fall back to the request thread and say so in the log, which the first test refuses),
 * stored, and read back through the signed `_links.get` address, without a credential, by a client
 * that names the appliance by a short host name.
 */
import { describe, expect, it } from 'bun:test';
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
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
    expect(daemon.output.stdout.text).not.toContain('the upload thread cannot start');
  });

  it('a client that goes away mid-upload, or sends the wrong checksum, leaves the old content served and no part file', async () => {
    const daemon = suite.running();
    const session = await sessionOf(daemon, 'admin', ADMIN_PASSWORD);
    const url = `${daemon.baseUrl}/api/v1/objects/cms-media/cut.txt/content`;
    const put = (body: string, headers: Record<string, string> = {}) =>
      fetch(url, { method: 'PUT', headers: { authorization: `Bearer ${session}`, ...headers }, body });
    const created = await put('old content');
    expect(created.status).toBe(201);
    const { _id } = (await created.json()) as { _id: number };
    const content = async () =>
      (
        await fetch(`${daemon.baseUrl}/api/v1/objects/${_id}/content`, {
          headers: { authorization: `Bearer ${session}` },
        })
      ).text();
    const parts = () => readdirSync(join(suite.sandbox().dataDir, 'media', '.parts'));

    // 4 MiB declared, 1 MiB sent, then the connection closes.
    await new Promise<void>((resolve, reject) => {
      const socket = connect(daemon.httpPort, '127.0.0.1', () => {
        socket.write(
          `PUT /api/v1/objects/cms-media/cut.txt/content HTTP/1.1\r\nHost: pms\r\nAuthorization: Bearer ${session}\r\n` +
            `Content-Length: ${4 * 1024 * 1024}\r\n\r\n`,
        );
        socket.write(new Uint8Array(1024 * 1024), () => setTimeout(() => socket.destroy(), 200));
      });
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
    // The daemon notices, removes the part file and lets the object go.
    for (let i = 0; i < 50 && parts().length > 0; i++) await Bun.sleep(20);
    expect(parts()).toEqual([]);
    expect(await content()).toBe('old content');
    // Answered 400 to nobody, not logged as a server error.
    expect(daemon.output.stdout.text).not.toContain('"level":50');

    const mismatch = await put('new content', {
      'x-checksum-sha256': createHash('sha256').update('other').digest('hex'),
    });
    expect(mismatch.status).toBe(400);
    expect(parts()).toEqual([]);
    expect(await content()).toBe('old content');

    expect((await put('new content')).status).toBe(200);
    expect(await content()).toBe('new content');
    expect(daemon.proc.exitCode).toBeNull();
  });
});
