/**
 * The realistic-state sweep: one venue built through the API on a moving clock (tests/helpers/venue.ts),
 * then every GET operation of the served OpenAPI document read with real ids and external ids, a
 * few unknown ones and its query variants, as each built-in role, a trusted field client, a limited
 * token and a signed-in user. Nothing answers 5xx (strictResponses turns drift into a 500 as well), every
 * 2xx body conforms to the operation's declared schema, every other answer is the one error body, and
 * a 403 comes exactly when the caller lacks the route's permission.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { makeTestApp } from './helpers/app';
import { SchemaChecker } from './helpers/json-schema';
import {
  type Caller,
  callers,
  fill,
  getOperations,
  itemsOf,
  type Operation,
  paramSets,
  passesGate,
  problemsOf,
  queryVariants,
  unknownSets,
} from './helpers/sweep-kit';
import { buildVenue } from './helpers/venue';

/** One read: who asks, for what. */
interface Read {
  op: Operation;
  caller: Caller;
  params: Record<string, string>;
  /** The list item the parameters were taken from. */
  item?: Record<string, unknown>;
  query: Record<string, string>;
}

/**
 * Answers other than 2xx that are right for a caller holding the route's permission: reads whose
 * service decides who sees what, each with the rule of RESOURCES.md that makes it right.
 */
const ALLOWED: { path: RegExp; status: number; when: (r: Read) => boolean; why: string }[] = [
  {
    path: /^\/api\/v1\/users\/\{id\}/,
    status: 403,
    when: (r) => r.params.id === 'me' && r.caller.userId === null,
    why: '`me` names the signed-in user; a token or a trusted network has none (§0.3)',
  },
  {
    path: /^\/api\/v1\/controlpanels/,
    status: 403,
    when: (r) => !r.caller.permissions.has('subsystems:read'),
    why: 'registered panels, and available ones the caller may not open, need subsystems:read (§2 rules 4, 5)',
  },
  {
    path: /^\/api\/v1\/controlpanels\/\{id\}$/,
    status: 404,
    when: (r) => r.query.location !== undefined,
    why: '`?location=` limits the lookup to that kind of panel (§2)',
  },
  {
    path: /^\/api\/v1\/logs\/presets\/\{id\}$/,
    status: 403,
    when: (r) => r.item?.isGlobal === false && r.item.userId !== r.caller.userId,
    why: "another user's private saved search (§9)",
  },
  {
    path: /^\/api\/v1\/backups\/\{id\}\/download$/,
    status: 409,
    when: (r) => r.item?.status !== 'complete',
    why: 'only a complete backup has an archive to download (§17)',
  },
  {
    path: /^\/api\/v1\/notifications\/\{id\}$/,
    status: 404,
    when: (r) => !r.caller.permissions.has('users:write'),
    why: 'a notification with roleIds is seen only by those roles and holders of users:write (§7 rule 6)',
  },
];

/** The status a read must get: 401 for a dead credential, the gate's 403, a self-only caller's own record, else 2xx. */
function expected(r: Read): 'ok' | 401 | 403 {
  if (r.caller.dead && !r.op.auth.public) return 401;
  if (!passesGate(r.op.auth, r.caller)) return 403;
  const viaSelfOnly = r.op.auth.self && !r.op.auth.anyOf.some((p) => r.caller.permissions.has(p));
  if (viaSelfOnly && r.params.id !== 'me' && r.params.id !== String(r.caller.userId)) return 403;
  return 'ok';
}

function statusProblem(r: Read, status: number): string | null {
  const want = expected(r);
  if (want === 401) return status === 401 ? null : `answered ${status} to a dead credential`;
  if (want === 403) {
    return status === 403 ? null : `answered ${status} to a caller without ${r.op.auth.anyOf.join('|')}`;
  }
  if (status >= 200 && status < 300) return null;
  if (ALLOWED.some((a) => a.path.test(r.op.path) && a.status === status && a.when(r))) return null;
  return `answered ${status} to a caller who may read it`;
}

/**
 * Defects the sweep found in areas other engineers own right now, kept visible here until they are
 * fixed (each is listed in the sweep's report); the sweep fails on anything else.
 */
const KNOWN_DEFECTS: { path: string; caller: RegExp; problem: RegExp; defect: string }[] = [];

const t = makeTestApp();
const served = await t.call('GET', '/api/v1/openapi.json');
const doc = served.body as Record<string, unknown>;
const checker = new SchemaChecker(doc);
const operations = getOperations(doc);
let who: Caller[] = [];
const tally = { operations: 0, reads: 0, byStatus: new Map<number, number>(), known: new Set<string>() };

beforeAll(async () => {
  who = callers(t, await buildVenue(t));
}, 120_000);

afterAll(() => {
  const statuses = [...tally.byStatus.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`);
  console.log(
    `sweep: ${tally.operations} GET operations × ${who.length} callers (${who.map((c) => c.name).join(', ')}); ` +
      `${tally.reads} reads: ${statuses.join(' ')}; KNOWN_DEFECTS hit on: ${[...tally.known].join(', ') || 'none'}`,
  );
});

async function read(r: Read): Promise<string[]> {
  const path = fill(r.op.path, r.params);
  const res = await t.call('GET', path, { ...r.caller.options, query: r.query });
  tally.reads += 1;
  tally.byStatus.set(res.status, (tally.byStatus.get(res.status) ?? 0) + 1);
  const problems = problemsOf(r.op, r.caller, res, checker);
  const status = statusProblem(r, res.status);
  if (status && res.status < 500) problems.unshift(status);
  const total = Number(res.headers.get('x-total-count') ?? Number.NaN);
  const end = Number(r.query.offset ?? 0) + (Array.isArray(res.body) ? res.body.length : 0);
  if (r.query.limit && end < total && !/rel="next"/.test(res.headers.get('link') ?? '')) {
    problems.push(`a cut list (${end} of ${total}) without Link rel="next"`);
  }
  if (res.status === 200 && res.headers.get('last-modified') && r.caller.name === 'admin') {
    problems.push(...(await conditional(path, r, res.headers)));
  }
  const where = `GET ${path}${Object.keys(r.query).length ? `?${new URLSearchParams(r.query)}` : ''} as ${r.caller.name}`;
  return problems.flatMap((p) => {
    const known = KNOWN_DEFECTS.find((k) => k.path === r.op.path && k.caller.test(r.caller.name) && k.problem.test(p));
    if (known) {
      tally.known.add(known.path);
      return [];
    }
    return [`${where}: ${p} ${res.status >= 300 ? res.text.slice(0, 160) : ''}`.trim()];
  });
}

/** A read that sends `Last-Modified` answers the same read with `If-Modified-Since` by 304 and no body (C: Responses). */
async function conditional(path: string, r: Read, first: Headers): Promise<string[]> {
  const headers = { 'if-modified-since': first.get('last-modified') ?? '' };
  const again = await t.call('GET', path, { ...r.caller.options, query: r.query, headers });
  tally.reads += 1;
  tally.byStatus.set(again.status, (tally.byStatus.get(again.status) ?? 0) + 1);
  if (again.status === 304 && again.text === '' && again.headers.get('x-request-id')) return [];
  return [`If-Modified-Since its own Last-Modified answered ${again.status} ${again.text.slice(0, 120)}`];
}

describe('realistic-state sweep', () => {
  it('serves the OpenAPI document with GET operations to read', () => {
    expect(served.status).toBe(200);
    expect(operations.length).toBeGreaterThan(60);
  });

  it('the schema checker catches drift in a real answer', async () => {
    const op = operations.find((o) => o.path === '/api/v1/variables');
    const schema = op?.responses['200'];
    expect(schema).toBeDefined();
    const list = (await t.call('GET', '/variables', { as: 'admin' })).body as Record<string, unknown>[];
    expect(checker.check(schema ?? {}, list)).toEqual([]);
    const [first] = list;
    const drifted = [{ ...first, _createdAt: 'yesterday', healthState: 0.5, _id: undefined }];
    expect(checker.check(schema ?? {}, JSON.parse(JSON.stringify(drifted)))).toEqual([
      '/0/_id: required but missing',
      '/0/_createdAt: "yesterday" is not a date-time',
      '/0/healthState: is not integer',
    ]);
  });

  it.each(operations.map((op) => [op.path, op] as const))('GET %s', async (_, op) => {
    tally.operations += 1;
    const problems: string[] = [];
    const sets = await paramSets(t, op.path, [{ as: 'admin' }, who.find((c) => c.userId !== null)?.options ?? {}]);
    const real = sets[0]?.params ?? {};
    const sample = itemsOf((await t.call('GET', fill(op.path, real), { as: 'admin' })).body)[0];
    for (const caller of who) {
      const every = caller.name === 'admin';
      for (const { params, item } of sets) {
        for (const query of queryVariants(op, sample, every && params === real)) {
          problems.push(...(await read({ op, caller, params, item, query })));
        }
      }
    }
    for (const params of Object.keys(real).length ? unknownSets(real) : []) {
      const res = await t.call('GET', fill(op.path, params), { as: 'admin' });
      tally.reads += 1;
      if (res.status !== 404 || res.body?.code !== 'not_found') {
        problems.push(
          `GET ${fill(op.path, params)} as admin: wanted 404 not_found, got ${res.status} ${res.text.slice(0, 200)}`,
        );
      }
    }
    expect(problems).toEqual([]);
  });

  // Runs after every read: an entry whose defect was fixed must leave the list, or it would hide a regression.
  it('every KNOWN_DEFECTS entry still happens', () => {
    expect(KNOWN_DEFECTS.map((k) => k.path).filter((p) => !tally.known.has(p))).toEqual([]);
  });
});
