/**
 * Response drift (an answer breaking its declared schema) never takes a route down for every caller
 * in the daemon, and fails loudly under the test harness (config.strictResponses).
 */
import { describe, expect, it } from 'bun:test';
import { Elysia, t } from 'elysia';
import { makeTestApp } from '../../tests/helpers/app';
import { errorBody } from '../../tests/helpers/errors';
import { createLogger } from '../log';
import { errorPlugin } from './error-plugin';

function driftingApp(strictResponses: boolean) {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line)) });
  const harness = makeTestApp({ config: { strictResponses }, log });
  const app = new Elysia()
    .use(errorPlugin(harness.deps, () => []))
    .get(
      '/list',
      ({ set }) => {
        set.headers['x-total-count'] = '2';
        return [
          { n: 1, extra: 'stripped' },
          { n: 1.5, extra: 'stripped' },
        ];
      },
      { response: t.Array(t.Object({ n: t.Integer() })) },
    )
    .post(
      '/made',
      ({ set }) => {
        set.status = 201;
        set.headers.location = '/made/1';
        return { n: 'one' };
      },
      { response: { 201: t.Object({ n: t.Integer() }) } },
    );
  const drifts = () => lines.filter((l) => l.msg === 'response does not match its declared schema');
  return { app, drifts, clock: harness.clock };
}

describe('response drift', () => {
  it('in the daemon: the answer is sent as built, with its status and headers, and logged once an hour', async () => {
    const { app, drifts, clock } = driftingApp(false);
    for (let i = 0; i < 3; i++) {
      const res = await app.handle(new Request('http://localhost/list'));
      expect(res.status).toBe(200);
      expect(res.headers.get('x-total-count')).toBe('2');
      expect(await res.json()).toEqual([{ n: 1 }, { n: 1.5 }]);
    }
    expect(drifts()).toHaveLength(1);
    expect(drifts()[0]).toMatchObject({ method: 'GET', route: '/list', problems: [{ path: '/1/n' }] });
    // The value never reaches the log. Its line's own time is left out: a stamp like `…:31.5…Z` holds `1.5`.
    const { time, ...drift } = drifts()[0] ?? {};
    expect(time).toBeString();
    expect(JSON.stringify(drift)).not.toContain('1.5');
    clock.advance(3_600_000);
    await app.handle(new Request('http://localhost/list'));
    expect(drifts()).toHaveLength(2);

    const made = await app.handle(new Request('http://localhost/made', { method: 'POST' }));
    expect(made.status).toBe(201);
    expect(made.headers.get('location')).toBe('/made/1');
    expect(await made.json()).toEqual({ n: 'one' });
    expect(drifts()).toHaveLength(3);
  });

  it('under strictResponses (the test harness): 500 with the one body, and the drift logged', async () => {
    const { app, drifts } = driftingApp(true);
    const res = await app.handle(new Request('http://localhost/list'));
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual(errorBody(res, 500, 'internal', 'internal error'));
    expect(drifts()).toHaveLength(1);
  });
});
