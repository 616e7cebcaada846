/**
 * OpenAPI-driven fuzz (issue: trust what exists). Every operation of the served document gets, from a
 * seeded random source: a missing-fields body, wrong-typed and null fields, huge strings, deep JSON,
 * bad unicode, non-object bodies, an oversized body, wrong content types, bad percent-encoding and
 * path tricks in its parameters, odd query values and odd Host names. For every answer: never a 5xx,
 * every non-2xx is the one error body (no detail message spelling its own field), and a refused request leaves stored data unchanged.
 *
 * Bounded: about 6 000 requests, well under a minute. `FUZZ_SLOW=<ms>` prints the slower cases,
 * `FUZZ_ONLY=<path part>` limits the run to matching operations. A failure prints the seed and the case;
 * `FUZZ_SEED=<n> npx bun test tests/fuzz.test.ts` replays it, `FUZZ_SEED=random` tries a new one.
 */
import { describe, expect, it } from 'bun:test';
import { ERROR_STATUS } from '../src/http/errors';
import { jobsIdle } from '../src/modules/backups/job';
import { seededRandom } from '../src/prng';
import { makeTestApp } from './helpers/app';
import { detailsSpellingTheirField } from './helpers/errors';
import {
  BAD_SEGMENTS,
  deepJsonText,
  hostileValues,
  type JsonSchema,
  type Known,
  ODD_HOSTS,
  ODD_QUERIES,
  pick,
  validInstance,
  wrongTyped,
} from './helpers/fuzz';
import { changeCount, storedDigest } from './helpers/stored';

const SEED =
  process.env.FUZZ_SEED === 'random' ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.FUZZ_SEED ?? 20261123);

interface Operation {
  method: string;
  template: string;
  body: JsonSchema | null;
}

interface Case {
  what: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

interface Failure {
  what: string;
  method: string;
  url: string;
  problem: string;
}

const t = makeTestApp();
const admin = t.tokenFor('admin');
const rng = seededRandom(SEED);
const CODES = new Set(Object.keys(ERROR_STATUS));
const SECURITY_REFUSAL = new Set([401, 403, 429]);

async function seedVenue(): Promise<Known> {
  const sub = await t.call('POST', '/subsystems', { as: 'admin', body: { externalId: 'fz', displayName: 'Fuzz' } });
  if (sub.status !== 201) throw new Error(`seed: ${sub.text}`);
  return { subsystemExternalId: 'fz', subsystemId: sub.body._id };
}

function operationsOf(doc: { paths: Record<string, Record<string, { requestBody?: unknown }>> }): Operation[] {
  const ops: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    if (template === '/api/v1/ws') continue;
    for (const [method, op] of Object.entries(item)) {
      const body = (op.requestBody as { content?: Record<string, { schema?: JsonSchema }> } | undefined)?.content?.[
        'application/json'
      ]?.schema;
      ops.push({ method: method.toUpperCase(), template, body: body ?? null });
    }
  }
  return ops;
}

/** Creates one valid instance for every collection POST, so `{id}` parameters name real entities. */
async function createInstances(ops: Operation[], known: Known): Promise<void> {
  for (const op of ops) {
    if (op.method !== 'POST' || op.template.includes('{') || !op.body) continue;
    await t.call('POST', op.template, { token: admin, body: validInstance(op.body, known) });
  }
}

/** An existing `_id` for each collection a path template names, read from its list route. */
async function idsByCollection(ops: Operation[]): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const op of ops) {
    if (op.method !== 'GET' || op.template.includes('{')) continue;
    const res = await t.call('GET', op.template, { token: admin });
    const first = Array.isArray(res.body) ? res.body[0] : null;
    if (first && typeof first === 'object' && '_id' in first) ids.set(op.template, String(first._id));
  }
  return ids;
}

function fillPath(template: string, ids: Map<string, string>, override?: string): string {
  let out = '';
  let rest = template;
  for (;;) {
    const at = rest.indexOf('{');
    if (at < 0) return out + rest;
    out += rest.slice(0, at);
    const end = rest.indexOf('}', at);
    out += override ?? ids.get(out.replace(/\/$/, '')) ?? '1';
    rest = rest.slice(end + 1);
  }
}

function request(c: Case): Request {
  const init: RequestInit = { method: c.method, headers: c.headers };
  if (c.body !== undefined && c.method !== 'GET' && c.method !== 'HEAD') init.body = c.body;
  return new Request(c.url, init);
}

function casesFor(op: Operation, known: Known, ids: Map<string, string>): Case[] {
  const auth = { authorization: `Bearer ${admin}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const url = (path: string, host = 'localhost') => `http://${host}${path}`;
  const path = fillPath(op.template, ids);
  const out: Case[] = [];
  const add = (what: string, body: unknown, headers: Record<string, string> = json, at = path) =>
    out.push({
      what,
      method: op.method,
      url: url(at),
      headers,
      body: typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body),
    });

  if (op.template.includes('{')) {
    for (const seg of BAD_SEGMENTS) add(`path segment ${seg.slice(0, 20)}`, {}, json, fillPath(op.template, ids, seg));
    add('double slash', {}, json, path.replace('/api/v1/', '/api/v1//'));
  }
  for (const host of ODD_HOSTS.filter(() => rng() < 0.3))
    out.push({ what: `host ${host}`, method: op.method, url: url(path, host), headers: json, body: '{}' });
  for (const q of ODD_QUERIES.filter(() => rng() < 0.4)) add(`query ${q.slice(0, 30)}`, {}, json, `${path}?${q}`);
  if (op.method === 'GET' || op.method === 'DELETE') return out;

  add('empty object', {});
  for (const [what, body] of [
    ['string', 'str'],
    ['number', 42],
    ['array', [1, 2]],
    ['null', null],
    ['true', true],
  ] as const)
    add(`non-object body: ${what}`, body);
  add('deep JSON text', deepJsonText(100_000));
  add('deep JSON array', `${'['.repeat(50_000)}${']'.repeat(50_000)}`);
  add('invalid UTF-8', new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]));
  add('oversized body', `{"a":"${'x'.repeat(1_200_000)}"}`);
  add('text/plain not JSON', 'hello', { ...auth, 'content-type': 'text/plain' });
  add('form body', 'a=1&b=2', { ...auth, 'content-type': 'application/x-www-form-urlencoded' });
  add('multipart', '--x\r\n\r\n--x--', { ...auth, 'content-type': 'multipart/form-data; boundary=x' });
  add('JSON labelled text/plain', '{"displayName":"fz"}', { ...auth, 'content-type': 'text/plain' });
  add('truncated JSON', '{"displayName":');
  add('duplicate keys', '{"displayName":"a","displayName":1}');
  add('__proto__ key', '{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}');

  const base = op.body ? (validInstance(op.body, known) as Record<string, unknown>) : {};
  const props = Object.entries(op.body?.properties ?? {});
  for (const [name, schema] of props) {
    const wrong = wrongTyped(schema);
    for (const value of [pick(rng, wrong), pick(rng, wrong)])
      add(`${name} = ${JSON.stringify(value)}`, { ...base, [name]: value });
    const [what, value] = pick(rng, hostileValues());
    add(`${name} ${what}`, { ...base, [name]: value });
  }
  add('unsafe integer literal', `{"_id":9007199254740993,"subsystemId":18446744073709551616}`);
  return out;
}

function problemWith(status: number, headers: Headers, text: string): string | null {
  if (status >= 500) return `answered ${status}: ${text.slice(0, 300)}`;
  if (status < 400) return null;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text);
  } catch {
    return `non-JSON error body: ${text.slice(0, 200)}`;
  }
  const keys = Object.keys(body).sort().join(',');
  if (keys !== 'code,message,requestId,statusCode' && keys !== 'code,detail,message,requestId,statusCode')
    return `error body keys ${keys}`;
  if (body.statusCode !== status) return `statusCode ${body.statusCode} on a ${status}`;
  if (typeof body.code !== 'string' || !CODES.has(body.code)) return `unknown code ${body.code}`;
  if (typeof body.message !== 'string' || body.message === '') return 'no message';
  if (body.requestId !== headers.get('x-request-id')) return 'requestId differs from x-request-id';
  if (!(headers.get('content-type') ?? '').startsWith('application/json')) return 'error without JSON content type';
  const doubled = detailsSpellingTheirField(body);
  if (doubled.length > 0) return `a detail message spells its field: ${doubled.join('; ')}`;
  return null;
}

describe(`OpenAPI fuzz (FUZZ_SEED=${SEED})`, () => {
  it('never a 5xx, always the one error body, and a refused request changes nothing', async () => {
    const known = await seedVenue();
    const doc = (await t.call('GET', '/openapi.json')).body;
    const ops = operationsOf(doc);
    await createInstances(ops, known);
    const ids = await idsByCollection(ops);
    const failures: Failure[] = [];
    let sent = 0;
    let before = storedDigest(t);
    let lastChanges = changeCount(t);
    for (const op of ops.filter((o) => !process.env.FUZZ_ONLY || o.template.includes(process.env.FUZZ_ONLY))) {
      for (const c of casesFor(op, known, ids)) {
        sent += 1;
        const started = performance.now();
        const res = await t.app.handle(request(c));
        const text = await res.text();
        // Work a 202 started (a backup, verify or restore job) belongs to that request, not the next.
        await jobsIdle(t.deps);
        const took = performance.now() - started;
        if (process.env.FUZZ_SLOW && took > Number(process.env.FUZZ_SLOW))
          console.log('slow', Math.round(took), c.method, c.url.slice(0, 80), c.what);
        const problem = problemWith(res.status, res.headers, text);
        if (problem) failures.push({ what: c.what, method: c.method, url: c.url.slice(0, 160), problem });
        const changes = changeCount(t);
        if (changes === lastChanges) continue;
        lastChanges = changes;
        const after = storedDigest(t);
        if (res.status >= 400) {
          // A refused credential or a flood is recorded in the log (who tried what, from where): that
          // record is the point, not a change of stored data. Any other refusal writes nothing at all.
          const changed = after
            .changedSince(before)
            .filter((table) => !(SECURITY_REFUSAL.has(res.status) && table === 'logs'));
          if (changed.length > 0)
            failures.push({
              what: c.what,
              method: c.method,
              url: c.url.slice(0, 160),
              problem: `refused (${res.status}) but changed ${changed.join(', ')}`,
            });
        }
        before = after;
      }
    }
    console.log(`fuzz: ${ops.length} operations, ${sent} requests, seed ${SEED}`);
    expect(failures).toEqual([]);
  }, 600_000);
});
