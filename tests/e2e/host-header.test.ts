/**
 * The compiled executable and the Host header (realtime/http-server.ts): a Host no URL takes
 * (`pms:99999`) is refused 400 and the daemon lives on (its request line's `new URL` threw after the
 * answer and the process died); an HTTP/1.0 probe without Host is served, as the client it is: a
 * request from the loopback, trusted by default, needs no credential.
 */
import { describe, expect, it } from 'bun:test';
import { rawHttp } from '../helpers/raw-http';
import { ADMIN_PASSWORD, E2E_ENABLED, suiteDaemon } from './daemon';

describe.skipIf(!E2E_ENABLED)('the Host header (compiled)', () => {
  const suite = suiteDaemon({ PMS_INITIAL_ADMIN_PASSWORD: ADMIN_PASSWORD });

  it('refuses a Host no URL takes, and goes on serving', async () => {
    const daemon = suite.running();
    for (const host of ['pms:99999', 'pms:abc', '[::1']) {
      const res = await rawHttp(daemon.httpPort, `GET /api/v1/health HTTP/1.1\r\nHost: ${host}\r\nConnection: close`);
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body)).toMatchObject({ code: 'bad_request', requestId: res.headers['x-request-id'] });
    }
    // The process died one to three seconds after such a request.
    await Bun.sleep(3000);
    expect(daemon.proc.exitCode).toBeNull();
    expect((await fetch(`${daemon.baseUrl}/api/v1/health`)).status).toBe(200);
    expect(daemon.output.stderr.text).not.toContain('Invalid URL');
  });

  it('serves an HTTP/1.0 request without Host, from the address it came from', async () => {
    const daemon = suite.running();
    const health = await rawHttp(daemon.httpPort, 'GET /api/v1/health HTTP/1.0');
    expect(health.status).toBe(200);
    // Loopback is trusted by default: without the client's address this would be 401.
    const subsystems = await rawHttp(daemon.httpPort, 'GET /api/v1/subsystems HTTP/1.0');
    expect(subsystems.status).toBe(200);
    expect(Array.isArray(JSON.parse(subsystems.body))).toBe(true);
  });
});
