/**
 * The closed permission list (C: Authentication) and the built-in roles (§0.3). `admin` is given
 * every permission at read time, so permissions added by later versions reach it without a migration.
 */
export const AREAS = [
  'users',
  'roles',
  'subsystems',
  'variables',
  'events',
  'notifications',
  'alerts',
  'schedule',
  'media',
  'players',
  'assets',
  'backups',
  'settings',
  'logs',
  'license',
  'webhook',
  'parameters',
] as const;

export type Area = (typeof AREAS)[number];

export const PERMISSIONS = [
  ...AREAS.flatMap((a) => [`${a}:read`, `${a}:write`] as const),
  'platform:shutdown',
  'backups:restore',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

const PERMISSION_SET: ReadonlySet<string> = new Set(PERMISSIONS);

export function isPermission(value: string): value is Permission {
  return PERMISSION_SET.has(value);
}

const reads = (areas: readonly Area[]): Permission[] => areas.map((a) => `${a}:read` as Permission);
const writes = (areas: readonly Area[]): Permission[] => areas.map((a) => `${a}:write` as Permission);

const OPERATOR_WRITES: Area[] = [
  'subsystems',
  'variables',
  'events',
  'parameters',
  'notifications',
  'alerts',
  'logs',
  'schedule',
  'media',
  'players',
  'assets',
];

/** What the `integration` role reads; its writes are limited to its own items and decided per route. */
const INTEGRATION_READS: Area[] = [
  'subsystems',
  'variables',
  'events',
  'parameters',
  'schedule',
  'media',
  'players',
  'assets',
  'settings',
];

/**
 * The writes that stand for what the `integration` role may do beyond its listed reads: every route
 * that lets the integration role through also lets these permissions through (§0.3 "Integration role
 * may"). A caller must hold them to give or act on the integration role (requireCovers).
 */
export const INTEGRATION_WRITES: readonly Permission[] = writes([
  'subsystems',
  'variables',
  'events',
  'parameters',
  'notifications',
  'logs',
  'media',
  'players',
  'assets',
]);

export type BuiltInRoleName = 'admin' | 'operator' | 'viewer' | 'integration';

export const BUILT_IN_ROLES: ReadonlyArray<{
  name: BuiltInRoleName;
  displayName: string;
  description: string;
  permissions: Permission[];
}> = [
  { name: 'admin', displayName: 'Administrator', description: 'Everything.', permissions: [...PERMISSIONS] },
  {
    name: 'operator',
    displayName: 'Operator',
    description: 'Reads everything and runs the operational areas.',
    permissions: [...reads(AREAS), ...writes(OPERATOR_WRITES)],
  },
  { name: 'viewer', displayName: 'Viewer', description: 'Reads everything.', permissions: reads(AREAS) },
  {
    name: 'integration',
    displayName: 'Integration',
    description: 'What a subsystem needs: heartbeats and its own variables, events, panels and media.',
    permissions: reads(INTEGRATION_READS),
  },
];
