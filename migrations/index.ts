/**
 * Every migration, in order, embedded in the executable as text. drizzle-kit writes the SQL files;
 * add one line here for each new file (a test fails when a file is missing from this list).
 */
import m0000 from './0000_foundation.sql' with { type: 'text' };
import m0001 from './0001_integration_core.sql' with { type: 'text' };
import m0002 from './0002_realtime.sql' with { type: 'text' };
import m0003 from './0003_webhook_outbox.sql' with { type: 'text' };
import m0004 from './0004_media.sql' with { type: 'text' };
import m0005 from './0005_players.sql' with { type: 'text' };
import m0006 from './0006_playback.sql' with { type: 'text' };
import m0007 from './0007_operations.sql' with { type: 'text' };
import m0008 from './0008_assets.sql' with { type: 'text' };
import m0009 from './0009_asset_health.sql' with { type: 'text' };
import m0010 from './0010_asset_counts.sql' with { type: 'text' };
import m0011 from './0011_history_recent.sql' with { type: 'text' };
import m0012 from './0012_schedule_fold.sql' with { type: 'text' };
import m0013 from './0013_alert_variable_ref.sql' with { type: 'text' };

export const migrations: ReadonlyArray<{ tag: string; sql: string }> = [
  { tag: '0000_foundation', sql: m0000 },
  { tag: '0001_integration_core', sql: m0001 },
  { tag: '0002_realtime', sql: m0002 },
  { tag: '0003_webhook_outbox', sql: m0003 },
  { tag: '0004_media', sql: m0004 },
  { tag: '0005_players', sql: m0005 },
  { tag: '0006_playback', sql: m0006 },
  { tag: '0007_operations', sql: m0007 },
  { tag: '0008_assets', sql: m0008 },
  { tag: '0009_asset_health', sql: m0009 },
  { tag: '0010_asset_counts', sql: m0010 },
  { tag: '0011_history_recent', sql: m0011 },
  { tag: '0012_schedule_fold', sql: m0012 },
  { tag: '0013_alert_variable_ref', sql: m0013 },
];
