/**
 * A small SMTP server for tests, on loopback: enough of RFC 5321 for what a mail client sends (EHLO/HELO,
 * MAIL, RCPT, DATA with dot-unstuffing, RSET, NOOP, QUIT), AUTH PLAIN and LOGIN (RFC 4954), STARTTLS
 * (RFC 3207) and implicit TLS, with a self-signed certificate for `localhost`/127.0.0.1 made for these
 * tests only. It records every message and every command line (AUTH arguments masked).
 *
 * Built on node:net/node:tls (which Bun implements) rather than Bun.listen: Bun's `upgradeTLS` upgrades
 * client sockets only, so a server socket cannot switch to TLS mid-session as STARTTLS needs.
 */
import net from 'node:net';
import tls from 'node:tls';

/** Self-signed P-256 certificate for CN=localhost, SAN DNS:localhost and IP:127.0.0.1, valid to 2126. Test use only. */
export const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBnDCCAUGgAwIBAgIUATzYgJgUhf8M/t7a7crcNIh2voEwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyNTE5MzIxOVoYDzIxMjYxMTAx
MTkzMjE5WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAAQzOTX4HNoiRtrJF+5lj/cfrUvj6aifDL53GgLDXI/2RHt1xDaORefg
C29no/n8KvmwTQPd2qWMz6Qd3oN2LWAqo28wbTAdBgNVHQ4EFgQUBwoOGbDw4dFB
+5u/Q4Hxat5zLCgwHwYDVR0jBBgwFoAUBwoOGbDw4dFB+5u/Q4Hxat5zLCgwDwYD
VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARgglsb2NhbGhvc3SHBH8AAAEwCgYIKoZI
zj0EAwIDSQAwRgIhAKeJmkdzq1Y9shwmsOOrFR5Lez3uF9PuSSGYf/dMzkEwAiEA
muI51kLkweDt9vB0NhAPHAd2ekX+jNt8U8lHpi6s+JE=
-----END CERTIFICATE-----
`;

const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgJa92ySt3oyWTCBEQ
w6qssnz57UfDyrHJCVZagd7a0DKhRANCAAQzOTX4HNoiRtrJF+5lj/cfrUvj6aif
DL53GgLDXI/2RHt1xDaORefgC29no/n8KvmwTQPd2qWMz6Qd3oN2LWAq
-----END PRIVATE KEY-----
`;

export interface SmtpServerOptions {
  /** `none` (plain), `starttls` (plain, offering STARTTLS) or `implicit` (TLS from the first byte). */
  tls?: 'none' | 'starttls' | 'implicit';
  /** Mechanisms advertised; with `users` set, mail is refused (530) until one succeeds. */
  auth?: ('PLAIN' | 'LOGIN')[];
  users?: Record<string, string>;
  /** Answer the next `times` MAIL commands with `reply` (a temporary or permanent refusal). */
  failMail?: { times: number; reply: string };
}

export interface ReceivedMail {
  from: string;
  to: string[];
  /** Who signed in for it (AUTH), null without. */
  user: string | null;
  /** Whether it came over TLS (implicit or after STARTTLS). */
  secure: boolean;
  headers: Record<string, string>;
  subject: string;
  text: string;
}

export interface SmtpServer {
  port: number;
  received: ReceivedMail[];
  /** Command lines as received, with `[tls]` marking lines that came over TLS; AUTH data masked. */
  commands: string[];
  close(): Promise<void>;
}

/** Quoted-printable (RFC 2045) decoded, for bodies a client encoded that way. */
function fromQuotedPrintable(text: string): string {
  const bytes = Buffer.from(
    text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
    'latin1',
  );
  return bytes.toString('utf8');
}

function parseMessage(data: string): { headers: Record<string, string>; subject: string; text: string } {
  const split = data.indexOf('\r\n\r\n');
  const head = split < 0 ? data : data.slice(0, split);
  const body = split < 0 ? '' : data.slice(split + 4);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const encoding = (headers['content-transfer-encoding'] ?? '').toLowerCase();
  const text = encoding === 'quoted-printable' ? fromQuotedPrintable(body) : body;
  return { headers, subject: headers.subject ?? '', text: text.replace(/\r\n$/, '').replaceAll('\r\n', '\n') };
}

export async function startSmtpServer(options: SmtpServerOptions = {}): Promise<SmtpServer> {
  const mode = options.tls ?? 'none';
  const mechanisms = options.auth ?? [];
  const users = options.users ?? null;
  const context = tls.createSecureContext({ cert: TEST_CERT, key: TEST_KEY });
  const received: ReceivedMail[] = [];
  const commands: string[] = [];
  const sockets = new Set<net.Socket>();
  let failures = options.failMail?.times ?? 0;

  const serve = (socket: net.Socket, secure: boolean, greet: boolean) => {
    sockets.add(socket);
    let buffer = '';
    let user: string | null = null;
    let envelope: { from: string; to: string[] } | null = null;
    let data: string[] | null = null;
    let pending: ((line: string) => void) | null = null;
    const reply = (line: string) => socket.write(`${line}\r\n`);
    if (greet) reply('220 localhost ESMTP test server');

    const signIn = (name: string, password: string) => {
      if (users && users[name] === password) {
        user = name;
        reply('235 2.7.0 Authentication successful');
      } else reply('535 5.7.8 Authentication credentials invalid');
    };

    const command = (line: string) => {
      const verb = (line.split(' ')[0] ?? '').toUpperCase();
      commands.push(`${secure ? '[tls] ' : ''}${verb === 'AUTH' ? line.split(' ').slice(0, 2).join(' ') : line}`);
      switch (verb) {
        case 'EHLO': {
          const lines = ['localhost'];
          if (mode === 'starttls' && !secure) lines.push('STARTTLS');
          if (mechanisms.length > 0) lines.push(`AUTH ${mechanisms.join(' ')}`);
          lines.push('8BITMIME');
          lines.forEach((l, i) => {
            reply(`250${i === lines.length - 1 ? ' ' : '-'}${l}`);
          });
          return;
        }
        case 'HELO':
          return reply('250 localhost');
        case 'STARTTLS': {
          if (mode !== 'starttls' || secure) return reply('502 5.5.1 not available');
          reply('220 2.0.0 ready to start TLS');
          socket.removeListener('data', onData);
          serve(new tls.TLSSocket(socket, { isServer: true, secureContext: context }), true, false);
          return;
        }
        case 'AUTH': {
          const [, mechanism = '', initial] = line.split(' ');
          const m = mechanism.toUpperCase();
          if (!mechanisms.includes(m as 'PLAIN')) return reply('504 5.5.4 mechanism not supported');
          if (m === 'PLAIN') {
            const finish = (b64: string) => {
              const [, name = '', password = ''] = Buffer.from(b64, 'base64').toString('utf8').split('\0');
              signIn(name, password);
            };
            if (initial) return finish(initial);
            pending = finish;
            return reply('334 ');
          }
          pending = (nameB64) => {
            const name = Buffer.from(nameB64, 'base64').toString('utf8');
            pending = (passB64) => signIn(name, Buffer.from(passB64, 'base64').toString('utf8'));
            reply('334 UGFzc3dvcmQ6');
          };
          return reply('334 VXNlcm5hbWU6');
        }
        case 'MAIL': {
          if (users && user === null) return reply('530 5.7.0 Authentication required');
          if (failures > 0 && options.failMail) {
            failures -= 1;
            return reply(options.failMail.reply);
          }
          envelope = { from: /<([^>]*)>/.exec(line)?.[1] ?? '', to: [] };
          return reply('250 2.1.0 OK');
        }
        case 'RCPT': {
          if (!envelope) return reply('503 5.5.1 MAIL first');
          envelope.to.push(/<([^>]*)>/.exec(line)?.[1] ?? '');
          return reply('250 2.1.5 OK');
        }
        case 'DATA': {
          if (!envelope || envelope.to.length === 0) return reply('503 5.5.1 RCPT first');
          data = [];
          return reply('354 End data with <CR><LF>.<CR><LF>');
        }
        case 'RSET':
          envelope = null;
          return reply('250 2.0.0 OK');
        case 'NOOP':
          return reply('250 2.0.0 OK');
        case 'QUIT':
          reply('221 2.0.0 Bye');
          socket.end();
          return;
        default:
          return reply('502 5.5.2 command not recognised');
      }
    };

    const onData = (chunk: Buffer) => {
      buffer += chunk.toString('latin1');
      for (;;) {
        const end = buffer.indexOf('\r\n');
        if (end < 0) return;
        const line = Buffer.from(buffer.slice(0, end), 'latin1').toString('utf8');
        buffer = buffer.slice(end + 2);
        if (data !== null) {
          if (line !== '.') {
            data.push(line.startsWith('.') ? line.slice(1) : line);
            continue;
          }
          const message = parseMessage(data.join('\r\n'));
          if (envelope) received.push({ ...envelope, user, secure, ...message });
          data = null;
          envelope = null;
          reply('250 2.0.0 queued');
          continue;
        }
        if (pending) {
          const next = pending;
          pending = null;
          commands.push(`${secure ? '[tls] ' : ''}(auth data)`);
          next(line);
          continue;
        }
        command(line);
        // STARTTLS hands the socket over: the rest of the buffer belongs to the TLS layer.
        if (!socket.listenerCount('data')) return;
      }
    };
    socket.on('data', onData);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  };

  const server =
    mode === 'implicit'
      ? tls.createServer({ cert: TEST_CERT, key: TEST_KEY }, (s) => serve(s, true, true))
      : net.createServer((s) => serve(s, false, true));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    received,
    commands,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
