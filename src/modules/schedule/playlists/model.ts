import { t } from 'elysia';
import { EntityMeta } from '../../../http/entity';
import { Description, DisplayName } from '../../../http/fields';
import type { FieldKinds } from '../../../http/lists';

const Entry = t.Object({
  itemType: t.Union([t.Literal('PLAYABLE'), t.Literal('EVENT')]),
  itemId: t.Integer({ minimum: 1 }),
  durationMs: t.Optional(t.Union([t.Integer({ minimum: 1, maximum: 31 * 86_400_000 }), t.Null()])),
});
const Entries = t.Array(Entry, { minItems: 1, maxItems: 1000 });

/**
 * The exact-match filters of the playlists list (C: Responses), judged on the wire form, which the list
 * builds whole before it pages. Not filters: `entries` (an array).
 */
export const PLAYLIST_FIELD_FILTERS = {
  displayName: 'string',
  description: 'string',
  loop: 'boolean',
  shuffle: 'boolean',
  duration: 'integer',
} as const satisfies FieldKinds;

export const PlaylistModel = {
  dto: t.Object({
    ...EntityMeta,
    displayName: t.String(),
    description: t.String(),
    entries: t.Array(
      t.Object({
        itemType: t.String(),
        itemId: t.Integer(),
        durationMs: t.Union([t.Integer(), t.Null()]),
        displayName: t.String(),
        missing: t.Boolean(),
      }),
    ),
    loop: t.Boolean(),
    shuffle: t.Boolean(),
    duration: t.Integer(),
  }),
  create: t.Object({
    displayName: DisplayName,
    description: t.Optional(Description),
    entries: Entries,
    loop: t.Optional(t.BooleanString()),
    shuffle: t.Optional(t.BooleanString()),
  }),
  update: t.Object({
    displayName: t.Optional(DisplayName),
    description: t.Optional(Description),
    entries: t.Optional(Entries),
    loop: t.Optional(t.BooleanString()),
    shuffle: t.Optional(t.BooleanString()),
  }),
};

export type PlaylistDto = typeof PlaylistModel.dto.static;
export type PlaylistCreate = typeof PlaylistModel.create.static;
export type PlaylistUpdate = typeof PlaylistModel.update.static;
