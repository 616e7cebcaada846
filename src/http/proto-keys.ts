/**
 * `__proto__` keys in client JSON are dropped (CONVENTIONS "Requests": unknown fields are ignored).
 * `JSON.parse` makes such a key an ordinary own property, harmless until code copies the object
 * with `Object.assign` or a property-by-property set, as the framework does when it fills a body's
 * defaults: the copy's *prototype* then becomes the client's object, and its fields read as if they
 * had been sent (`PATCH /settings {"__proto__":{"systemName":"x"}}` renamed the system, past every
 * check that looks only at own fields). Applied wherever client JSON is parsed: HTTP bodies
 * (http/body.ts), JSON-RPC lines (rpc/protocol.ts) and WebSocket messages (realtime/ws-protocol.ts).
 *
 * The key can only be there when the text says `__proto__` or escapes a character (`\u005f_proto__`),
 * so other texts (every value write) are not walked; the walk keeps its own stack, not the call stack.
 */
const KEY = '__proto__';

/** `value` (parsed from `text`) without any own `__proto__` key, at any depth; changed in place. */
export function dropProtoKeys<T>(value: T, text: string): T {
  if (!text.includes(KEY) && !text.includes('\\u')) return value;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (item === null || typeof item !== 'object') continue;
    if (Array.isArray(item)) {
      for (const element of item) stack.push(element);
      continue;
    }
    if (Object.hasOwn(item, KEY)) delete (item as Record<string, unknown>)[KEY];
    for (const child of Object.values(item)) stack.push(child);
  }
  return value;
}
