/**
 * A real client that stops reading (its TCP window fills) is dropped with 1013 while a reading
 * client on the same server receives every event.
 */
import { expect, it } from 'bun:test';
import { connect, type Socket } from 'node:net';
import { serveTestApp } from './ws-test-support';

/** A masked client text frame (RFC 6455 §5.2), small payloads only. */
function clientFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = Buffer.from([1, 2, 3, 4]);
  const masked = payload.map((b, i) => b ^ (mask[i % 4] ?? 0));
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, Buffer.from(masked)]);
}

/** Opens a raw WebSocket, subscribes to subsystems and resolves once the server acknowledged. */
function rawSubscriber(port: number, token: string): Promise<{ socket: Socket; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    const closed = new Promise<void>((done) => socket.on('close', () => done()));
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (received.includes('101 Switching Protocols') && !received.includes('subscriptions')) {
        if (!received.includes('\r\n\r\n')) return;
        socket.write(clientFrame('{"type":"subscribe","topics":["subsystems"]}'));
        received = `${received}.`;
      } else if (received.includes('subscriptions')) {
        socket.removeAllListeners('data');
        socket.pause();
        resolve({ socket, closed });
      }
    });
    socket.write(
      'GET /api/v1/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
        `Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer ${token}\r\n\r\n`,
    );
  });
}

it('drops a client that stops reading; the reading one gets every event', async () => {
  const s = serveTestApp();
  try {
    const token = s.tokenFor('viewer');
    const slow = await rawSubscriber(s.server.port ?? 0, token);
    const fast = await s.connect({ headers: { authorization: `Bearer ${token}` } });
    await fast.subscribe(['subsystems']);
    const hub = s.deps.wsHub;
    expect(hub.size).toBe(2);
    const blob = 'x'.repeat(128 * 1024);
    let delivered = 0;
    for (let i = 0; i < 400 && hub.size === 2; i++) {
      s.deps.bus.publish('subsystem.updated', { _id: i, blob }, '2026-01-15T12:00:00.000Z');
      expect(await fast.next()).toMatchObject({ type: 'subsystem.updated', data: { _id: i } });
      delivered += 1;
    }
    expect(hub.size).toBe(1);
    // A paused socket sees the server's close only once it reads again.
    slow.socket.resume();
    await slow.closed;
    s.deps.bus.publish('subsystem.updated', { _id: -1 }, '2026-01-15T12:00:00.000Z');
    expect(await fast.next()).toMatchObject({ data: { _id: -1 } });
    expect(delivered).toBeGreaterThan(8);
  } finally {
    s.stop();
  }
});
