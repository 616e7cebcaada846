/**
 * One message to one recipient over SMTP (RFC 5321), through nodemailer: implicit TLS when
 * `secure`, otherwise STARTTLS when the server offers it, and required when there are credentials
 * (a password never travels in clear); AUTH PLAIN or LOGIN as the server offers. The certificate is
 * verified against the system's authorities unless `verifyCertificate` is false. Bounded in time, so
 * a dead server never holds an attempt for long.
 */
import type { SettingGroups } from '../../core/settings';

export type MailSettings = NonNullable<SettingGroups['smtp']>;

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
}

export const CONNECT_TIMEOUT_MS = 10_000;
export const SOCKET_TIMEOUT_MS = 30_000;

/** Sends the message; resolves when the server accepted it, rejects with the server's or network's error. */
export async function sendOverSmtp(smtp: MailSettings, mail: OutgoingMail, from: string): Promise<void> {
  const secure = smtp.secure === true;
  const username = smtp.username ? smtp.username : null;
  // Loaded on the first mail: a daemon that never sends one does not carry the library in memory.
  const { default: nodemailer } = await import('nodemailer');
  const transport = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port ?? (secure ? 465 : 587),
    secure,
    requireTLS: !secure && username !== null,
    ...(username !== null ? { auth: { user: username, pass: smtp.password ?? '' } } : {}),
    tls: { rejectUnauthorized: smtp.verifyCertificate !== false, minVersion: 'TLSv1.2' },
    connectionTimeout: CONNECT_TIMEOUT_MS,
    greetingTimeout: CONNECT_TIMEOUT_MS,
    socketTimeout: SOCKET_TIMEOUT_MS,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  try {
    await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
  } finally {
    transport.close();
  }
}
