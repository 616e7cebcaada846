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
