/**
 * The one error: every non-2xx answer is an AppError rendered by the error plugin as
 * `{statusCode, code, message, detail?, requestId}`. Services throw these through the helpers below.
 */
export const ERROR_STATUS = {
  bad_request: 400,
  validation: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  /** A `Range` wholly past the end of a download (§12); sent with a `Content-Range` naming the size. */
  range_not_satisfiable: 416,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
  insufficient_storage: 507,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  path: string;
  message: string;
}

export interface ErrorBody {
  statusCode: number;
  code: ErrorCode;
  message: string;
  detail?: ErrorDetail[];
  requestId: string;
}

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly errorCode: ErrorCode,
    message: string,
    readonly detail?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.status = ERROR_STATUS[errorCode];
  }
}

/** At most this many characters of a client's key are named back in a 404 message. */
export const ECHOED_KEY_MAX = 64;

/**
 * Client input a message names back (a path's key in `notFound`, the path of an unknown route): whole
 * up to `max` characters (every `_id`, and the keys clients really use), else its first `max` and
 * `…`. The message is JSON, so the text is escaped wherever it goes (the body, the log line): not
 * markup anywhere. The cap keeps a request from having its own long input reflected back (path
 * segments reach 128 characters, references 256, a path 16 KiB). Cut by code point, so a character
 * outside the BMP is never split into half a surrogate pair.
 */
export function echoed(input: string | number, max = ECHOED_KEY_MAX): string {
  const text = String(input);
  if (text.length <= max) return text;
  const points = Array.from(text);
  return points.length <= max ? text : `${points.slice(0, max).join('')}…`;
}

export const notFound = (entity: string, id?: string | number): AppError =>
  new AppError('not_found', id === undefined ? `${entity} not found` : `${entity} ${echoed(id)} not found`);

export const conflict = (message: string): AppError => new AppError('conflict', message);

export const badRequest = (message: string, detail?: ErrorDetail[]): AppError =>
  new AppError('bad_request', message, detail);

/**
 * What a failed read of an upload's body means when the client closed the connection before the body
 * ended: a 400 nobody reads, logged as the client's doing, not a server fault (null: another error).
 */
export function bodyCutOff(err: unknown): AppError | null {
  return err instanceof DOMException && err.name === 'AbortError'
    ? badRequest('the connection closed before the body ended; nothing was stored')
    : null;
}

/** A JSON pointer as a field name in a message: `/roleIds/0` → `roleIds.0`, the root → `body`. */
export function fieldName(path: string): string {
  return path.split('/').filter(Boolean).join('.') || 'body';
}

/** A query value that breaks a rule (C: Errors `bad_request`, a bad query value): `path` names it, `/from`. */
export const badQuery = (path: string, message: string): AppError =>
  new AppError('bad_request', `${fieldName(path)} ${message}`, [{ path, message }]);

/**
 * A rule broken by one field: `path` is a JSON pointer such as `/roleIds/0`. The one rule of every
 * detail (C: Errors): the path names the field, the message says what is wrong with it and never
 * spells the field again, since the top-level message is the two joined ("recurrence.until cannot be
 * given together with count", not "recurrence.until until and count …"). The test harness refuses an
 * answer that breaks it (tests/helpers/errors.ts `spellsItsField`).
 */
export const invalid = (path: string, message: string): AppError =>
  new AppError('validation', `${fieldName(path)} ${message}`, [{ path, message }]);

export const unauthorized = (message = 'authentication required'): AppError => new AppError('unauthorized', message);

export const forbidden = (message = 'permission denied'): AppError => new AppError('forbidden', message);

export const rateLimited = (retryAfterSeconds: number, message = 'too many attempts, try again later'): AppError =>
  new AppError('rate_limited', message, undefined, {
    'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))),
  });

/**
 * A write refused because the disk (or the database's page limit) is full: SQLite or the file system
 * said so, or the writer already answered it with the 507.
 */
export function isDiskFull(error: unknown): boolean {
  if (error instanceof AppError) return error.errorCode === 'insufficient_storage';
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_FULL' || code === 'ENOSPC';
}

/** The one 507 (C: Errors): the transaction was rolled back, nothing half-written is left. */
export const diskFull = (): AppError => new AppError('insufficient_storage', 'the disk is full; nothing was changed');

/**
 * Runs a write that may wait for room: on a full disk it is skipped (false) instead of failing the
 * request around it; any other error is thrown. For bookkeeping a request does not depend on.
 */
export function unlessDiskFull(write: () => void): boolean {
  try {
    write();
    return true;
  } catch (err) {
    if (isDiskFull(err)) return false;
    throw err;
  }
}

/**
 * The same for a write already submitted (the writer's group commit): resolves when it committed or was skipped on a full disk; when it failed, `undo` runs
 * first and any error but a full disk rejects.
 */
export function settledUnlessDiskFull(write: Promise<unknown>, undo: () => void = () => {}): Promise<void> {
  return write.then(
    () => undefined,
    (err) => {
      undo();
      if (!isDiskFull(err)) throw err;
    },
  );
}
