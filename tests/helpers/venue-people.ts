/**
 * The venue's people and what they leave behind: custom roles, users (one signs in), tokens (one
 * expires, one limited to a subsystem), user templates, notifications in every state and log entries,
 * scenarios and saved searches.
 */
import type { CallOptions, TestApp } from './app';
import type { Devices } from './venue-devices';
import { ADMIN, at, FIELD, INTEGRATION, made, must, need, OPERATOR } from './venue-kit';

export interface People {
  roles: Record<string, number>;
  users: Record<string, number>;
  tokens: Record<string, number>;
  templates: Record<string, number>;
  notifications: Record<string, number>;
  /** A signed-in user's session, with a custom role that lacks `users:read` (so `self` routes matter). */
  session: { username: string; userId: number; secret: string };
  /** A token of the `show-ctrl` integration limited to that subsystem. */
  showToken: string;
  /** Credentials that worked once: a deleted user's session, a token past its expiry. */
  deadCredentials: { name: string; secret: string }[];
}

const BUILT_IN = ['admin', 'operator', 'viewer', 'integration'] as const;

async function rolesUsersTokens(t: TestApp, d: Devices, p: People): Promise<void> {
  const roles = (await must(t, 'GET', '/roles', ADMIN, 200)).body as { _id: number; name: string }[];
  for (const r of roles) if ((BUILT_IN as readonly string[]).includes(r.name)) p.roles[r.name] = r._id;
  for (const [name, permissions] of [
    ['stage', ['variables:read', 'events:read', 'notifications:read', 'logs:read', 'logs:write', 'schedule:read']],
    ['cron', ['logs:write', 'variables:read']],
    ['auditor', ['logs:read', 'alerts:read', 'webhook:read']],
    ['ushers', ['notifications:read']],
  ] as const) {
    p.roles[name] = (
      await made(t, 'POST', '/roles', { ...ADMIN, body: { name, permissions, description: `${name} crew` } })
    )._id;
  }
  // Who may open which available panel (the dashboards below need it).
  for (const [panel, roles] of [
    ['media-1/main#available', ['viewer', 'stage']],
    ['signage/editor#available', ['viewer']],
    ['show-ctrl/cues#available', ['stage', 'operator']],
  ] as const) {
    const body = { roles: roles.map((r) => need(p.roles, r)) };
    await must(
      t,
      'PUT',
      `/controlpanels/${need(d.panels, panel)}`,
      { ...ADMIN, query: { type: 'available' }, body },
      200,
    );
  }
  p.templates['front-desk'] = (
    await made(t, 'POST', '/usertemplates', {
      ...ADMIN,
      body: {
        displayName: 'Front desk',
        roleIds: [need(p.roles, 'viewer')],
        controlpanels: [need(d.panels, 'media-1/main#available'), need(d.panels, 'signage/editor#available')],
        preferences: { theme: 'dark' },
        isDefault: true,
      },
    })
  )._id;
  p.templates.crew = (
    await made(t, 'POST', '/usertemplates', {
      ...ADMIN,
      body: { displayName: 'Crew', roleIds: [need(p.roles, 'stage')] },
    })
  )._id;
  for (const [username, body] of [
    ['root', { roleIds: [need(p.roles, 'admin')], displayName: 'Venue administrator' }],
    ['alice', { roleIds: [need(p.roles, 'operator')], email: 'alice@example.com' }],
    ['bob', { templateId: need(p.templates, 'front-desk') }],
    ['carol', { roleIds: [need(p.roles, 'stage')], preferences: { lang: 'fr' } }],
    ['dave', { roleIds: [need(p.roles, 'admin')], displayName: 'Dave (leaves)' }],
    ['erin', { roleIds: [need(p.roles, 'viewer')], enabled: false }],
  ] as const) {
    p.users[username] = (
      await made(t, 'POST', '/users', { ...ADMIN, body: { username, password: `${username}-password-1`, ...body } })
    )._id;
  }
  await must(
    t,
    'PUT',
    `/users/${need(p.users, 'bob')}/controlpanels`,
    {
      ...ADMIN,
      body: { controlpanels: [need(d.panels, 'media-1/main#available'), need(d.panels, 'signage/editor#available')] },
    },
    200,
  );
  p.session.secret = await signIn(t, 'carol');
  p.session.userId = need(p.users, 'carol');
  await must(
    t,
    'PATCH',
    '/users/me',
    { token: p.session.secret, body: { displayName: 'Carol C.', preferences: { lang: 'de' } } },
    200,
  );

  const daveSession = await signIn(t, 'dave');
  const dave = { token: daveSession };
  for (const [name, body] of [
    ['nightly', { roleId: need(p.roles, 'cron') }],
    ['show-ctrl', { roleId: need(p.roles, 'integration'), subsystemIds: [need(d.subsystems, 'show-ctrl')] }],
    ['short-lived', { roleId: need(p.roles, 'viewer'), expiresAt: at(t, 60_000) }],
    ['audit-bot', { roleId: need(p.roles, 'auditor') }],
    ['signage-driver', { roleId: need(p.roles, 'integration'), subsystemIds: [need(d.subsystems, 'signage')] }],
  ] as const) {
    const res = await made(t, 'POST', '/tokens', { ...dave, body: { displayName: name, ...body } });
    p.tokens[name] = res._id;
    if (name === 'show-ctrl') p.showToken = String(res.token);
  }
  await must(
    t,
    'PATCH',
    `/tokens/${need(p.tokens, 'nightly')}`,
    { ...ADMIN, body: { displayName: 'nightly export' } },
    200,
  );
  // Dave saves searches before he leaves (they keep his userId); his session dies with his account.
  await made(t, 'POST', '/logs/presets', { ...dave, body: { name: 'dave global', isGlobal: true, tags: ['ops'] } });
  await made(t, 'POST', '/logs/presets', { ...dave, body: { name: 'dave private', filters: { key: 'cue' } } });
  p.deadCredentials.push({ name: 'session of deleted dave', secret: daveSession });
  const expiring = { displayName: 'expiring', roleId: need(p.roles, 'operator'), expiresAt: at(t, 90_000) };
  const token = await made(t, 'POST', '/tokens', { ...ADMIN, body: expiring });
  p.deadCredentials.push({ name: 'expired token', secret: String(token.token) });
}

async function signIn(t: TestApp, username: string): Promise<string> {
  const res = await must(
    t,
    'POST',
    '/auth/login',
    { from: '192.0.2.10', body: { username, password: `${username}-password-1` } },
    200,
  );
  return String(res.body.session);
}

async function notifications(t: TestApp, d: Devices, p: People): Promise<void> {
  const show = async (name: string, options: CallOptions, body: Record<string, unknown>, status = [201, 200]) => {
    p.notifications[name] = (await must(t, 'POST', '/notifications/show', { ...options, body }, status)).body._id;
  };
  await show('doors', OPERATOR, {
    title: 'Doors open',
    message: 'House is open',
    key: 'doors',
    actions: [
      { id: 'go', label: 'Go', type: 'event', eventId: need(d.events, 'show-ctrl/go-2') },
      { id: 'mute', label: 'Mute', type: 'variable', variableId: need(d.variables, 'audio-dsp/mute'), value: true },
      { id: 'docs', label: 'Docs', type: 'link', url: 'https://example.com/doors', clears: false },
    ],
  });
  await show('doors', ADMIN, { title: 'Doors open (again)', key: 'doors', severity: 'warn' }, [200]);
  await show('fire', FIELD, {
    title: 'Fire alarm test',
    severity: 'critical',
    subsystemExternalId: 'show-ctrl',
    roleIds: [need(p.roles, 'admin')],
  });
  await show('tmp', INTEGRATION, {
    title: 'Transient',
    subsystemExternalId: 'media-1',
    expiresAt: at(t, 30_000),
    actions: [{ id: 'cb', label: 'Ack', type: 'callback' }],
  });
  await show('stage', OPERATOR, { title: 'Stage note', message: 'Mic 3 battery', roleIds: [need(p.roles, 'stage')] });
  await show('ushers', OPERATOR, {
    title: 'Ushers to doors',
    roleIds: [need(p.roles, 'ushers'), need(p.roles, 'stage')],
  });
  await show('cleared', OPERATOR, { title: 'Old news', key: 'old' });
  await show('panel', OPERATOR, {
    title: 'Variable action',
    actions: [
      { id: 'set', label: 'Set', type: 'variable', variableId: need(d.variables, 'show-ctrl/cue'), value: '7' },
    ],
  });
  await must(
    t,
    'POST',
    `/notifications/${need(p.notifications, 'doors')}/action`,
    { ...OPERATOR, body: { action: 'docs' } },
    200,
  );
  await must(
    t,
    'POST',
    `/notifications/${need(p.notifications, 'tmp')}/action`,
    { ...ADMIN, body: { actionId: 'cb' } },
    200,
  );
  await must(t, 'PUT', '/notifications/clear', { ...OPERATOR, body: { key: 'old' } }, 200);
  await show('cleared-twice', OPERATOR, { title: 'Shown, cleared, shown, cleared' });
  const twice = need(p.notifications, 'cleared-twice');
  await must(t, 'PUT', `/notifications/${twice}/clear`, OPERATOR, 200);
  await must(t, 'POST', `/notifications/${twice}/show`, OPERATOR, 200);
  await must(t, 'POST', `/notifications/${twice}/clear`, ADMIN, 200);
}

async function logs(t: TestApp, p: People): Promise<void> {
  const posts: [CallOptions, Record<string, unknown>][] = [
    [FIELD, { key: 'show.start', value: 'Show started', tags: ['show'] }],
    [INTEGRATION, { key: 'dsp.clip', value: { channel: 3, peak: 0.2 }, severity: 'warn', createdBy: 'audio-dsp' }],
    [{ token: p.showToken }, { key: 'cue', value: 'GO 1', host: 'show-ctrl.local' }],
    [OPERATOR, { key: 'note', value: 'Projector bulb replaced', severity: 'info', tags: 'maintenance,projector' }],
    [{ token: p.session.secret }, { key: 'stage', value: 'Line check done', severity: 'debug' }],
    [ADMIN, { key: 'error.sample', value: 'E42\nstack-like text', severity: 'error', createdByType: 'system' }],
  ];
  for (const [caller, body] of posts) await must(t, 'POST', '/logs', { ...caller, body }, 201);
  for (const body of [
    { origin: 'panel', action: 'doors', displayName: 'Open doors', log: true },
    { origin: 'panel', action: 'house-lights', displayName: 'House lights', description: 'to 30%' },
  ]) {
    await made(t, 'POST', '/logs/scenarios', { ...OPERATOR, body });
  }
  await must(
    t,
    'POST',
    '/logs/scenariosLog',
    { ...FIELD, body: { origin: 'panel', action: 'doors', text: 'doors opened', displayName: 'Open doors' } },
    201,
  );
  await must(
    t,
    'POST',
    '/logs/scenariosLog',
    { ...OPERATOR, body: { origin: 'panel', action: 'unknown', text: 'no catalogue entry' } },
    201,
  );
  await made(t, 'POST', '/logs/presets', {
    ...OPERATOR,
    body: { name: 'errors', isGlobal: true, filters: { severity: ['error'] }, tags: ['ops'] },
  });
  await made(t, 'POST', '/logs/presets', {
    token: p.session.secret,
    body: { name: 'mine', type: 'custom', startDate: at(t, -86_400_000), currentSearch: 'cue' },
  });
}

/** Roles, users, a session, tokens, templates, notifications and log entries. */
export async function buildPeople(t: TestApp, d: Devices): Promise<People> {
  const p: People = {
    roles: {},
    users: {},
    tokens: {},
    templates: {},
    notifications: {},
    session: { username: 'carol', userId: 0, secret: '' },
    showToken: '',
    deadCredentials: [],
  };
  await rolesUsersTokens(t, d, p);
  await notifications(t, d, p);
  await logs(t, p);
  return p;
}
