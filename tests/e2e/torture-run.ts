/**
 * The kill -9 torture, shared by the CI test (a few cycles) and scripts/torture.ts (the full run).
 * Each cycle starts the compiled daemon on the same data directory, reads back over HTTP what the
 * previous cycle had acknowledged, creates the cycle's targets, drives the mixed load and sends
 * SIGKILL at a random moment 50–1500 ms into it; with the daemon dead, the database file is opened
 * read-only for `PRAGMA integrity_check` and every write acknowledged in any cycle so far. A last
 * start reads back the last cycle and stops the daemon with SIGTERM (exit 0 expected).
 */
import { join } from 'node:path';
import { ADMIN_PASSWORD, makeSandbox, removeSandbox, sessionOf, startDaemon } from './daemon';
import { checkFile, checkHttp } from './torture-check';
import {
  type Acked,
  ackedCount,
  clientOf,
  driveLoad,
  emptyAcked,
  mergeAcked,
  must,
  prepareCycle,
  slowReceiver,
} from './torture-load';

export interface TortureOptions {
  cycles: number;
  /** Value-write variables (and concurrent value writers) per cycle. */
  variables?: number;
  /** The kill comes this many ms into the load, uniformly at random. */
  killWindowMs?: [number, number];
  log?: (line: string) => void;
}

export interface TortureFigures {
  cycles: number;
  /** Writes answered 2xx during the loads (the setup writes of each cycle not counted). */
  acknowledged: number;
  valueWrites: number;
  /** Acknowledged writes missing after a kill (file or HTTP), described. */
  lost: string[];
  integrityOk: number;
  /** Cycles whose kill left webhook deliveries pending in the file. */
  cyclesWithPendingDeliveries: number;
  exitCodeOfFinalSigterm: number | null;
  ms: number;
}

/** Flood limits off (a daemon that has none ignores the variables): the load is one caller at full speed. */
const ENV = {
  PMS_INITIAL_ADMIN_PASSWORD: ADMIN_PASSWORD,
  PMS_LOG_LEVEL: 'warn',
  PMS_RATE_LIMIT_REQUESTS: '0',
  PMS_RATE_LIMIT_INGEST: '0',
};

export async function runTorture(options: TortureOptions): Promise<TortureFigures> {
  const started = performance.now();
  const log = options.log ?? (() => {});
  const [killFrom, killTo] = options.killWindowMs ?? [50, 1500];
  const sandbox = makeSandbox();
  // Holds each attempt 3 s and then refuses it: attempts are in flight at every kill, deliveries pending.
  const receiver = slowReceiver(3000);
  const total = emptyAcked();
  const figures: TortureFigures = {
    cycles: 0,
    acknowledged: 0,
    valueWrites: 0,
    lost: [],
    integrityOk: 0,
    cyclesWithPendingDeliveries: 0,
    exitCodeOfFinalSigterm: null,
    ms: 0,
  };
  let previous: Acked | null = null;
  try {
    for (let cycle = 1; cycle <= options.cycles; cycle++) {
      const daemon = await startDaemon(sandbox, ENV);
      const client = clientOf(daemon, await sessionOf(daemon, 'admin', ADMIN_PASSWORD));
      if (previous) figures.lost.push(...(await checkHttp(client, previous)));
      if (cycle === 1) {
        const hook = { displayName: 'torture', url: receiver.url, allowPrivateNetwork: true, events: ['*'] };
        await must(client, 'POST', '/webhook', hook);
      }
      const targets = await prepareCycle(client, cycle, options.variables ?? 8);

      let stopped = false;
      const load = driveLoad(client, targets, () => stopped);
      const killAt = killFrom + Math.floor(Math.random() * (killTo - killFrom + 1));
      await Bun.sleep(killAt);
      // The flag only stops new requests: those in flight are cut by the kill in the same turn.
      stopped = true;
      daemon.proc.kill('SIGKILL');
      const acked = await load;
      await daemon.proc.exited;

      mergeAcked(total, acked);
      const file = checkFile(join(sandbox.dataDir, 'pms.db'), total);
      const count = ackedCount(acked);
      figures.cycles = cycle;
      figures.acknowledged += count;
      for (const values of acked.values.values()) figures.valueWrites += values.length;
      figures.lost.push(...file.lost);
      if (file.integrity === 'ok') figures.integrityOk += 1;
      if (file.pendingDeliveries > 0) figures.cyclesWithPendingDeliveries += 1;
      log(
        `cycle ${cycle}: killed at ${killAt} ms, ${count} writes acknowledged, integrity ${file.integrity}, ` +
          `${file.lost.length} lost, ${file.pendingDeliveries} deliveries pending`,
      );
      previous = acked;
    }
    const daemon = await startDaemon(sandbox, ENV);
    const client = clientOf(daemon, await sessionOf(daemon, 'admin', ADMIN_PASSWORD));
    if (previous) figures.lost.push(...(await checkHttp(client, previous)));
    figures.exitCodeOfFinalSigterm = (await daemon.stop('SIGTERM')).code;
  } finally {
    receiver.stop();
    removeSandbox(sandbox);
  }
  figures.ms = Math.round(performance.now() - started);
  return figures;
}
