/** The timetable and retention (§17 rule 6), on the fake clock, in more than one time zone. */
import { describe, expect, it } from 'bun:test';
import type { TestApp } from '../../../tests/helpers/app';
import { putSettingGroup, putTimezone, type SettingGroups } from '../../core/settings';
import { applyRetention } from './retention';
import { backupTestApp, idle, madeBackup } from './test-support';
import { lastSlot, runTimetable } from './timetable';

const ALL = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function setBackups(t: TestApp, value: Partial<SettingGroups['backups']>) {
  putSettingGroup(t.deps, 'backups', value);
}

const scheduled = async (t: TestApp) =>
  (await t.call('GET', '/backups', { as: 'admin', query: { type: 'scheduled' } })).body as {
    _id: number;
    status: string;
    _createdAt: string;
  }[];

describe('lastSlot (local time, §11.6 rule 2)', () => {
  it('is the newest slot at or before now, on the listed days', () => {
    const t = { enabled: true, time: '03:30', days: ALL };
    expect(iso(lastSlot(t, 'UTC', Date.parse('2026-01-15T12:00:00Z')))).toBe('2026-01-15T03:30:00.000Z');
    expect(iso(lastSlot(t, 'UTC', Date.parse('2026-01-15T03:29:59Z')))).toBe('2026-01-14T03:30:00.000Z');
    expect(iso(lastSlot(t, 'America/New_York', Date.parse('2026-01-15T12:00:00Z')))).toBe('2026-01-15T08:30:00.000Z');
    // 2026-01-15 is a Thursday: only Mondays → Monday the 12th.
    expect(iso(lastSlot({ ...t, days: ['mon'] }, 'UTC', Date.parse('2026-01-15T12:00:00Z')))).toBe(
      '2026-01-12T03:30:00.000Z',
    );
    expect(lastSlot({ ...t, days: [] }, 'UTC', Date.parse('2026-01-15T12:00:00Z'))).toBeNull();
  });

  it('a 02:30 slot on a spring-forward night runs at 03:00; on a fall-back night at its first 02:30', () => {
    const t = { enabled: true, time: '02:30', days: ALL };
    // Europe/Berlin: 2026-03-29 02:00 → 03:00; 2026-10-25 03:00 → 02:00.
    expect(iso(lastSlot(t, 'Europe/Berlin', Date.parse('2026-03-29T06:00:00Z')))).toBe('2026-03-29T01:00:00.000Z');
    expect(iso(lastSlot(t, 'Europe/Berlin', Date.parse('2026-10-25T06:00:00Z')))).toBe('2026-10-25T00:30:00.000Z');
  });
});

describe('runTimetable', () => {
  it('runs each slot once, at its time; the first start runs no slot of the past', async () => {
    const t = backupTestApp({ start: '2026-01-15T12:00:00.000Z' });
    expect(runTimetable(t.deps)).toBe('none');
    t.clock.setWall('2026-01-16T03:29:00.000Z');
    expect(runTimetable(t.deps)).toBe('none');
    t.clock.setWall('2026-01-16T03:30:00.000Z');
    expect(runTimetable(t.deps)).toBe('started');
    await idle(t);
    t.clock.setWall('2026-01-16T03:31:00.000Z');
    expect(runTimetable(t.deps)).toBe('none');
    const list = await scheduled(t);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ status: 'complete', _createdAt: '2026-01-16T03:30:00.000Z' });
  });

  it('a fall-back night runs its repeated 02:30 once', async () => {
    const t = backupTestApp({ start: '2026-10-24T12:00:00.000Z' });
    putTimezone(t.deps, 'Europe/Berlin');
    setBackups(t, { schedule: { enabled: true, time: '02:30', days: ALL } });
    runTimetable(t.deps);
    t.clock.setWall('2026-10-25T00:30:00.000Z');
    expect(runTimetable(t.deps)).toBe('started');
    await idle(t);
    // The second 02:30 local.
    t.clock.setWall('2026-10-25T01:30:00.000Z');
    expect(runTimetable(t.deps)).toBe('none');
    expect(await scheduled(t)).toHaveLength(1);
  });

  it('a run missed while the daemon was down runs once at the next start', async () => {
    const t = backupTestApp({ start: '2026-01-15T12:00:00.000Z' });
    runTimetable(t.deps);
    // Down from the 15th until the 18th at noon: the slots of the 16th, 17th and 18th were missed.
    t.clock.setWall('2026-01-18T12:00:00.000Z');
    expect(runTimetable(t.deps)).toBe('started');
    await idle(t);
    expect(runTimetable(t.deps)).toBe('none');
    expect(await scheduled(t)).toHaveLength(1);
  });

  it('waits while another job runs, and does nothing while disabled', async () => {
    const t = backupTestApp({ start: '2026-01-15T12:00:00.000Z' });
    runTimetable(t.deps);
    t.clock.setWall('2026-01-16T03:30:00.000Z');
    await t.call('POST', '/backups/createBackup', { as: 'admin', body: {} });
    expect(runTimetable(t.deps)).toBe('busy');
    await idle(t);
    expect(runTimetable(t.deps)).toBe('started');
    await idle(t);
    setBackups(t, { schedule: { enabled: false, time: '03:30', days: ALL } });
    t.clock.setWall('2026-01-17T03:30:00.000Z');
    expect(runTimetable(t.deps)).toBe('none');
    // Enabled again later the same day, the morning's slot is not run after the fact.
    setBackups(t, { schedule: { enabled: true, time: '03:30', days: ALL } });
    t.clock.setWall('2026-01-17T09:00:00.000Z');
    expect(runTimetable(t.deps)).toBe('none');
  });

  it('a slot without room leaves a failed scheduled record and raises backup-failed', async () => {
    const t = backupTestApp({ start: '2026-01-15T12:00:00.000Z' });
    runTimetable(t.deps);
    t.deps.objects.freeBytes = () => 10;
    t.clock.setWall('2026-01-16T03:30:00.000Z');
    expect(runTimetable(t.deps)).toBe('failed');
    expect((await scheduled(t))[0]).toMatchObject({ status: 'failed' });
    const incidents = await t.call('GET', '/alerts/history', { as: 'admin', query: { state: 'open' } });
    expect(incidents.body.map((i: { source: { type: string } }) => i.source.type)).toEqual(['backup']);
    expect(runTimetable(t.deps)).toBe('none');
  });
});

describe('the timetable while the wall clock steps (one scheduled backup per slot)', () => {
  const days = async (t: TestApp) => (await scheduled(t)).map((b) => b._createdAt.slice(0, 16)).sort();

  it('a clock ahead at boot, then stepped back by NTP: no later slot is skipped, none runs twice', async () => {
    const t = backupTestApp({ start: '2026-01-15T12:00:00.000Z' });
    runTimetable(t.deps);
    t.clock.setWall('2026-01-16T03:30:00.000Z');
    expect(runTimetable(t.deps)).toBe('started');
    await idle(t);
    // A power cut; the appliance comes up at noon on the 16th with its clock two days ahead. The slot
    // of the 18th looks missed and runs at once.
    t.clock.setWall('2026-01-18T12:00:00.000Z');
    expect(runTimetable(t.deps)).toBe('started');
    await idle(t);
    // NTP steps the clock back to the real time.
    t.clock.setWall('2026-01-16T12:01:00.000Z');
    expect(runTimetable(t.deps)).toBe('none');
    t.clock.setWall('2026-01-17T03:30:00.000Z');
    expect(runTimetable(t.deps)).toBe('started');
    await idle(t);
    // The 18th's slot was made (early): not made again.
    t.clock.setWall('2026-01-18T03:30:00.000Z');
    expect(runTimetable(t.deps)).toBe('none');
    t.clock.setWall('2026-01-19T03:30:00.000Z');
    expect(runTimetable(t.deps)).toBe('started');
    await idle(t);
    expect(await days(t)).toEqual(['2026-01-16T03:30', '2026-01-17T03:30', '2026-01-18T12:00', '2026-01-19T03:30']);
  });

  it('stepped back over a slot it ran, while the timetable was switched off and on: not run twice', async () => {
    const t = backupTestApp({ start: '2026-01-15T12:00:00.000Z' });
    runTimetable(t.deps);
    t.clock.setWall('2026-01-16T03:30:00.000Z');
    expect(runTimetable(t.deps)).toBe('started');
    await idle(t);
    t.clock.setWall('2026-01-16T01:30:00.000Z');
    setBackups(t, { schedule: { enabled: false, time: '03:30', days: ALL } });
    expect(runTimetable(t.deps)).toBe('none');
    setBackups(t, { schedule: { enabled: true, time: '03:30', days: ALL } });
    t.clock.setWall('2026-01-16T03:30:00.000Z');
    expect(runTimetable(t.deps)).toBe('none');
    expect(await days(t)).toEqual(['2026-01-16T03:30']);
  });

  it('a start that reads an older stored slot (data restored from before the slot) does not make it again', async () => {
    const t = backupTestApp({ start: '2026-01-15T12:00:00.000Z' });
    runTimetable(t.deps);
    t.clock.setWall('2026-01-16T03:30:00.000Z');
    expect(runTimetable(t.deps)).toBe('started');
    await idle(t);
    // The restored database stored the slot of the 15th; the rescan listed the 16th's archive again.
    t.deps.sqlite.run('UPDATE backup_timetable SET last_slot = ?', [Date.parse('2026-01-15T03:30:00.000Z')]);
    t.clock.setWall('2026-01-16T09:00:00.000Z');
    expect(runTimetable(t.deps)).toBe('none');
    expect(await days(t)).toEqual(['2026-01-16T03:30']);
  });

  it('a clock behind at boot, then stepped ahead by NTP: the slot missed meanwhile runs once', async () => {
    const t = backupTestApp({ start: '2026-01-15T12:00:00.000Z' });
    runTimetable(t.deps);
    t.clock.setWall('2026-01-16T03:30:00.000Z');
    expect(runTimetable(t.deps)).toBe('started');
    await idle(t);
    // Down from the 16th until noon on the 17th; the clock comes up two days behind.
    t.clock.setWall('2026-01-15T12:00:00.000Z');
    expect(runTimetable(t.deps)).toBe('none');
    // Before NTP, the clock passes the 16th's 03:30 again: that slot was made.
    t.clock.setWall('2026-01-16T03:30:00.000Z');
    expect(runTimetable(t.deps)).toBe('none');
    t.clock.setWall('2026-01-17T12:00:00.000Z');
    expect(runTimetable(t.deps)).toBe('started');
    await idle(t);
    expect(runTimetable(t.deps)).toBe('none');
    expect(await days(t)).toEqual(['2026-01-16T03:30', '2026-01-17T12:00']);
  });
});

describe('retention', () => {
  it('keeps the newest keepScheduled scheduled backups; keep, manual and uploaded stay', async () => {
    const t = backupTestApp({ start: '2026-01-15T12:00:00.000Z' });
    setBackups(t, { keepScheduled: 3 });
    runTimetable(t.deps);
    const manual = await madeBackup(t);
    const days: number[] = [];
    for (let day = 16; day <= 21; day++) {
      t.clock.setWall(`2026-01-${day}T03:30:00.000Z`);
      expect(runTimetable(t.deps)).toBe('started');
      await idle(t);
      const newest = (await scheduled(t))[0];
      if (newest) days.push(newest._id);
      if (day === 16) await t.call('PATCH', `/backups/${newest?._id}`, { as: 'admin', body: { keep: true } });
    }
    const left = await scheduled(t);
    expect(left.map((b) => b._createdAt)).toEqual([
      '2026-01-21T03:30:00.000Z',
      '2026-01-20T03:30:00.000Z',
      '2026-01-19T03:30:00.000Z',
      '2026-01-16T03:30:00.000Z',
    ]);
    expect((await t.call('GET', `/backups/${manual._id}`, { as: 'admin' })).status).toBe(200);
  });

  it('keeps the backups made last, not the ones stamped latest: a backup made while the clock was behind is new', async () => {
    const t = backupTestApp({ start: '2026-01-15T12:00:00.000Z' });
    setBackups(t, { keepScheduled: 2 });
    runTimetable(t.deps);
    /** Runs the slot at `at`; the `_id` of the backup it made. */
    const slot = async (at: string): Promise<number> => {
      t.clock.setWall(at);
      expect(runTimetable(t.deps)).toBe('started');
      await idle(t);
      return t.deps.sqlite.query<{ id: number }, []>('SELECT max(id) AS id FROM backups').get()?.id ?? 0;
    };
    await slot('2026-01-16T03:30:00.000Z');
    const second = await slot('2026-01-17T03:30:00.000Z');
    // The RTC lost a week (a power cut): the next slot is made while the clock says the 10th ...
    t.clock.setWall('2026-01-10T03:00:00.000Z');
    expect(runTimetable(t.deps)).toBe('none');
    const behind = await slot('2026-01-10T03:30:00.000Z');
    // ... and is the newest backup there is: the 16th's goes, not it.
    expect((await scheduled(t)).map((b) => b._id)).toEqual([second, behind]);
    // NTP steps the clock back to the truth; the next slot leaves the two made last.
    const last = await slot('2026-01-18T03:30:00.000Z');
    const left = await scheduled(t);
    expect(left.map((b) => b._id)).toEqual([last, behind]);
    expect(left.map((b) => b._createdAt)).toEqual(['2026-01-18T03:30:00.000Z', '2026-01-10T03:30:00.000Z']);
    expect(applyRetention(t.deps)).toBe(0);
  });

  it('a failed scheduled record goes once the backups kept were all made after it, whatever their stamps', async () => {
    const t = backupTestApp({ start: '2026-01-15T12:00:00.000Z' });
    setBackups(t, { keepScheduled: 1 });
    runTimetable(t.deps);
    t.clock.setWall('2026-01-16T03:30:00.000Z');
    expect(runTimetable(t.deps)).toBe('started');
    await idle(t);
    t.deps.sqlite.run(`UPDATE backups SET status = 'failed', is_valid = 0`);
    // Made after the failure, while the clock was behind: it is the newer one.
    t.clock.setWall('2026-01-09T03:00:00.000Z');
    expect(runTimetable(t.deps)).toBe('none');
    t.clock.setWall('2026-01-09T03:30:00.000Z');
    expect(runTimetable(t.deps)).toBe('started');
    await idle(t);
    const left = await scheduled(t);
    expect(left.map((b) => [b.status, b._createdAt])).toEqual([['complete', '2026-01-09T03:30:00.000Z']]);
  });

  it('removes pre-restore backups after 30 days, but never the only valid backup', async () => {
    const t = backupTestApp({ start: '2026-01-15T12:00:00.000Z' });
    const a = await madeBackup(t);
    const b = await madeBackup(t);
    t.deps.sqlite.run(`UPDATE backups SET type = 'pre-restore'`);
    t.clock.advance(31 * 24 * 3600_000);
    expect(applyRetention(t.deps)).toBe(1);
    const left = (await t.call('GET', '/backups', { as: 'admin' })).body.map((x: { _id: number }) => x._id);
    expect(left).toEqual([b._id]);
    expect(applyRetention(t.deps)).toBe(0);
    void a;
  });
});
