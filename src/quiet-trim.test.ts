import { Database } from 'bun:sqlite';
import { describe, expect, it } from 'bun:test';
import { makeTestApp } from '../tests/helpers/app';
import { giveMemoryBack, QUIET_REQUESTS, QUIET_WINDOWS, QuietTrim } from './quiet-trim';
import { serveHttp } from './realtime/http-server';

describe('giving memory back while quiet', () => {
  it('trims at the end of the first whole quiet window after the start, then after every QUIET_WINDOWS quiet windows in a row', () => {
    let shrinks = 0;
    const trim = new QuietTrim(() => shrinks++);
    const windows = (requests: number[]) =>
      requests.map((n) => {
        for (let i = 0; i < n; i++) trim.noteRequest();
        return trim.check();
      });
    // The first check may come a moment after the start: the trim waits for the next, whole window.
    expect(windows([QUIET_REQUESTS, QUIET_REQUESTS])).toEqual([false, true]);
    // Quiet windows, one busy window (the run starts again), then a full run of quiet ones.
    const quiet = Array<number>(QUIET_WINDOWS - 1).fill(0);
    expect(windows([...quiet, QUIET_REQUESTS + 1])).toEqual([...quiet.map(() => false), false]);
    expect(windows([...quiet, QUIET_REQUESTS])).toEqual([...quiet.map(() => false), true]);
    expect(shrinks).toBe(2);
  });

  it('a daemon nobody calls is trimmed once, and again only after a request', () => {
    let shrinks = 0;
    const trim = new QuietTrim(() => shrinks++);
    const silent = Array.from({ length: 4 * QUIET_WINDOWS }, () => trim.check());
    expect(silent.filter(Boolean)).toHaveLength(1);
    // A request in a quiet window after a long silence: given back at that window's end, once.
    trim.noteRequest();
    const after = Array.from({ length: 2 * QUIET_WINDOWS }, () => trim.check());
    expect(after).toEqual([true, ...Array<boolean>(2 * QUIET_WINDOWS - 1).fill(false)]);
    expect(shrinks).toBe(2);
  });

  it('a busy start never trims until the daemon has been quiet for QUIET_WINDOWS windows', () => {
    let shrinks = 0;
    const trim = new QuietTrim(() => shrinks++);
    for (let i = 0; i <= QUIET_REQUESTS; i++) trim.noteRequest();
    expect(trim.check()).toBe(false);
    for (let w = 1; w < QUIET_WINDOWS; w++) expect(trim.check()).toBe(false);
    expect(trim.check()).toBe(true);
    expect(shrinks).toBe(1);
  });

  it('after the start and after each trim, the first window to stop being quiet says so once, at its request past QUIET_REQUESTS', () => {
    let busy = 0;
    const trim = new QuietTrim(
      () => {},
      () => busy++,
    );
    const requests = (n: number) => {
      for (let i = 0; i < n; i++) trim.noteRequest();
    };
    // The start: quiet until its first busy window, which says so once.
    requests(QUIET_REQUESTS);
    trim.check();
    requests(QUIET_REQUESTS);
    expect(busy).toBe(0);
    trim.noteRequest();
    expect(busy).toBe(1);
    requests(QUIET_REQUESTS + 3);
    trim.check();
    requests(QUIET_REQUESTS + 3);
    trim.check();
    expect(busy).toBe(1);
    busy = 0;
    for (let w = 0; w < QUIET_WINDOWS && !trim.check(); w++);
    // A quiet window after the trim: still resting.
    requests(QUIET_REQUESTS);
    trim.check();
    expect(busy).toBe(0);
    requests(QUIET_REQUESTS);
    expect(busy).toBe(0);
    trim.noteRequest();
    expect(busy).toBe(1);
    // Once said, the rest of the window and later busy windows say nothing until the next trim.
    requests(10 * QUIET_REQUESTS);
    trim.check();
    requests(10 * QUIET_REQUESTS);
    expect(busy).toBe(1);
    for (let w = 0; w <= QUIET_WINDOWS && !trim.check(); w++);
    requests(QUIET_REQUESTS + 1);
    expect(busy).toBe(2);
  });

  it('collects at the end of every quiet window that does not trim, never after a busy one', () => {
    const events: string[] = [];
    const trim = new QuietTrim(
      () => events.push('shrink'),
      () => {},
      () => events.push('collect'),
    );
    const window = (requests: number) => {
      for (let i = 0; i < requests; i++) trim.noteRequest();
      trim.check();
      return events.splice(0).join(',') || 'none';
    };
    // The start's first window collects; its second, whole, quiet window trims instead.
    expect([window(0), window(QUIET_REQUESTS)]).toEqual(['collect', 'shrink']);
    // Busy windows leave the collector alone; quiet ones collect until the run of them trims.
    expect(window(QUIET_REQUESTS + 1)).toBe('none');
    const run = Array.from({ length: QUIET_WINDOWS }, () => window(1));
    expect(run).toEqual([...Array<string>(QUIET_WINDOWS - 1).fill('collect'), 'shrink']);
    // A daemon nobody calls is trimmed once, and goes on collecting what its own jobs leave.
    expect(Array.from({ length: 3 }, () => window(0))).toEqual(['collect', 'collect', 'collect']);
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

  it('gives memory back without losing data (and this Bun still has Bun.shrink)', () => {
    const sqlite = new Database(':memory:');
    sqlite.run('CREATE TABLE t (x TEXT)');
    const add = sqlite.prepare('INSERT INTO t VALUES (?1)');
    for (let i = 0; i < 2000; i++) add.run(`${i}`.padEnd(500, 'x'));
    expect(typeof Bun.shrink).toBe('function');
    giveMemoryBack(sqlite);
    expect(sqlite.query('SELECT count(DISTINCT x) AS n, sum(length(x)) AS size FROM t').get()).toEqual({
      n: 2000,
      size: 2000 * 500,
    });
    sqlite.close();
  });
});
