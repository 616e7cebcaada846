/**
 * Class guard for C: Responses ("every list sends X-Total-Count; a cut list also sends Link
 * rel=next; limit/offset page a list"; "Filters are query parameters named after fields"): every GET operation whose OpenAPI 200 answer is an array is
 * read as admin on an app holding a few entities, so a new list route that bypasses the list helper
 * (src/http/lists.ts) fails here rather than in a client.
 */
import { beforeAll, describe, expect, it } from 'bun:test';
import { addSubsystem, makeTestApp } from './helpers/app';
import { errorBody } from './helpers/errors';
import { makeUser } from './helpers/factories';

type Json = Record<string, unknown>;

/**
 * List routes that page another way, each with the rule that makes it right. An entry whose route
 * gains `offset` fails the guard until it is removed.
 */
const UNPAGED: Record<string, string> = {
  '/api/v1/scheduledItems':
    'a schedule read (§11.5): its `limit` cuts the resolved entries and sets countLimitReached; it has no offset',
  '/api/v1/playables/{id}/instances': 'a schedule read (§14, query of §11.5), as /scheduledItems',
  '/api/v1/assets/historicCounts': 'a time series (§16 rule 2): from, to and interval choose its buckets, at most 1000',
  '/api/v1/assets/{id}/historicCounts': 'a time series (§16 rule 2), as /assets/historicCounts',
  '/api/v1/infra/assets/{id}/historicCounts': 'a time series (§16 rule 2), as /assets/historicCounts',
  '/api/v1/infra/assets/{id}/network/historicCounts': 'a time series (§16 rule 3), as /assets/historicCounts',
};

/**
 * Scalar item fields that are not filters of their list, each route with why (C: Responses:
 * "Filters are query parameters named after fields"). Fields starting with `_` and times
 * (`format: date-time`) never are. Every other scalar field of a list's items must be a query
 * parameter, so a field a client filters on is never ignored (the whole list would come back); an
 * entry whose field becomes a filter fails the guard until it is removed.
 */
const NOT_FILTERS: Record<string, { fields: string[]; why: string }> = {
  '/api/v1/alerts': {
    fields: ['subsystemId', 'variableDisplayName', 'message', 'isLocked', 'openIncidents'],
    why: "taken from the variable, a default text, or counted from incidents (alerts/model.ts); subsystemExternalId and variable filter the rule's source",
  },
  '/api/v1/alerts/history': {
    fields: ['closedReason', 'acknowledgedBy', 'lastValue', 'matchCount', 'notified'],
    why: 'a history read by alertId, state, sourceType and time, not a catalogue',
  },
  '/api/v1/assets/historicCounts': {
    fields: ['startLocal', 'total'],
    why: 'a time series (§16): buckets, not records',
  },
  '/api/v1/assets/{id}/historicCounts': { fields: ['startLocal', 'total'], why: 'a time series, as above' },
  '/api/v1/infra/assets/{id}/historicCounts': { fields: ['startLocal', 'total'], why: 'a time series, as above' },
  '/api/v1/infra/assets/{id}/network/historicCounts': {
    fields: ['startLocal', 'total'],
    why: 'a time series, as above',
  },
  '/api/v1/backups': { fields: ['jobId', 'bucket', 'isInFtp'], why: 'inside the job, or the same for every backup' },
  '/api/v1/events': { fields: ['scheduledItemCount'], why: 'counted from the schedule for the page only' },
  '/api/v1/logs/presets': { fields: ['startDate', 'endDate'], why: 'times of the saved search' },
  '/api/v1/objects': {
    fields: ['bucket', 'displayName', 'objectCount', 'totalSize'],
    why: 'the fixed list of buckets (two), not records',
  },
  '/api/v1/objects/{id}/_tags': { fields: ['tag', 'count'], why: 'a count of tags, not records' },
  '/api/v1/platform/host/actions': {
    fields: ['action', 'available', 'executor'],
    why: 'the fixed list of the host actions (§20)',
  },
  '/api/v1/playables': {
    fields: ['mediaReady', 'isUpcomingSchedule'],
    why: 'worked out from the objects and the schedule for the page only',
  },
  '/api/v1/playables/orphan': {
    fields: [
      'subsystemId',
      'subsystemExternalId',
      'externalRef',
      'displayName',
      'description',
      'command',
      'group',
      'duration',
      'durationType',
      'type',
      'mediaReady',
      'thumbId',
      'compositionId',
      'active',
      'availableInSubsystem',
      'forceCached',
      'isCached',
      'copyToPlayer',
      'autoSync',
      'isUpcomingSchedule',
    ],
    why: 'a clean-up report (§14): the playables nothing refers to; GET /playables filters playables',
  },
  '/api/v1/players': {
    fields: ['healthGracePeriodRemaining', 'containerExternalId'],
    why: 'a countdown; the container is filtered by `container` (its _id or externalId)',
  },
  '/api/v1/subsystems': { fields: ['healthGracePeriodRemaining'], why: 'a countdown' },
  '/api/v1/subsystems/{id}/actions': { fields: ['subsystemId'], why: 'the path names the subsystem' },
  '/api/v1/schedules': {
    fields: [
      'displayName',
      'description',
      'startTime',
      'endTime',
      'startTimeLocal',
      'endTimeLocal',
      'startTimeUnix',
      'endTimeUnix',
      'duration',
      'subsystemId',
      'subsystemExternalId',
      'externalRef',
      'command',
      'targetMissing',
    ],
    why: "the target's fields when the item has none, times, or worked out for the page only (schedule/items/model.ts)",
  },
  '/api/v1/schedule/calendars/{id}/scheduledItems': {
    fields: [
      'displayName',
      'description',
      'startTime',
      'endTime',
      'startTimeLocal',
      'endTimeLocal',
      'startTimeUnix',
      'endTimeUnix',
      'duration',
      'subsystemId',
      'subsystemExternalId',
      'externalRef',
      'command',
      'targetMissing',
    ],
    why: 'as /schedules',
  },
  '/api/v1/schedule/runs': {
    fields: ['entryId', 'itemType', 'itemId', 'zoneId', 'scheduledStart', 'actualStart', 'reason'],
    why: 'a run history read by scheduledItemId, status, subsystem and time, not a catalogue',
  },
  '/api/v1/tokens': {
    fields: ['expiresAt', 'lastUsedAt', 'token'],
    why: 'times, and the secret (never sent in a list)',
  },
  '/api/v1/users': { fields: ['lastLoginAt', 'passwordChangedAt'], why: 'times' },
  '/api/v1/users/{id}/availablepanels': {
    fields: [
      'location',
      'subsystemId',
      'subsystemExternalId',
      'externalRef',
      'displayName',
      'description',
      'type',
      'active',
      'registeredPanelId',
      'openExternally',
      'displayNameRegisteredPanel',
    ],
    why: "one user's dashboard (a handful of panels); GET /controlpanels filters panels",
  },
  '/api/v1/users/{id}/controlpanels': {
    fields: [
      'location',
      'subsystemId',
      'subsystemExternalId',
      'externalRef',
      'displayName',
      'description',
      'type',
      'active',
      'registeredPanelId',
      'openExternally',
      'displayNameRegisteredPanel',
    ],
    why: 'as /users/{id}/availablepanels',
  },
  '/api/v1/variables': {
    fields: ['healthGracePeriodRemaining', 'healthRulesText', 'compositeDefinitionText'],
    why: 'a countdown and texts worked out from the rules (variables/model.ts)',
  },
  '/api/v1/variables/{id}/history': { fields: ['value', 'source', 'by'], why: 'a value history read by time' },
  '/api/v1/webhook': {
    fields: ['secretHint', 'lastDeliveryAt', 'lastSuccessAt', 'secret'],
    why: 'a hint of the secret, times, and the secret itself (never sent in a list)',
  },
  '/api/v1/webhook/{id}/deliveries': {
    fields: ['webhookId', 'eventId', 'responseBodyExcerpt', 'nextAttemptAt', 'createdAt'],
    why: 'a delivery history read by status, eventType and time; the path names the webhook',
  },
};

const t = makeTestApp({ start: '2026-01-15T12:00:00.000Z' });
/** `{id}` of each array route with a path parameter; a new one without an entry fails the guard. */
const ids: Record<string, string> = {};
let lists: { path: string; query: string[]; fields: string[] }[] = [];
/** Query parameters of list routes declared with a closed set of values (`anyOf` of `const`s). */
let enumParams: { path: string; name: string; values: string[] }[] = [];

beforeAll(async () => {
  const doc = (await t.call('GET', '/api/v1/openapi.json')).body as {
    paths: Record<string, Json>;
    components?: { schemas?: Record<string, Json> };
  };
  const deref = (s: Json | undefined): Json | undefined => {
    const ref = s?.$ref;
    return typeof ref === 'string' ? doc.components?.schemas?.[ref.split('/').pop() ?? ''] : s;
  };
  /** A string, number or boolean (or one of them or null), not a time. */
  const scalar = (raw: Json | undefined): boolean => {
    const s = deref(raw);
    if (!s) return false;
    if (Array.isArray(s.anyOf)) {
      const kinds = (s.anyOf as Json[]).filter((x) => deref(x)?.type !== 'null');
      return kinds.length > 0 && kinds.every(scalar);
    }
    if (s.const !== undefined) return true;
    return ['string', 'integer', 'number', 'boolean'].includes(String(s.type)) && s.format !== 'date-time';
  };
  lists = Object.entries(doc.paths).flatMap(([path, item]) => {
    const op = item.get as Json | undefined;
    const ok = (op?.responses as Record<string, Json> | undefined)?.['200'];
    const schema = deref((ok?.content as Record<string, Json> | undefined)?.['application/json']?.schema as Json);
    if (schema?.type !== 'array') return [];
    const params = (op?.parameters ?? []) as { name: string; in: string }[];
    const properties = (deref(schema.items as Json)?.properties ?? {}) as Record<string, Json>;
    const fields = Object.entries(properties)
      .filter(([name, field]) => !name.startsWith('_') && scalar(field))
      .map(([name]) => name);
    return [{ path, query: params.filter((p) => p.in === 'query').map((p) => p.name), fields }];
  });
  enumParams = Object.entries(doc.paths).flatMap(([path, item]) => {
    if (!lists.some((l) => l.path === path)) return [];
    const params = ((item.get as Json | undefined)?.parameters ?? []) as { name: string; in: string; schema?: Json }[];
    return params.flatMap((p) => {
      const options = p.in === 'query' ? (deref(p.schema)?.anyOf as Json[] | undefined) : undefined;
      const values = options?.map((o) => o.const);
      if (!values?.length || !values.every((v) => typeof v === 'string')) return [];
      return [{ path, name: p.name, values: values as string[] }];
    });
  });

  // Two of most things, so a list of them can be cut at limit=1.
  const media = await addSubsystem(t, 'media');
  await addSubsystem(t, 'lights');
  for (const externalRef of ['temp', 'level']) {
    await t.call('POST', '/variables', { as: 'admin', body: { subsystemExternalId: 'media', externalRef } });
    await t.call('POST', '/events', { as: 'admin', body: { subsystemExternalId: 'media', externalRef } });
  }
  const variable = (await t.call('GET', '/variables', { as: 'admin', query: { limit: 1 } })).body[0];
  await t.call('PUT', `/variables/${variable._id}/value`, { as: 'admin', body: { value: '1' } });
  await t.call('PUT', `/variables/${variable._id}/value`, { as: 'admin', body: { value: '2' } });
  for (const topic of ['a', 'b']) {
    await t.call('PUT', '/subsystems/media/action', { as: 'admin', body: { type: 'identify', topic } });
  }
  const webhook = await t.call('POST', '/webhook', {
    as: 'admin',
    body: { displayName: 'Ops', url: 'https://hooks.example.com/in' },
  });
  for (const name of ['a.txt', 'b.txt']) {
    await t.call('POST', '/objects/cms-media', { as: 'admin', body: { name, tags: ['x', 'y'] } });
  }
  const playable = await t.call('POST', '/playables', {
    as: 'admin',
    body: { subsystemExternalId: 'media', externalRef: 'show' },
  });
  const template = await t.call('POST', '/playables', {
    as: 'admin',
    body: { subsystemExternalId: 'media', externalRef: 'tpl', type: 'template' },
  });
  for (const externalRef of ['a', 'b']) {
    const body = {
      subsystemExternalId: 'media',
      externalRef,
      displayName: externalRef,
      templatePath: { _id: template.body._id },
    };
    await t.call('POST', '/compositions', { as: 'admin', body });
  }
  const asset = await t.call('POST', '/infra/assets', {
    as: 'admin',
    body: { displayName: 'Rack', profileType: 'rack' },
  });
  const user = await makeUser(t, 'una');
  Object.assign(ids, {
    '/api/v1/subsystems/{id}/actions': String(media._id),
    '/api/v1/users/{id}/availablepanels': String(user.user.id),
    '/api/v1/users/{id}/controlpanels': String(user.user.id),
    '/api/v1/variables/{id}/history': String(variable._id),
    '/api/v1/webhook/{id}/deliveries': String(webhook.body._id),
    // Calendar 1 ("Main") exists from the first start.
    '/api/v1/schedule/calendars/{id}/scheduledItems': '1',
    '/api/v1/objects/{id}/_tags': 'cms-media',
    '/api/v1/subsystem/{id}/compositions': 'media',
    '/api/v1/subsystems/{id}/compositions': String(media._id),
    '/api/v1/playables/{id}/instances': String(playable.body._id),
    '/api/v1/assets/{id}/historicCounts': String(asset.body._id),
    '/api/v1/infra/assets/{id}/historicCounts': String(asset.body._id),
    '/api/v1/infra/assets/{id}/network/historicCounts': String(asset.body._id),
  });
});

/** The route's path with its `{id}` filled, or a failure naming the route that needs an entry in `ids`. */
function pathOf(route: string): string {
  if (!route.includes('{')) return route;
  const id = ids[route];
  if (id === undefined) throw new Error(`lists.test.ts: add an {id} for the new list route ${route}`);
  return route.replace('{id}', id);
}

describe('every list route (C: Responses)', () => {
  it('finds the list routes in the served document', () => {
    expect(lists.length).toBeGreaterThan(30);
  });

  it('takes each scalar field of its items as a filter, or says why not (NOT_FILTERS)', () => {
    const problems: string[] = [];
    for (const { path, query, fields } of lists) {
      const exempt = NOT_FILTERS[path]?.fields ?? [];
      const missing = fields.filter((f) => !query.includes(f) && !exempt.includes(f));
      if (missing.length > 0) problems.push(`${path} ignores ${missing.join(', ')}`);
      const stale = exempt.filter((f) => query.includes(f) || !fields.includes(f));
      if (stale.length > 0) problems.push(`${path}: NOT_FILTERS names ${stale.join(', ')}, a filter or no field now`);
    }
    for (const path of Object.keys(NOT_FILTERS))
      if (!lists.some((l) => l.path === path)) problems.push(`NOT_FILTERS names ${path}, no list route now`);
    expect(problems).toEqual([]);
  });

  it('answers each with X-Total-Count as admin', async () => {
    const missing: string[] = [];
    for (const { path: route } of lists) {
      const res = await t.call('GET', pathOf(route), { as: 'admin' });
      expect(`${route} ${res.status}`).toBe(`${route} 200`);
      const total = res.headers.get('x-total-count');
      if (total === null || Number(total) < res.body.length) missing.push(`${route} (${res.body.length} items)`);
    }
    expect(missing).toEqual([]);
  });

  it('pages each with limit and offset, and a list cut at limit=1 links the next page', async () => {
    const problems: string[] = [];
    let cut = 0;
    for (const { path: route, query } of lists) {
      const paged = query.includes('limit') && query.includes('offset');
      if (route in UNPAGED) {
        if (paged) problems.push(`${route} pages now: remove it from UNPAGED`);
        continue;
      }
      if (!paged) {
        problems.push(`${route} declares no limit/offset`);
        continue;
      }
      const path = pathOf(route);
      const total = Number((await t.call('GET', path, { as: 'admin' })).headers.get('x-total-count'));
      if (!(total >= 2)) continue;
      cut += 1;
      const res = await t.call('GET', path, { as: 'admin', query: { limit: 1, offset: 0 } });
      const link = res.headers.get('link') ?? '';
      if (res.body.length !== 1 || res.headers.get('x-total-count') !== String(total) || !/rel="next"/.test(link))
        problems.push(
          `${route}?limit=1: ${res.body.length} items of ${res.headers.get('x-total-count')}, link ${link}`,
        );
    }
    expect(problems).toEqual([]);
    // The entities above make enough lists long enough to cut that this part cannot pass on nothing.
    expect(cut).toBeGreaterThan(5);
  });
});

/**
 * C: Errors ("bad_request: bad query value"): a filter on a field with a closed set of values, sent a
 * value outside it, is 400 `bad_request` naming the parameter, never `[]` (a misspelt status would
 * read as "none of those", and a status no entity can have is the client's mistake).
 */
describe('an enum filter outside its enum', () => {
  /** Filters on enum fields, each list with a value of the enum it must still take. */
  const ENUM_FILTERS: [string, string, string][] = [
    ['/api/v1/players', 'status', 'online'],
    ['/api/v1/subsystems', 'status', 'unknown'],
    ['/api/v1/subsystems', 'kind', 'player'],
    ['/api/v1/compositions', 'status', 'draft'],
    ['/api/v1/objects/cms-media', 'status', 'created'],
    ['/api/v1/playables', 'durationType', 'static'],
    ['/api/v1/parameters', 'type', 'number'],
    ['/api/v1/variables', 'type', 'string'],
    ['/api/v1/assets', 'status', 'active'],
    ['/api/v1/alerts', 'criticality', 'warning'],
    ['/api/v1/alerts', 'lifeCycle', 'once'],
    ['/api/v1/webhook', 'state', 'active'],
    ['/api/v1/subsystems/{id}/actions', 'state', 'queued'],
    ['/api/v1/subsystems/{id}/actions', 'type', 'identify'],
    ['/api/v1/subsystems/{id}/actions', 'playType', 'once'],
  ];

  it.each(ENUM_FILTERS)(
    '%s?%s=bogus is 400 bad_request naming it; a value of the enum filters',
    async (route, name, good) => {
      const path = pathOf(route);
      const res = await t.call('GET', path, { as: 'admin', query: { [name]: 'bogus' } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'bad_request', detail: [{ path: `/${name}` }] });
      expect(res.body.message).toContain(name);
      const ok = await t.call('GET', path, { as: 'admin', query: { [name]: good } });
      expect(ok.status).toBe(200);
    },
  );

  it('every query parameter of a list declared as an enum refuses a value outside it the same way', async () => {
    expect(enumParams.length).toBeGreaterThan(ENUM_FILTERS.length);
    const problems: string[] = [];
    for (const { path: route, name, values } of enumParams) {
      const res = await t.call('GET', pathOf(route), { as: 'admin', query: { [name]: 'no-such-value' } });
      const detail = res.body?.detail?.[0]?.path;
      if (res.status !== 400 || res.body?.code !== 'bad_request' || detail !== `/${name}`)
        problems.push(`${route}?${name} (${values.join('|')}): ${res.status} ${res.body?.code} at ${detail}`);
    }
    expect(problems).toEqual([]);
    const res = await t.call('GET', '/api/v1/players', { as: 'admin', query: { status: 'bogus' } });
    expect(res.body).toEqual(
      errorBody(res, 400, 'bad_request', 'query status must be one of: unknown, online, offline, disabled', [
        { path: '/status', message: 'must be one of: unknown, online, offline, disabled' },
      ]),
    );
  });
});
