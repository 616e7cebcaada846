/**
 * The venue's schedule: zones with members, calendars (one closed on some dates, one disabled),
 * recurring items, one in the past, one running now, a playlist and a block (both holding a playable
 * deleted later), a detached occurrence; the runner then records runs as time passes.
 */
import type { TestApp } from './app';
import type { Devices } from './venue-devices';
import { ADMIN, at, made, must, need, OPERATOR } from './venue-kit';

export interface Schedule {
  zones: Record<string, number>;
  calendars: Record<string, number>;
  items: Record<string, number>;
  playlists: Record<string, number>;
  blocks: Record<string, number>;
}

const HOUR = 3_600_000;

/** The local date `days` from the fake clock's now (the appliance time zone is UTC by default). */
function date(t: TestApp, days: number): string {
  return at(t, days * 24 * HOUR).slice(0, 10);
}

export async function buildSchedule(t: TestApp, d: Devices): Promise<Schedule> {
  const s: Schedule = { zones: {}, calendars: {}, items: {}, playlists: {}, blocks: {} };
  s.zones.main = 1;
  s.zones.lobby = (
    await made(t, 'POST', '/zones', {
      ...OPERATOR,
      body: { displayName: 'Lobby', members: ['media-1', need(d.subsystems, 'signage')] },
    })
  )._id;
  s.zones.hall = (
    await made(t, 'POST', '/schedule/zones', {
      ...ADMIN,
      body: { displayName: 'Hall', members: [need(d.subsystems, 'show-ctrl')], color: '#3366CC' },
    })
  )._id;
  s.calendars.main = 1;
  s.calendars.holidays = (
    await made(t, 'POST', '/schedule/calendars', {
      ...OPERATOR,
      body: {
        displayName: 'Holidays',
        defaultPriority: 70,
        color: '#AA0000',
        closedDates: [{ from: date(t, 3), to: date(t, 4), label: 'Maintenance' }],
      },
    })
  )._id;
  s.calendars.offSeason = (
    await made(t, 'POST', '/schedule/calendars', { ...OPERATOR, body: { displayName: 'Off season', enabled: false } })
  )._id;

  s.playlists.loop = (
    await made(t, 'POST', '/playlists', {
      ...OPERATOR,
      body: {
        displayName: 'Lobby loop',
        entries: [
          { itemType: 'PLAYABLE', itemId: need(d.playables, 'media-1/intro') },
          { itemType: 'PLAYABLE', itemId: need(d.playables, 'media-1/promo') },
          { itemType: 'EVENT', itemId: need(d.events, 'show-ctrl/go-1') },
          { itemType: 'PLAYABLE', itemId: need(d.playables, 'media-1/ambient'), durationMs: 120_000 },
        ],
      },
    })
  )._id;
  s.playlists.signage = (
    await made(t, 'POST', '/playlists', {
      ...OPERATOR,
      body: {
        displayName: 'Signage',
        shuffle: true,
        entries: [{ itemType: 'PLAYABLE', itemId: need(d.playables, 'signage/menu') }],
      },
    })
  )._id;
  s.blocks.preShow = (
    await made(t, 'POST', '/schedule/blocks', {
      ...OPERATOR,
      body: {
        displayName: 'Pre-show',
        duration: 600_000,
        zoneId: need(s.zones, 'hall'),
        items: [
          { type: 'EVENT', typeId: need(d.events, 'show-ctrl/go-1'), startTimeOffset: 0 },
          { type: 'PLAYABLE', typeId: need(d.playables, 'media-1/promo'), startTimeOffset: 0, endTimeOffset: 30_000 },
          {
            type: 'START_PLAYLIST',
            typeId: need(s.playlists, 'loop'),
            startTimeOffset: 30_000,
            endTimeOffset: 500_000,
          },
          { type: 'STOP_PLAYLIST', typeId: need(s.playlists, 'loop'), startTimeOffset: 500_000 },
        ],
      },
    })
  )._id;
  s.blocks.outer = (
    await made(t, 'POST', '/schedule/blocks', {
      ...OPERATOR,
      body: {
        displayName: 'Evening',
        duration: 1_200_000,
        items: [{ type: 'BLOCK', typeId: need(s.blocks, 'preShow'), startTimeOffset: 60_000, endTimeOffset: 660_000 }],
      },
    })
  )._id;

  const item = async (name: string, body: Record<string, unknown>, path = '/schedules') => {
    s.items[name] = (await made(t, 'POST', path, { ...OPERATOR, body }))._id;
  };
  await item('nightly-go', {
    itemType: 'EVENT',
    itemId: need(d.events, 'show-ctrl/go-2'),
    startTime: at(t, 7 * HOUR),
    recurrence: { freq: 'daily' },
    exclusions: [date(t, 2)],
  });
  await item('past-restart', {
    itemType: 'EVENT',
    itemId: need(d.events, 'media-1/restart'),
    startTime: at(t, -26 * HOUR),
  });
  await item('feature-now', {
    itemType: 'PLAYABLE',
    itemId: need(d.playables, 'media-1/feature'),
    zoneId: need(s.zones, 'lobby'),
    startTime: at(t, -600_000),
    endTime: at(t, 3_000_000),
    priority: 80,
  });
  await item('loop-weekly', {
    itemType: 'PLAYLIST',
    itemId: need(s.playlists, 'loop'),
    zoneId: need(s.zones, 'lobby'),
    startTime: at(t, -1_800_000),
    endTime: at(t, 2 * HOUR),
    recurrence: { freq: 'weekly', byDay: ['MO', 'TH', 'SA'], count: 20 },
  });
  await item(
    'evening-block',
    {
      itemType: 'BLOCK',
      itemId: need(s.blocks, 'outer'),
      startTime: at(t, 300_000),
      recurrence: { freq: 'monthly', byDay: ['-1FR'] },
    },
    `/schedule/calendars/${need(s.calendars, 'holidays')}/scheduledItems`,
  );
  await item('signage-refresh', {
    itemType: 'EVENT',
    itemId: need(d.events, 'signage/refresh'),
    startTime: at(t, 90_000),
    recurrence: { freq: 'daily', interval: 2, until: date(t, 30) },
  });
  await item('signage-menu', {
    itemType: 'PLAYLIST',
    itemId: need(s.playlists, 'signage'),
    zoneId: need(s.zones, 'lobby'),
    startTime: at(t, 4 * HOUR),
    endTime: at(t, 5 * HOUR),
    calendarId: need(s.calendars, 'offSeason'),
  });
  await item('intro-soon', {
    itemType: 'PLAYABLE',
    itemId: need(d.playables, 'media-1/intro'),
    startTime: at(t, 120_000),
    endTime: at(t, 180_000),
    catchUp: false,
  });
  const nightly = need(s.items, 'nightly-go');
  s.items.detached = (
    await made(t, 'POST', `/schedule/calendars/1/scheduledItems/${nightly}/detach`, {
      ...OPERATOR,
      body: { date: date(t, 1), startTime: at(t, 24 * HOUR + 8 * HOUR), description: 'moved an hour' },
    })
  )._id;
  await must(t, 'PATCH', `/schedules/${need(s.items, 'intro-soon')}`, { ...OPERATOR, body: { priority: 90 } }, 200);
  return s;
}
