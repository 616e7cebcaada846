/**
 * One sentence per tag of the OpenAPI document. A route's tag is its `detail.tags`, or else the first
 * path segment after `/api/v1` (src/http/openapi.ts), so a new resource needs a line here: the linter
 * test (tests/openapi-lint.test.ts) fails on a tag without a description.
 */
export const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  alerts: 'Rules that watch a variable or a platform condition, open an incident and tell the right people.',
  auth: 'Sign in and out, who is calling, and changing your own password.',
  backups: 'Copies of the database, media, branding and licence: made, verified, downloaded and restored.',
  compositions: "A template playable's media slots and parameters filled in, giving a playable the schedule can use.",
  controlpanels: 'Web interfaces subsystems register, and the panels made available from them to people.',
  events: 'Commands a subsystem can run (a cue, a script), fired by the schedule or by hand.',
  license: 'The signed licence of the appliance: its status, limits and usage.',
  logs: 'The activity log: entries from subsystems and scripts, and what the platform records itself.',
  notifications: 'Messages for the people at the consoles, which they clear or act on.',
  objects: 'The object store: media library and platform files, in buckets.',
  parameters: 'Typed settings a subsystem accepts from the platform.',
  platform: 'Restarting or shutting down the appliance.',
  playables: 'Content a subsystem can play: a timeline, a clip, a show, a media file or a composition.',
  players: 'Screens and media devices inside a container subsystem.',
  playlists: 'Ordered lists of playables and events the schedule plays as one item.',
  presets: 'Named sets of parameter values, applied in one step.',
  realtime: 'The WebSocket that pushes events by topic as they happen.',
  roles: 'Named sets of permissions given to users and tokens.',
  schedule: 'The schedule document and what builds it: calendars and their items, zones, playlists, blocks, runs.',
  scheduledItems: 'The occurrences of the schedule as a bare list.',
  schedules: 'Scheduled item definitions across all calendars.',
  settings: "The platform's own configuration and branding images.",
  subsystem: 'Variables, events and compositions addressed by subsystem and external reference (integrations).',
  subsystems: 'External systems the platform monitors and drives, with their heartbeats and health.',
  system: 'Liveness, version and this API description.',
  tokens: 'API tokens for scripts and integrations.',
  users: 'People who sign in, with their roles and panels.',
  usertemplates: 'Starting points for new users: roles, dashboard and preferences in one choice.',
  variable: 'Setting the last value of a variable by subsystem and external reference (integrations).',
  variables: 'Named values subsystems publish and people or presets set, with history, health and alerts.',
  webhook: 'Outgoing HTTP notifications to other systems, with their delivery log and retries.',
  zones: 'Timelines of the schedule: at most one playable item plays in a zone per target at a time.',
};
