import { describe, expect, it } from 'bun:test';
import { t } from 'elysia';
import { plainSchema, responsesTo2020 } from './openapi-schema';

describe('plainSchema (TypeBox and Elysia → JSON Schema 2020-12)', () => {
  it('writes a tuple as prefixItems, closed by items: false', () => {
    expect(plainSchema(t.Tuple([t.String(), t.Integer({ minimum: 1 })]))).toEqual({
      type: 'array',
      prefixItems: [{ type: 'string' }, { type: 'integer', minimum: 1 }],
      items: false,
      minItems: 2,
      maxItems: 2,
    });
  });

  it('gives what follows a tuple its additionalItems schema as items, and drops a true one', () => {
    const open = { type: 'array', items: [{ type: 'string' }], additionalItems: { type: 'number' } };
    expect(plainSchema(open)).toEqual({ type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'number' } });
    const any = { type: 'array', items: [{ type: 'string' }], additionalItems: true };
    expect(plainSchema(any)).toEqual({ type: 'array', prefixItems: [{ type: 'string' }] });
  });

  it('keeps a property named error, and reads Elysia’s error message as the description', () => {
    const schema = t.Object({ error: t.Union([t.String(), t.Null()]) }, { error: 'must be a delivery attempt' });
    expect(plainSchema(schema)).toEqual({
      description: 'must be a delivery attempt',
      type: 'object',
      required: ['error'],
      properties: { error: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
    });
  });

  it('unwraps coercion branches and says a repeated union branch once', () => {
    expect(plainSchema(t.Object({ n: t.Integer({ minimum: 0 }) }))?.properties).toEqual({
      n: { type: 'integer', minimum: 0 },
    });
    expect(plainSchema(t.Union([t.Boolean(), t.BooleanString()]))).toEqual({ type: 'boolean' });
    expect(plainSchema(t.Union([t.String(), t.Null(), t.String()]))).toEqual({
      anyOf: [{ type: 'string' }, { type: 'null' }],
    });
  });

  it('leaves data keywords alone: a default or const object that looks like a schema', () => {
    const data = { items: [1, 2], additionalItems: false, error: 'x' };
    expect(plainSchema({ type: 'object', default: data, const: data })).toEqual({
      type: 'object',
      default: data,
      const: data,
    });
  });
});

describe('responsesTo2020 (a route’s own detail.responses)', () => {
  it('rewrites the schemas of content and headers, nothing else', () => {
    const tuple = t.Tuple([t.String()]);
    expect(
      responsesTo2020({
        200: {
          description: 'OK',
          headers: { 'X-Total-Count': { description: 'n', schema: { type: 'integer' } } },
          content: { 'application/json': { schema: tuple }, 'text/csv': { schema: { type: 'string' } } },
        },
        304: { description: 'Not modified' },
      }),
    ).toEqual({
      200: {
        description: 'OK',
        headers: { 'X-Total-Count': { description: 'n', schema: { type: 'integer' } } },
        content: {
          'application/json': {
            schema: { type: 'array', prefixItems: [{ type: 'string' }], items: false, minItems: 1, maxItems: 1 },
          },
          'text/csv': { schema: { type: 'string' } },
        },
      },
      304: { description: 'Not modified' },
    });
  });
});
