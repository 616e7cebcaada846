/**
 * JSON-RPC 2.0 over lines (C: Realtime): framing and the message shapes. One JSON object per line,
 * lines end with `\r\n` (a bare `\n` is accepted), a line may arrive split over several packets or
 * share a packet with others. Transport free, so the framing is tested without sockets.
 */
import { dropProtoKeys } from '../http/proto-keys';

/** The longest line taken; a longer one is answered with an error and skipped up to its end. */
export const MAX_LINE_BYTES = 64 * 1024;

export const RPC_ERRORS = {
  parse: { code: -32700, message: 'Parse error' },
  invalidRequest: { code: -32600, message: 'Invalid Request' },
  methodNotFound: { code: -32601, message: 'Method not found' },
  invalidParams: { code: -32602, message: 'Invalid params' },
  unauthenticated: { code: -32001, message: 'authentication required' },
  badCredential: { code: -32001, message: 'the credential is invalid or has expired' },
  forbidden: { code: -32003, message: 'forbidden' },
  internal: { code: -32603, message: 'Internal error' },
} as const;

export type RpcErrorKind = keyof typeof RPC_ERRORS;
export type RpcId = string | number | null;

/** A failure a method reports; `data` says more for people (never an echoed secret). */
export class RpcError extends Error {
  constructor(
    readonly kind: RpcErrorKind,
    readonly data?: string,
  ) {
    super(RPC_ERRORS[kind].message);
  }
}

export function resultLine(id: RpcId, result: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', result, id });
}

export function errorLine(id: RpcId, kind: RpcErrorKind, data?: string): string {
  const { code, message } = RPC_ERRORS[kind];
  const error = data === undefined ? { code, message } : { code, message, data };
  return JSON.stringify({ jsonrpc: '2.0', error, id });
}

/** What a line holds once read: a call to run (`id` absent for a notification) or the error to answer. */
export type ParsedLine =
  | { kind: 'call'; method: string; params: unknown; id: RpcId; notification: boolean }
  | { kind: 'error'; reply: string };

function isId(value: unknown): value is RpcId {
  return value === null || typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/**
 * Reads one line as a JSON-RPC request. The `jsonrpc` member is not required: field clients send
 * `{"method":"auth","params":[…]}` as CONVENTIONS shows it. Batches (arrays) are not part of this
 * channel and are refused as invalid requests.
 */
export function parseLine(line: string): ParsedLine {
  let message: unknown;
  try {
    message = dropProtoKeys(JSON.parse(line), line);
  } catch {
    return { kind: 'error', reply: errorLine(null, 'parse') };
  }
  if (message === null || typeof message !== 'object' || Array.isArray(message)) {
    return { kind: 'error', reply: errorLine(null, 'invalidRequest', 'a request is one JSON object') };
  }
  const request = message as Record<string, unknown>;
  const hasId = Object.hasOwn(request, 'id');
  if (hasId && !isId(request.id)) {
    return { kind: 'error', reply: errorLine(null, 'invalidRequest', 'id must be a string, a number or null') };
  }
  const id = hasId ? (request.id as RpcId) : null;
  if (typeof request.method !== 'string' || request.method === '') {
    return { kind: 'error', reply: errorLine(id, 'invalidRequest', 'method must be a non-empty string') };
  }
  return { kind: 'call', method: request.method, params: request.params, id, notification: !hasId };
}

/** Marks a line that went over MAX_LINE_BYTES; it is reported once and its bytes are dropped. */
export const TOO_LONG = Symbol('line too long');

/** Splits a byte stream into lines, buffering a partial line across packets. */
export class LineReader {
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private discarding = false;
  private readonly decoder = new TextDecoder();

  constructor(private readonly maxBytes = MAX_LINE_BYTES) {}

  /** The complete lines in `chunk` (without their `\r\n`), in order. */
  push(chunk: Uint8Array): Array<string | typeof TOO_LONG> {
    const lines: Array<string | typeof TOO_LONG> = [];
    let start = 0;
    while (start <= chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      const segment = chunk.subarray(start, end);
      if (!this.discarding) {
        if (this.pendingBytes + segment.length > this.maxBytes) {
          lines.push(TOO_LONG);
          this.clear();
          this.discarding = newline === -1;
        } else if (newline === -1) {
          if (segment.length > 0) this.pending.push(segment.slice());
          this.pendingBytes += segment.length;
        } else {
          lines.push(this.take(segment));
        }
      } else if (newline !== -1) {
        this.discarding = false;
      }
      if (newline === -1) break;
      start = newline + 1;
    }
    return lines;
  }

  private take(last: Uint8Array): string {
    const bytes = new Uint8Array(this.pendingBytes + last.length);
    let offset = 0;
    for (const part of this.pending) {
      bytes.set(part, offset);
      offset += part.length;
    }
    bytes.set(last, offset);
    this.clear();
    const text = this.decoder.decode(bytes);
    return text.endsWith('\r') ? text.slice(0, -1) : text;
  }

  private clear(): void {
    this.pending = [];
    this.pendingBytes = 0;
  }
}
