/**
 * Mail (§8 rules 4, 5; settings `smtp`, §18): what other modules call. `queueMail` writes one
 * delivery per recipient inside the caller's unit (the incident and its mail commit together); the
 * dispatcher (dispatch.ts) sends it after the commit, off the request path, and retries a failure
 * with back-off. `mailOfIncidents` is what the alert history shows of it.
 */
import { inArray } from 'drizzle-orm';
import { iso, isoOrNull } from '../../clock';
import { insertRow } from '../../db/prepared';
import { mailDeliveries } from '../../db/schema';
import type { Deps } from '../../deps';
import { transact } from '../../realtime/emit';
import { kickMail } from './dispatch';

export type MailKind = 'notice' | 'recovery';

export interface MailRequest {
  kind: MailKind;
  alertId: number | null;
  incidentId: number | null;
  /** Addresses, each sent its own message (one failing recipient holds up no other). */
  recipients: readonly string[];
  subject: string;
  body: string;
}

/** One delivery as the alert history shows it. */
export interface MailDto {
  _id: number;
  kind: string;
  to: string;
  state: string;
  attempts: number;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  sentAt: string | null;
  lastError: string | null;
  createdAt: string;
}

/** Queues the mail in the open unit (or a unit of its own); the dispatcher is woken after the commit. */
export function queueMail(deps: Deps, mail: MailRequest): number {
  const recipients = [...new Set(mail.recipients)];
  if (recipients.length === 0) return 0;
  const now = deps.clock.now();
  transact(deps, (unit) => {
    for (const recipient of recipients) {
      insertRow(deps, 'mail', mailDeliveries, {
        kind: mail.kind,
        alertId: mail.alertId,
        incidentId: mail.incidentId,
        recipient,
        subject: mail.subject,
        body: mail.body,
        state: 'pending',
        attempts: 0,
        nextAttemptAt: now,
        createdAt: now,
        updatedAt: now,
      });
    }
    unit.afterCommit(() => kickMail(deps));
  });
  return recipients.length;
}

/** The mail of each incident, oldest first. */
export function mailOfIncidents(deps: Deps, incidentIds: readonly number[]): Map<number, MailDto[]> {
  const out = new Map<number, MailDto[]>();
  if (incidentIds.length === 0) return out;
  const rows = deps.db
    .select()
    .from(mailDeliveries)
    .where(inArray(mailDeliveries.incidentId, [...incidentIds]))
    .orderBy(mailDeliveries.id)
    .all();
  for (const r of rows) {
    if (r.incidentId === null) continue;
    const list = out.get(r.incidentId) ?? [];
    list.push({
      _id: r.id,
      kind: r.kind,
      to: r.recipient,
      state: r.state,
      attempts: r.attempts,
      lastAttemptAt: isoOrNull(r.lastAttemptAt),
      nextAttemptAt: isoOrNull(r.nextAttemptAt),
      sentAt: isoOrNull(r.sentAt),
      lastError: r.lastError,
      createdAt: iso(r.createdAt),
    });
    out.set(r.incidentId, list);
  }
  return out;
}

/**
 * The mail settings changed: mail still waiting for a retry is due at once (a corrected password or
 * host should not wait out the back-off).
 */
export function mailSettingsChanged(deps: Deps): void {
  const now = deps.clock.now();
  deps.sqlite.run("UPDATE mail_deliveries SET next_attempt_at = ? WHERE state = 'pending' AND next_attempt_at > ?", [
    now,
    now,
  ]);
  kickMail(deps);
}
