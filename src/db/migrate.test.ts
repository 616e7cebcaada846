import { describe, expect, it } from 'bun:test';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrations } from '../../migrations';
import { openSqlite } from './client';
import { migrate, pendingMigrations } from './migrate';

const migrationsDir = join(import.meta.dir, '../../migrations');

describe('migrations', () => {
  it('embeds every SQL file drizzle-kit wrote, in order', () => {
    const files = readdirSync(migrationsDir)
      .filter((f) => f.endsWith('.sql'))
      .sort()
      .map((f) => f.replace(/\.sql$/, ''));
    expect(migrations.map((m) => m.tag)).toEqual(files);
  });

  it('applies everything to a new database, once, without a backup', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'pms-mig-')), 'pms.db');
    const db = openSqlite(path);
    const first = migrate(db, path, 1);
    expect(first.applied).toEqual(migrations.map((m) => m.tag));
    expect(first.backupPath).toBeNull();
    expect(migrate(db, path, 2).applied).toEqual([]);
    expect(db.query<{ n: number }, []>("SELECT count(*) AS n FROM sqlite_master WHERE name = 'users'").get()?.n).toBe(
      1,
    );
  });

  it('keeps a copy of a database holding data before migrating it', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'pms-mig-')), 'pms.db');
    const db = openSqlite(path);
    migrate(db, path, 1);
    db.run("INSERT INTO settings (key, value, updated_at) VALUES ('marker', '1', 1)");
    const next = [...migrations, { tag: '9999_test', sql: 'CREATE TABLE later_table (id INTEGER PRIMARY KEY);' }];
    expect(pendingMigrations(db, next).map((m) => m.tag)).toEqual(['9999_test']);
    const result = migrate(db, path, 2, next);
    expect(result.applied).toEqual(['9999_test']);
    expect(result.backupPath).toBe(`${path}.pre-9999_test.bak`);
    expect(existsSync(`${path}.pre-9999_test.bak`)).toBe(true);
    const copy = openSqlite(`${path}.pre-9999_test.bak`);
    expect(copy.query<{ value: string }, []>("SELECT value FROM settings WHERE key = 'marker'").get()?.value).toBe('1');
    expect(
      copy.query<{ n: number }, []>("SELECT count(*) AS n FROM sqlite_master WHERE name = 'later_table'").get()?.n,
    ).toBe(0);
  });

  it('rolls a failing migration back whole', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'pms-mig-')), 'pms.db');
    const db = openSqlite(path);
    migrate(db, path, 1);
    const broken = [
      ...migrations,
      { tag: '9999_broken', sql: 'CREATE TABLE half (id INTEGER);\n--> statement-breakpoint\nTHIS IS NOT SQL;' },
    ];
    expect(() => migrate(db, path, 2, broken)).toThrow();
    expect(db.query<{ n: number }, []>("SELECT count(*) AS n FROM sqlite_master WHERE name = 'half'").get()?.n).toBe(0);
    expect(pendingMigrations(db, broken).map((m) => m.tag)).toEqual(['9999_broken']);
  });

  it('0013 fills the variable pair of existing rules whose variable still exists', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'pms-mig-')), 'pms.db');
    const db = openSqlite(path);
    const before = migrations.filter((m) => m.tag < '0013_alert_variable_ref');
    migrate(db, path, 1, before);
    db.run(
      "INSERT INTO subsystems (id, external_id, display_name, health_check, metadata, created_at, updated_at) VALUES (1, 'media', 'Media', '{}', '{}', 1, 1)",
    );
    db.run(
      "INSERT INTO variables (id, subsystem_id, external_ref, display_name, value_mapping, tags, health_rules, composite_definition, created_at, updated_at) VALUES (5, 1, 'temp', 'Temp', '{}', '[]', '[]', '[]', 1, 1)",
    );
    const rule = (id: number, variableId: number | null, type = 'variable') =>
      db.run(
        `INSERT INTO alert_rules (id, display_name, type, variable_id, subsystem_id, destinations, created_at, updated_at) VALUES (${id}, 'r', '${type}', ${variableId}, 1, '[]', 1, 1)`,
      );
    rule(1, 5);
    rule(2, 99);
    rule(3, null, 'system');
    expect(migrate(db, path, 2).applied).toEqual(['0013_alert_variable_ref']);
    const pairs = db
      .query<{ id: number; sx: string | null; ref: string | null }, []>(
        'SELECT id, variable_subsystem_external_id AS sx, variable_external_ref AS ref FROM alert_rules ORDER BY id',
      )
      .all();
    expect(pairs).toEqual([
      { id: 1, sx: 'media', ref: 'temp' },
      { id: 2, sx: null, ref: null },
      { id: 3, sx: null, ref: null },
    ]);
  });
});
