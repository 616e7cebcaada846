/** pino JSON to stdout; journald keeps it. No transports: worker threads do not survive `bun build --compile`. */
import pino from 'pino';
import type { LogLevel } from './config';

export type Logger = pino.Logger;

export function createLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  return pino(
    { level, base: { svc: 'pmsd' }, timestamp: pino.stdTimeFunctions.isoTime },
    destination ?? pino.destination(1),
  );
}

export const silentLogger = (): Logger => pino({ level: 'silent' });
