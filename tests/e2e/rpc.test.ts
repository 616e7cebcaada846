/**
 * The push channel of the compiled executable: the TCP JSON-RPC port answers ping, refuses an
 * untrusted connection until it authenticates with a session from HTTP sign-in, then subscribes.
 * Runs only with PMS_E2E=1 (after `npm run build`).
 */
import { afterAll, describe, expect, it } from 'bun:test';
import { connectLines, type LineClient } from '../../src/rpc/test-support';
import { ADMIN_PASSWORD, E2E_ENABLED, freePort, login, runCli, suiteDaemon } from './daemon';

describe.skipIf(!E2E_ENABLED)('pmsd (compiled): JSON-RPC push channel', () => {
  const clients: LineClient[] = [];
  afterAll(() => {
    for (const client of clients) client.close();
  });
  const suite = suiteDaemon({
    PMS_INITIAL_ADMIN_PASSWORD: ADMIN_PASSWORD,
    // Nothing trusted: the loopback connection must authenticate like any other.
    PMS_TRUSTED_NETWORKS: '',
  });
  const running = suite.running;
  const connect = async (): Promise<LineClient> => {
    const client = await connectLines(running().rpcPort);
    clients.push(client);
    return client;
  };

  it('logs where it listens', () => {
    expect(running().output.stdout.text).toContain(`"rpc":"tcp://0.0.0.0:${running().rpcPort}"`);
  });

  it('answers ping with pong, on \\r\\n and on \\n lines', async () => {
    const c = await connect();
    c.write('{"jsonrpc":"2.0","method":"ping","id":1}\r\n');
    expect(await c.next()).toEqual({ jsonrpc: '2.0', result: 'pong', id: 1 });
    c.write('{"jsonrpc":"2.0","method":"ping","id":2}\n');
    expect(await c.next()).toEqual({ jsonrpc: '2.0', result: 'pong', id: 2 });
    c.write('{oops\r\n');
    expect(await c.next()).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null });
  });

  it('subscribes only after auth with an administrator session from HTTP sign-in', async () => {
    const c = await connect();
    c.call({ jsonrpc: '2.0', method: 'subscriptions.add', params: ['media-1'], id: 1 });
    expect(await c.next()).toMatchObject({ error: { code: -32001, message: 'authentication required' }, id: 1 });

    const res = await login(running(), 'admin', ADMIN_PASSWORD);
    expect(res.status).toBe(200);
    const { session } = (await res.json()) as { session: string };

    c.call({ method: 'auth', params: [session], id: 2 });
    expect(await c.next()).toEqual({ jsonrpc: '2.0', result: true, id: 2 });
    c.call({ jsonrpc: '2.0', method: 'subscriptions.add', params: ['media-1', 'player-1'], id: 3 });
    expect(await c.next()).toEqual({ jsonrpc: '2.0', result: true, id: 3 });
    c.call({ jsonrpc: '2.0', method: 'subscriptions.remove', params: ['player-1'], id: 4 });
    expect(await c.next()).toEqual({ jsonrpc: '2.0', result: true, id: 4 });
  });

  it('exits 1 with one line when the JSON-RPC port is taken', async () => {
    const taken = Bun.listen({ hostname: '0.0.0.0', port: 0, socket: { data() {} } });
    try {
      const result = await runCli(suite.sandbox(), ['serve'], {
        env: { PMS_HTTP_PORT: String(freePort()), PMS_RPC_PORT: String(taken.port), PMS_LOG_LEVEL: 'silent' },
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toStartWith(`pmsd: cannot listen on 0.0.0.0:${taken.port} (JSON-RPC): `);
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    } finally {
      taken.stop(true);
    }
  });

  it('closes the channel on SIGTERM and exits 0', async () => {
    const c = await connect();
    const { code } = await running().stop('SIGTERM');
    expect(code).toBe(0);
    expect(await c.closed()).toBe(true);
  });
});
