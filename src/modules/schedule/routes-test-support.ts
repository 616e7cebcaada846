/** Shared set-up for the schedule resource HTTP tests: an app, a subsystem with an event and playables. */
import { addSubsystem, makeTestApp, recordEvents } from '../../../tests/helpers/app';

export { errorBody, validationBody as validation } from '../../../tests/helpers/errors';

/** An app on 2026-01-15 12:00 UTC with subsystem `media`, event `cue-1`, playables `show-1` and a template. */
export async function scheduleApp(
  start = '2026-01-15T12:00:00.000Z',
  options: Omit<NonNullable<Parameters<typeof makeTestApp>[0]>, 'start'> = {},
) {
  const t = makeTestApp({ ...options, start });
  const media = await addSubsystem(t, 'media');
  const event = (
    await t.call('POST', '/events', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'cue-1', command: 'GO 1' },
    })
  ).body;
  const register = async (body: Record<string, unknown>) =>
    (await t.call('POST', '/playables', { as: 'admin', body: { subsystemExternalId: 'media', ...body } })).body;
  const playable = await register({ externalRef: 'show-1', displayName: 'Show', duration: 60000 });
  const template = await register({ externalRef: 'tpl', type: 'template' });
  const events = recordEvents(t);
  /** Creates a scheduled item at `/schedules` as admin and returns the answer. */
  const schedule = (body: Record<string, unknown>) => t.call('POST', '/schedules', { as: 'admin', body });
  return { ...t, media, event, playable, template, events, register, schedule };
}

type ScheduleApp = Awaited<ReturnType<typeof scheduleApp>>;

/** Daily 13:00–14:00 (the appliance's local time) from 15 January, three times. */
export const dailyShow = (t: ScheduleApp) =>
  t.schedule({
    itemType: 'PLAYABLE',
    itemId: t.playable._id,
    startTimeLocal: '2026-01-15T13:00:00',
    endTimeLocal: '2026-01-15T14:00:00',
    recurrence: { freq: 'daily', count: 3 },
  });
