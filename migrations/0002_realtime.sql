CREATE TABLE `alert_incidents` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`alert_id` integer NOT NULL,
	`source_type` text NOT NULL,
	`source_id` integer NOT NULL,
	`source_external_id` text,
	`source_display_name` text,
	`state` text DEFAULT 'open' NOT NULL,
	`fired_at` integer NOT NULL,
	`closed_at` integer,
	`closed_reason` text,
	`acknowledged_at` integer,
	`acknowledged_by` text,
	`last_value` text,
	`match_count` integer DEFAULT 1 NOT NULL,
	`notified` integer DEFAULT false NOT NULL,
	`last_notified_at` integer,
	`locked` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `alert_incidents_rule_source` ON `alert_incidents` (`alert_id`,`source_id`,`state`);--> statement-breakpoint
CREATE INDEX `alert_incidents_state` ON `alert_incidents` (`state`,`alert_id`);--> statement-breakpoint
CREATE INDEX `alert_incidents_fired` ON `alert_incidents` (`fired_at`);--> statement-breakpoint
CREATE INDEX `alert_incidents_closed` ON `alert_incidents` (`closed_at`);--> statement-breakpoint
CREATE TABLE `alert_rules` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`display_name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`type` text DEFAULT 'variable' NOT NULL,
	`system_kind` text,
	`variable_id` integer,
	`subsystem_id` integer,
	`operator` text,
	`value` text,
	`delay_seconds` integer DEFAULT 0 NOT NULL,
	`message` text,
	`criticality` text DEFAULT 'warning' NOT NULL,
	`life_cycle` text DEFAULT 'once' NOT NULL,
	`repeat_interval_seconds` integer DEFAULT 900 NOT NULL,
	`lock` integer DEFAULT false NOT NULL,
	`recovery` integer DEFAULT true NOT NULL,
	`log` integer DEFAULT true NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`inactive_reason` text,
	`destinations` text NOT NULL,
	`snoozed_until` integer,
	`pending_since` integer,
	`last_fired_at` integer,
	`last_recovered_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `alert_rules_system_kind` ON `alert_rules` (`system_kind`);--> statement-breakpoint
CREATE INDEX `alert_rules_variable` ON `alert_rules` (`variable_id`);--> statement-breakpoint
CREATE INDEX `alert_rules_subsystem` ON `alert_rules` (`subsystem_id`);--> statement-breakpoint
CREATE TABLE `schedule_blocks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`display_name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`duration` integer NOT NULL,
	`zone_id` integer DEFAULT 1 NOT NULL,
	`items` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `schedule_calendars` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`display_name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`default_priority` integer DEFAULT 50 NOT NULL,
	`color` text NOT NULL,
	`closed_dates` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `schedule_calendars_displayName_unique` ON `schedule_calendars` (`display_name`);--> statement-breakpoint
CREATE TABLE `scheduled_items` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`calendar_id` integer NOT NULL,
	`item_type` text NOT NULL,
	`item_id` integer NOT NULL,
	`zone_id` integer DEFAULT 1 NOT NULL,
	`display_name` text,
	`description` text,
	`start_local` text NOT NULL,
	`end_local` text,
	`recurrence` text,
	`exclusions` text NOT NULL,
	`priority` integer NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`catch_up` integer DEFAULT true NOT NULL,
	`target_subsystem_external_id` text,
	`target_external_ref` text,
	`target_missing` integer DEFAULT false NOT NULL,
	`parent_id` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`calendar_id`) REFERENCES `schedule_calendars`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `scheduled_items_calendar` ON `scheduled_items` (`calendar_id`);--> statement-breakpoint
CREATE INDEX `scheduled_items_target` ON `scheduled_items` (`item_type`,`item_id`);--> statement-breakpoint
CREATE TABLE `schedule_playlists` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`display_name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`entries` text NOT NULL,
	`loop` integer DEFAULT true NOT NULL,
	`shuffle` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `schedule_playlists_displayName_unique` ON `schedule_playlists` (`display_name`);--> statement-breakpoint
CREATE TABLE `schedule_runner_state` (
	`id` integer PRIMARY KEY NOT NULL,
	`planned_through` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `schedule_runs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`scheduled_item_id` integer NOT NULL,
	`entry_id` text NOT NULL,
	`item_type` text NOT NULL,
	`item_id` integer NOT NULL,
	`subsystem_external_id` text NOT NULL,
	`zone_id` integer NOT NULL,
	`scheduled_start` integer NOT NULL,
	`actual_start` integer,
	`status` text NOT NULL,
	`delivered_to` text NOT NULL,
	`reason` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `schedule_runs_start` ON `schedule_runs` (`scheduled_start`);--> statement-breakpoint
CREATE INDEX `schedule_runs_item` ON `schedule_runs` (`scheduled_item_id`,`scheduled_start`);--> statement-breakpoint
CREATE TABLE `schedule_zones` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`display_name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`members` text NOT NULL,
	`color` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `schedule_zones_displayName_unique` ON `schedule_zones` (`display_name`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`webhook_id` integer NOT NULL,
	`event_id` text NOT NULL,
	`event_type` text NOT NULL,
	`status` text NOT NULL,
	`attempts` text NOT NULL,
	`round_attempts` integer DEFAULT 0 NOT NULL,
	`response_body_excerpt` text,
	`next_attempt_at` integer,
	`payload` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`webhook_id`) REFERENCES `webhooks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due` ON `webhook_deliveries` (`webhook_id`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_created` ON `webhook_deliveries` (`created_at`);--> statement-breakpoint
CREATE TABLE `webhooks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`display_name` text NOT NULL,
	`url` text NOT NULL,
	`events` text NOT NULL,
	`subsystem_ids` text NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`secret` text NOT NULL,
	`previous_secret` text,
	`previous_secret_expires_at` integer,
	`headers` text NOT NULL,
	`timeout_seconds` integer DEFAULT 10 NOT NULL,
	`allow_private_network` integer DEFAULT false NOT NULL,
	`state` text DEFAULT 'active' NOT NULL,
	`disabled_reason` text,
	`consecutive_failures` integer DEFAULT 0 NOT NULL,
	`failing_since` integer,
	`last_delivery_at` integer,
	`last_success_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
