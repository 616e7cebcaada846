/** Status helpers for the few answers that are not a plain 200 (C: Responses). */
interface SetContext {
  status?: number | string;
  headers: Record<string, string | number>;
}

/** 201 with a `Location` header naming the new entity. */
export function created<T extends { _links: { self: string } }>(set: SetContext, entity: T): T {
  set.status = 201;
  set.headers.location = entity._links.self;
  return entity;
}

/** 201 when the upsert created, 200 when it updated. */
export function upserted<T extends { _links: { self: string } }>(
  set: SetContext,
  result: { entity: T; created: boolean },
): T {
  return result.created ? created(set, result.entity) : result.entity;
}

/** 204 with no body. */
export function noContent(set: SetContext): void {
  set.status = 204;
}
