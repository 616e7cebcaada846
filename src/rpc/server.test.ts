import { afterEach, describe, expect, it } from 'bun:test';
import { connect } from 'node:net';
import { rpcError as err, ok, rpcApp, stopRpcApps } from './test-support';

afterEach(stopRpcApps);

describe('rpc server: framing', () => {
  it('answers ping on \\r\\n and \\n lines, two messages in one packet, and a message split across packets', async () => {
    const t = rpcApp();
    const c = await t.client();
    c.write('{"jsonrpc":"2.0","method":"ping","id":1}\r\n');
    expect(await c.next()).toEqual(ok(1, 'pong'));
    c.write('{"jsonrpc":"2.0","method":"ping","id":2}\n');
    expect(await c.next()).toEqual(ok(2, 'pong'));
    c.write('{"method":"ping","id":3}\r\n{"method":"ping","id":"four"}\r\n');
    expect(await c.next()).toEqual(ok(3, 'pong'));
    expect(await c.next()).toEqual(ok('four', 'pong'));
    c.write('{"jsonrpc":"2.0","met');
    // Give the first half its own packet; the reader's own test covers splits deterministically.
    await Bun.sleep(20);
    expect(c.waiting).toBe(0);
    c.write('hod":"ping","id":5}\r\n');
    expect(await c.next()).toEqual(ok(5, 'pong'));
  });

  it('answers an over-long line with an error, drops it and keeps the connection', async () => {
    const t = rpcApp();
    const c = await t.client();
    c.write(`{"method":"ping","id":1,"pad":"${'x'.repeat(70_000)}"}\r\n{"method":"ping","id":2}\r\n`);
    expect(await c.next()).toEqual(err(null, -32600, 'Invalid Request', 'a line may be at most 65536 bytes'));
    expect(await c.next()).toEqual(ok(2, 'pong'));
  });
});

describe('rpc server: errors', () => {
  it('answers every malformed request with its JSON-RPC error and stays open', async () => {
    const t = rpcApp();
    const c = await t.client();
    c.write('{not json\r\n');
    expect(await c.next()).toEqual(err(null, -32700, 'Parse error'));
    c.write('[{"method":"ping","id":1}]\r\n');
    expect(await c.next()).toEqual(err(null, -32600, 'Invalid Request', 'a request is one JSON object'));
    c.call({ jsonrpc: '2.0', id: 2 });
    expect(await c.next()).toEqual(err(2, -32600, 'Invalid Request', 'method must be a non-empty string'));
    c.call({ jsonrpc: '2.0', method: 'nope', id: 3 });
    expect(await c.next()).toEqual(err(3, -32601, 'Method not found'));
    const badTargets = 'params must be an array of at most 1000 externalIds';
    c.call({ jsonrpc: '2.0', method: 'subscriptions.add', params: 'media-1', id: 4 });
    expect(await c.next()).toEqual(err(4, -32602, 'Invalid params', badTargets));
    c.call({ jsonrpc: '2.0', method: 'subscriptions.add', params: [1], id: 5 });
    expect(await c.next()).toEqual(err(5, -32602, 'Invalid params', badTargets));
    c.call({ jsonrpc: '2.0', method: 'subscriptions.remove', params: [''], id: 6 });
    expect(await c.next()).toEqual(err(6, -32602, 'Invalid params', badTargets));
    c.call({ jsonrpc: '2.0', method: 'auth', params: [], id: 7 });
    expect(await c.next()).toEqual(err(7, -32602, 'Invalid params', 'params must be ["<token>"]'));
    // Notifications are never answered, not even with an error.
    c.call({ jsonrpc: '2.0', method: 'nope' });
    c.call({ jsonrpc: '2.0', method: 'ping' });
    c.call({ jsonrpc: '2.0', method: 'ping', id: 8 });
    expect(await c.next()).toEqual(ok(8, 'pong'));
    expect(c.waiting).toBe(0);
  });
});

describe('rpc server: subscriptions', () => {
  it('delivers a published notification to subscribers only, and no more after remove', async () => {
    const t = rpcApp();
    const a = await t.client();
    const b = await t.client();
    a.call({ jsonrpc: '2.0', method: 'subscriptions.add', params: ['media-1', 'player-7'], id: 1 });
    expect(await a.next()).toEqual(ok(1, true));
    b.call({ jsonrpc: '2.0', method: 'subscriptions.add', params: ['media-2'], id: 1 });
    expect(await b.next()).toEqual(ok(1, true));

    expect(t.deps.push.publish(['player-7'], 'schedule.item.start', { itemId: 9 })).toEqual(['player-7']);
    expect(await a.next()).toEqual({ jsonrpc: '2.0', method: 'schedule.item.start', params: { itemId: 9 } });

    a.call({ jsonrpc: '2.0', method: 'subscriptions.remove', params: ['player-7'], id: 2 });
    expect(await a.next()).toEqual(ok(2, true));
    expect(t.deps.push.publish(['player-7'], 'schedule.item.end', { itemId: 9 })).toEqual([]);
    a.call({ jsonrpc: '2.0', method: 'ping', id: 3 });
    expect(await a.next()).toEqual(ok(3, 'pong'));
    expect(b.waiting).toBe(0);
  });

  it('forgets a closed connection', async () => {
    const t = rpcApp();
    const a = await t.client();
    a.call({ jsonrpc: '2.0', method: 'subscriptions.add', params: ['media-1'], id: 1 });
    await a.next();
    expect(t.server.connectionCount).toBe(1);
    a.close();
    for (let i = 0; i < 50 && t.server.connectionCount > 0; i++) await Bun.sleep(5);
    expect(t.server.connectionCount).toBe(0);
    expect(t.deps.push.connectionCount).toBe(0);
    expect(t.deps.push.publish(['media-1'], 'm', {})).toEqual([]);
  });

  it('drops a connection that does not read while others keep receiving', async () => {
    const t = rpcApp();
    const fast = await t.client();
    fast.call({ jsonrpc: '2.0', method: 'subscriptions.add', params: ['media-1'], id: 1 });
    await fast.next();
    const slow = connect({ host: '127.0.0.1', port: t.server.port });
    const subscribed = new Promise<void>((done) => slow.once('data', () => done()));
    slow.write('{"jsonrpc":"2.0","method":"subscriptions.add","params":["media-1"],"id":1}\r\n');
    await subscribed;
    slow.pause();
    expect(t.server.connectionCount).toBe(2);
    const big = { blob: 'x'.repeat(64 * 1024) };
    let sent = 0;
    while (t.server.connectionCount === 2 && sent < 1000) {
      t.deps.push.publish(['media-1'], 'bulk', big);
      sent += 1;
      // Let the fast client read between publishes, as a live daemon's event loop would.
      await new Promise((done) => setImmediate(done));
    }
    expect(t.server.connectionCount).toBe(1);
    slow.destroy();
    expect(t.deps.push.publish(['media-1'], 'after', {})).toEqual(['media-1']);
  });
});
