/**
 * The body reader as the network hands it requests: with a Content-Length (every field client), and
 * chunked without one. A declared length is read whole without making the body's stream, the value
 * door's single largest cost before this was noticed; a chunked body is still counted as it streams.
 */
import { describe, expect, it } from 'bun:test';
import { discardBody, readBodyText, readJsonBody } from './body';
import { AppError } from './errors';

/** `request` with its `body` stream forbidden: asking for it throws. */
function noStream(request: Request): Request {
  Object.defineProperty(request, 'body', {
    get() {
      throw new Error('the body stream was made');
    },
  });
  return request;
}

/** A request with a Content-Length whose body stream must not be made. */
function withLengthOnly(text: string): Request {
  return noStream(
    new Request('http://pms/api/v1/variables/1/value', {
      method: 'POST',
      body: text,
      headers: { 'content-length': String(Buffer.byteLength(text)), 'content-type': 'application/json' },
    }),
  );
}

function chunked(parts: string[]): Request {
  const encoder = new TextEncoder();
  return new Request('http://pms/api/v1/variables/1/value', {
    method: 'POST',
    body: new ReadableStream<Uint8Array>({
      start(controller) {
        for (const part of parts) controller.enqueue(encoder.encode(part));
        controller.close();
      },
    }),
  });
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('the body was accepted');
}

describe('readBodyText', () => {
  it('reads a body with a Content-Length whole, without making its stream', async () => {
    expect(await readBodyText(withLengthOnly('{"value":"ä42"}'), 1024)).toBe('{"value":"ä42"}');
    expect(await readJsonBody(withLengthOnly('{"value":7}'), 1024)).toEqual({ value: 7 });
    expect(await readJsonBody(withLengthOnly(''), 1024)).toEqual({});
  });

  it('refuses a declared length over the limit before reading anything', async () => {
    const err = await refusal(readBodyText(withLengthOnly('x'.repeat(65)), 64));
    expect([err.errorCode, err.status]).toEqual(['payload_too_large', 413]);
  });

  it('reads a chunked body as it streams, and refuses it once it passes the limit', async () => {
    expect(await readBodyText(chunked(['{"val', 'ue":', '"1"}']), 1024)).toBe('{"value":"1"}');
    const err = await refusal(readBodyText(chunked(['x'.repeat(40), 'x'.repeat(40)]), 64));
    expect([err.errorCode, err.status]).toEqual(['payload_too_large', 413]);
  });

  it('reads no body as empty', async () => {
    expect(await readBodyText(new Request('http://pms/api/v1/roles'), 64)).toBe('');
    expect(await readJsonBody(new Request('http://pms/api/v1/roles', { method: 'POST' }), 64)).toEqual({});
  });
});

describe('discardBody', () => {
  it('makes no stream for a request whose framing says it has no body', async () => {
    const heartbeat = (headers: Record<string, string>) =>
      noStream(new Request('http://pms/api/v1/subsystems/media/heartbeat', { method: 'PUT', headers }));
    await discardBody(heartbeat({}));
    await discardBody(heartbeat({ 'content-length': '0' }));
  });

  it('cancels a body that was sent, unread', async () => {
    let cancelled = 0;
    let pulled = 0;
    const request = new Request('http://pms/api/v1/subsystems/media/heartbeat', {
      method: 'PUT',
      headers: { 'transfer-encoding': 'chunked' },
      body: new ReadableStream<Uint8Array>({
        pull(controller) {
          pulled += 1;
          controller.enqueue(new Uint8Array(1024));
        },
        cancel() {
          cancelled += 1;
        },
      }),
    });
    await discardBody(request);
    expect(cancelled).toBe(1);
    expect(pulled).toBeLessThanOrEqual(1);
  });
});
