/** Field and query schemas the schedule's resources share. */
import { t } from 'elysia';

export const Color = t.String({ pattern: '^#[0-9A-Fa-f]{6}$', error: 'must be a colour #RRGGBB' });

/** `?force=true` on deletes (§11.2–11.4). */
export const ForceQuery = t.Object({
  force: t.Optional(t.String({ pattern: '^(true|false)$', error: 'must be true or false' })),
});

/** `/schedule/calendars/{id}/scheduledItems/{itemId}`. */
export const CalendarItemParams = t.Object({
  id: t.String({ minLength: 1, maxLength: 128 }),
  itemId: t.String({ minLength: 1, maxLength: 128 }),
});
