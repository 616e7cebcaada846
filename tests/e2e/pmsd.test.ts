/**
 * The compiled executable end to end: started from a copy in a fresh folder on free ports, spoken to
 * over HTTP, its CLI run, stopped with SIGTERM. Runs only with PMS_E2E=1 (after `npm run build`);
 * with it set and no dist/pmsd, it fails rather than passing by skipping.
 */
import { describe, expect, it } from 'bun:test';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pkg from '../../package.json';
import { ADMIN_PASSWORD, E2E_ENABLED, login as loginTo, runCli, suiteDaemon } from './daemon';

describe.skipIf(!E2E_ENABLED)('pmsd (compiled)', () => {
  const suite = suiteDaemon({
    PMS_INITIAL_ADMIN_PASSWORD: ADMIN_PASSWORD,
    // Nothing trusted: a request without a credential from loopback must get 401.
    PMS_TRUSTED_NETWORKS: '',
  });
  const running = suite.running;
  const box = suite.sandbox;
  const api = (path: string, init?: RequestInit) => fetch(`${running().baseUrl}/api/v1${path}`, init);
  const login = (username: string, password: string) => loginTo(running(), username, password);

  it('answers health', async () => {
    const res = await api('/health');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const body = await res.json();
    expect(body).toEqual({ status: 'ok', version: pkg.version, uptimeS: expect.any(Number) });
  });

  it('signs in the initial admin, whose session reads /auth/me', async () => {
    const res = await login('admin', ADMIN_PASSWORD);
    expect(res.status).toBe(200);
    const { session } = (await res.json()) as { session: string };
    expect(session).toBeString();
    expect(res.headers.get('set-cookie')).toContain('HttpOnly');

    const me = await api('/auth/me', { headers: { authorization: `Bearer ${session}` } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { user: { username: string } }).user.username).toBe('admin');

    const byCookie = await api('/auth/me', { headers: { cookie: `session=${session}` } });
    expect(byCookie.status).toBe(200);
  });

  it('refuses a guarded route without a credential with the one error body', async () => {
    const res = await api('/roles');
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      statusCode: 401,
      code: 'unauthorized',
      message: 'authentication required',
      requestId: res.headers.get('x-request-id'),
    });
  });

  it('serves the OpenAPI 3.1 document', async () => {
    const res = await api('/openapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toContain('/api/v1/roles/{id}');
  });

  it('serves the docs page and its embedded assets', async () => {
    const page = await fetch(`${running().baseUrl}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('/docs/swagger-ui-bundle.js');
    expect(html).not.toMatch(/https?:\/\//);

    const bundle = await fetch(`${running().baseUrl}/docs/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await bundle.arrayBuffer()).byteLength).toBeGreaterThan(100_000);

    const css = await fetch(`${running().baseUrl}/docs/swagger-ui.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  it('prints its version and help', async () => {
    const version = await runCli(box(), ['version']);
    expect(version.code).toBe(0);
    expect(version.stdout).toContain(`pmsd ${pkg.version}`);
    // The build bakes the commit in; `dev` would mean the define did not reach the binary.
    expect(version.stdout).not.toContain('commit dev');

    const help = await runCli(box(), ['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('pmsd user add --admin <name>');
  });

  it('refuses a bad configuration with exit 2 and one line', async () => {
    const result = await runCli(box(), ['serve'], { env: { PMS_HTTP_PORT: 'abc' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('pmsd: PMS_HTTP_PORT must be a port number 1-65535\n');
  });

  it('reads no .env and no bunfig.toml from the folder it is started in', async () => {
    const cwd = box().cwd;
    const marker = join(cwd, 'preloaded');
    const planted = ['.env', 'bunfig.toml', 'preload.js'].map((name) => join(cwd, name));
    writeFileSync(join(cwd, '.env'), 'PMS_HTTP_PORT=abc\n');
    writeFileSync(join(cwd, 'preload.js'), `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran');\n`);
    writeFileSync(join(cwd, 'bunfig.toml'), 'preload = ["./preload.js"]\n');
    try {
      const result = await runCli(box(), ['migrate']);
      expect(result).toEqual({ code: 0, stdout: 'database is up to date\n', stderr: expect.any(String) });
      expect(result.stderr).not.toContain('PMS_HTTP_PORT');
      expect(existsSync(marker)).toBe(false);
    } finally {
      for (const path of [...planted, marker]) rmSync(path, { force: true });
    }
  });

  it('creates an administrator from the command line, who can then sign in', async () => {
    const password = 'ops-password-123';
    const result = await runCli(box(), ['user', 'add', '--admin', 'ops'], { stdin: `${password}\n` });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('administrator ops created\n');

    const res = await login('ops', password);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { user: { username: string } }).user.username).toBe('ops');
  });

  it('stops on SIGTERM with exit 0 within 10 s', async () => {
    const { code, ms } = await running().stop('SIGTERM', 10_000);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(10_000);
    expect(running().output.stdout.text).toContain('shutting down');
  });
});
