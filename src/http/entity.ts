/** The common fields of every entity on the wire (C: Identity). */
import { t } from 'elysia';
import { iso } from '../clock';
import { selfLink } from './links';

export const EntityMeta = {
  _id: t.Integer({ minimum: 1 }),
  _createdAt: t.String({ format: 'date-time' }),
  _updatedAt: t.String({ format: 'date-time' }),
  _links: t.Object({ self: t.String() }, { additionalProperties: true }),
};

export function entityMeta(
  row: { id: number; createdAt: number; updatedAt: number },
  collection: string,
  links: Record<string, string> = {},
) {
  return {
    _id: row.id,
    _createdAt: iso(row.createdAt),
    _updatedAt: iso(row.updatedAt),
    _links: { self: selfLink(collection, row.id), ...links },
  };
}
