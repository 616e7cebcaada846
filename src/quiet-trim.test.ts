import { describe, expect, it } from 'bun:test';
import { makeTestApp } from '../tests/helpers/app';
import { QUIET_REQUESTS, QuietTrim } from './quiet-trim';
import { serveHttp } from './realtime/http-server';

describe('giving memory back while quiet', () => {
  it('shrinks after a window of at most one request a second, never after a busier one', () => {
    let shrinks = 0;
    const trim = new QuietTrim(() => shrinks++);
    expect(trim.check()).toBe(true);
    for (let i = 0; i < QUIET_REQUESTS + 1; i++) trim.noteRequest();
    expect(trim.check()).toBe(false);
    // Each window counts afresh.
    for (let i = 0; i < QUIET_REQUESTS; i++) trim.noteRequest();
    expect(trim.check()).toBe(true);
    expect(shrinks).toBe(2);
  });

  it('the HTTP server reports every request it answers', async () => {
    const t = makeTestApp();
    let seen = 0;
    const server = serveHttp(t.app, { port: 0, hostname: '127.0.0.1', log: t.deps.log, onRequest: () => seen++ });
    try {
      for (const path of ['/api/v1/health', '/api/v1/nowhere', '/'])
        await (await fetch(`http://127.0.0.1:${server.port}${path}`)).text();
      expect(seen).toBe(3);
    } finally {
      server.stop(true);
    }
  });

  it('shrinks through Bun.shrink by default (this Bun has it)', () => {
    expect(typeof Bun.shrink).toBe('function');
    expect(new QuietTrim().check()).toBe(true);
  });
});
