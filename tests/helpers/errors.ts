import { expect } from 'bun:test';

/** The one error body (C: Errors) as tests expect it, with the request id the answer carried. */
export function errorBody(
  res: { headers: Headers },
  statusCode: number,
  code: string,
  message: string,
  detail?: unknown,
) {
  return {
    statusCode,
    code,
    message,
    ...(detail === undefined ? {} : { detail }),
    requestId: res.headers.get('x-request-id'),
  };
}

/** The 400 body of one broken field rule (`invalid(path, message)`). */
export function validationBody(res: { headers: Headers }, path: string, message: string) {
  return errorBody(res, 400, 'validation', `${path.split('/').filter(Boolean).join('.')} ${message}`, [
    { path, message },
  ]);
}

/** The answer is the one error body (C: Errors) with this status and code, whatever its message. */
export function expectError(res: { status: number; body: unknown; headers: Headers }, status: number, code: string) {
  expect({ status: res.status, code: (res.body as { code?: unknown } | null)?.code }).toEqual({ status, code });
  expect(res.body).toMatchObject({ statusCode: status, code, requestId: res.headers.get('x-request-id') });
  expect(typeof (res.body as { message?: unknown }).message).toBe('string');
}

/**
 * Whether a detail's message spells the field its path names (C: Errors: the path names the field,
 * the message says what is wrong with it; the top-level message joins the two, so a message that
 * names its field reads "recurrence.until until and count …"). The field is the path's last segment
 * that is not an array index; one letter (a test's metadata key `a`) is too short to tell. Case counts:
 * `/url` may say "an http URL".
 */
export function spellsItsField(path: string, message: string): boolean {
  const field = path
    .split('/')
    .filter((s) => s !== '' && !/^[0-9]+$/.test(s))
    .at(-1);
  if (field === undefined || field.length < 2) return false;
  const escaped = field.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![A-Za-z0-9_])${escaped}(?![A-Za-z0-9_])`).test(message);
}

/** The details of an error body that break that rule, as `path: message` lines (none: `[]`). */
export function detailsSpellingTheirField(body: unknown): string[] {
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (!Array.isArray(detail)) return [];
  return detail
    .filter(
      (d): d is { path: string; message: string } => typeof d?.path === 'string' && typeof d?.message === 'string',
    )
    .filter((d) => spellsItsField(d.path, d.message))
    .map((d) => `${d.path}: ${d.message}`);
}
