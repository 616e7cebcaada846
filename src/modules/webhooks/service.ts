/**
 * Webhooks (§10): create, read, update, delete and secret rotation. Every write drops the outbox's
 * cached webhooks, emits `webhook.<change>` and leaves an audit entry; the secret appears only in the
 * create and rotate answers, never in an event, an audit entry or a log line.
 */
import { asc, eq } from 'drizzle-orm';
import { changedFields } from '../../core/changes';
import { type AuditSubject, audit } from '../../core/platform-log';
import type { Principal } from '../../core/principal';
import { checkSubsystemIds } from '../../core/subsystems';
import { webhooks } from '../../db/schema';
import type { Deps } from '../../deps';
import { notFound } from '../../http/errors';
import { cleanName, numericId } from '../../http/fields';
import { type ListResult, type Page, paginate, whereFields } from '../../http/lists';
import { emit, transact } from '../../realtime/emit';
import { invalidateWebhookCache } from '../../realtime/outbox';
import { toWebhookDto, type WebhookRow } from './mapper';
import { WEBHOOK_FIELD_FILTERS, type WebhookCreate, type WebhookDto, type WebhookUpdate } from './model';
import { checkEvents, checkTarget, checkUrl, mergeHeaders, secretOf } from './rules';

/** How long a rotated-away secret keeps signing. */
export const PREVIOUS_SECRET_MS = 24 * 60 * 60 * 1000;

/**
 * Runs a webhook write, its events and audit entry as one transact. The outbox's cached webhooks are
 * dropped inside (so the change's own events see it) and again afterwards, so a rolled-back change
 * never stays cached.
 */
export function webhookWrite<T>(deps: Deps, change: () => T): T {
  try {
    return transact(deps, change);
  } finally {
    invalidateWebhookCache(deps);
  }
}

/** The webhook named by a path segment (`_id` digits). */
export function webhookRow(deps: Deps, id: string): WebhookRow {
  const n = numericId(id);
  const row = n === null ? undefined : deps.db.select().from(webhooks).where(eq(webhooks.id, n)).get();
  if (!row) throw notFound('webhook', id);
  return row;
}

/** Every webhook, oldest first. */
export function listWebhooks(deps: Deps, query: object, page: Page): ListResult<WebhookDto> {
  const rows = deps.db.select().from(webhooks).orderBy(asc(webhooks.id)).all();
  return paginate(
    whereFields(
      rows.map((r) => toWebhookDto(r)),
      query,
      WEBHOOK_FIELD_FILTERS,
    ),
    page,
  );
}

export function getWebhook(deps: Deps, id: string): WebhookDto {
  return toWebhookDto(webhookRow(deps, id));
}

/** Creates a webhook; the answer is the only read that carries its secret. */
export async function createWebhook(deps: Deps, principal: Principal, body: WebhookCreate): Promise<WebhookDto> {
  const displayName = cleanName(body.displayName);
  const url = checkUrl(body.url);
  const events = checkEvents(body.events);
  const subsystemIds = checkSubsystemIds(deps, body.subsystemIds ?? []);
  const headers = mergeHeaders({}, body.headers ?? {});
  const secret = secretOf(body.secret);
  const allowPrivateNetwork = body.allowPrivateNetwork ?? false;
  await checkTarget(deps, url, allowPrivateNetwork);
  const active = body.active ?? true;
  const now = deps.clock.now();
  return webhookWrite(deps, () => {
    const row = deps.db
      .insert(webhooks)
      .values({
        displayName,
        url: body.url,
        events,
        subsystemIds,
        active,
        secret,
        headers,
        timeoutSeconds: body.timeoutSeconds ?? 10,
        allowPrivateNetwork,
        state: active ? 'active' : 'disabled',
        disabledReason: active ? null : 'manual',
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    invalidateWebhookCache(deps);
    const changed = [...WRITABLE];
    emit(deps, 'webhook.created', { _id: row.id, changed });
    audit(deps, principal, 'created', webhookSubject(row), changed);
    return toWebhookDto(row, secret);
  });
}

/** The state fields an `active` write sets: on clears the failure history, off is a manual disable. */
function activation(active: boolean): Partial<WebhookRow> {
  return active
    ? { active, state: 'active', disabledReason: null, consecutiveFailures: 0, failingSince: null }
    : { active, state: 'disabled', disabledReason: 'manual' };
}

/** The writable fields, as events and audit entries name them. */
const WRITABLE = [
  'displayName',
  'url',
  'events',
  'subsystemIds',
  'active',
  'headers',
  'timeoutSeconds',
  'allowPrivateNetwork',
] as const;

/**
 * Updates the writable fields present (PUT and PATCH alike); `secret` is ignored (rotate instead).
 * Only fields whose value differs count (core/changes.ts): an update that changes none (`{}`, the
 * webhook sent back as read) answers it as it is, `_updatedAt` kept, no event, no audit entry.
 */
export async function updateWebhook(
  deps: Deps,
  principal: Principal,
  id: string,
  body: WebhookUpdate,
): Promise<WebhookDto> {
  const row = webhookRow(deps, id);
  const changes: Partial<WebhookRow> = {};
  const set = <K extends keyof WebhookRow>(field: K, value: WebhookRow[K]) => {
    changes[field] = value;
  };
  if (body.displayName !== undefined) set('displayName', cleanName(body.displayName));
  if (body.url !== undefined) set('url', body.url);
  const url = checkUrl(body.url ?? row.url);
  if (body.events !== undefined) set('events', checkEvents(body.events));
  if (body.subsystemIds !== undefined)
    set('subsystemIds', checkSubsystemIds(deps, body.subsystemIds, row.subsystemIds));
  if (body.headers !== undefined) set('headers', mergeHeaders(row.headers, body.headers));
  if (body.timeoutSeconds !== undefined) set('timeoutSeconds', body.timeoutSeconds);
  if (body.allowPrivateNetwork !== undefined) set('allowPrivateNetwork', body.allowPrivateNetwork);
  if (body.url !== undefined || body.allowPrivateNetwork !== undefined) {
    await checkTarget(deps, url, body.allowPrivateNetwork ?? row.allowPrivateNetwork);
  }
  if (body.active !== undefined && body.active !== row.active) Object.assign(changes, activation(body.active));
  const changed = changedFields(row, changes, WRITABLE);
  if (changed.length === 0) return toWebhookDto(row);
  return webhookWrite(deps, () => {
    const updated = deps.db
      .update(webhooks)
      .set({ ...changes, updatedAt: deps.clock.now() })
      .where(eq(webhooks.id, row.id))
      .returning()
      .get();
    if (!updated) throw notFound('webhook', id);
    invalidateWebhookCache(deps);
    emit(deps, 'webhook.updated', { _id: row.id, changed });
    audit(deps, principal, 'updated', webhookSubject(row), changed);
    return toWebhookDto(updated);
  });
}

/** Deletes a webhook with its delivery log (pending deliveries are dropped). */
export function deleteWebhook(deps: Deps, principal: Principal, id: string): void {
  const row = webhookRow(deps, id);
  webhookWrite(deps, () => {
    deps.db.delete(webhooks).where(eq(webhooks.id, row.id)).run();
    invalidateWebhookCache(deps);
    emit(deps, 'webhook.deleted', { _id: row.id, changed: [] });
    audit(deps, principal, 'deleted', webhookSubject(row), []);
  });
}

/** A new secret; the old one keeps signing (second signature) for 24 hours. */
export function rotateWebhookSecret(deps: Deps, principal: Principal, id: string): WebhookDto {
  const row = webhookRow(deps, id);
  const secret = secretOf(undefined);
  const now = deps.clock.now();
  return transact(deps, () => {
    const updated = deps.db
      .update(webhooks)
      .set({ secret, previousSecret: row.secret, previousSecretExpiresAt: now + PREVIOUS_SECRET_MS, updatedAt: now })
      .where(eq(webhooks.id, row.id))
      .returning()
      .get();
    if (!updated) throw notFound('webhook', id);
    emit(deps, 'webhook.updated', { _id: row.id, changed: ['secret'] });
    audit(deps, principal, 'updated', webhookSubject(row), ['secret']);
    return toWebhookDto(updated, secret);
  });
}

/** How the `webhook.<change>` audit entries name a webhook: id and name, never the secret or header values. */
export function webhookSubject(row: WebhookRow): AuditSubject {
  return { kind: 'webhook', name: `webhook ${row.id} (${row.displayName})` };
}
