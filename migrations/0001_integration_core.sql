CREATE TABLE `events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`subsystem_id` integer NOT NULL,
	`external_ref` text NOT NULL,
	`command` text NOT NULL,
	`display_name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`available_in_subsystem` integer DEFAULT true NOT NULL,
	`event_player` integer DEFAULT false NOT NULL,
	`metadata` text NOT NULL,
	`last_triggered_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`subsystem_id`) REFERENCES `subsystems`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `events_subsystem_ref` ON `events` (`subsystem_id`,`external_ref`);--> statement-breakpoint
CREATE TABLE `log_presets` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer,
	`owner` text NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`tags` text NOT NULL,
	`start_date` integer,
	`end_date` integer,
	`filters` text,
	`current_search` text DEFAULT '' NOT NULL,
	`search_options` text,
	`basic_filter` text,
	`is_global` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `log_presets_owner` ON `log_presets` (`owner`);--> statement-breakpoint
CREATE TABLE `log_scenario_runs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`time` integer NOT NULL,
	`origin` text NOT NULL,
	`action` text NOT NULL,
	`text` text DEFAULT '' NOT NULL,
	`display_name` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `log_scenario_runs_time` ON `log_scenario_runs` (`time`);--> statement-breakpoint
CREATE TABLE `log_scenarios` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`origin` text NOT NULL,
	`action` text NOT NULL,
	`display_name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`log` integer DEFAULT true NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `log_scenarios_origin_action` ON `log_scenarios` (`origin`,`action`);--> statement-breakpoint
CREATE TABLE `notifications` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`key` text,
	`title` text NOT NULL,
	`message` text DEFAULT '' NOT NULL,
	`severity` text DEFAULT 'info' NOT NULL,
	`state` text DEFAULT 'shown' NOT NULL,
	`source_type` text NOT NULL,
	`source_id` integer,
	`source_external_id` text,
	`subsystem_id` integer,
	`role_ids` text NOT NULL,
	`actions` text NOT NULL,
	`expires_at` integer,
	`count` integer DEFAULT 1 NOT NULL,
	`first_shown_at` integer NOT NULL,
	`last_shown_at` integer NOT NULL,
	`cleared_at` integer,
	`cleared_by` text,
	`last_action` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`subsystem_id`) REFERENCES `subsystems`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `notifications_key` ON `notifications` (`key`);--> statement-breakpoint
CREATE INDEX `notifications_state_shown` ON `notifications` (`state`,`last_shown_at`);--> statement-breakpoint
CREATE INDEX `notifications_state_cleared` ON `notifications` (`state`,`cleared_at`);--> statement-breakpoint
CREATE INDEX `notifications_expires` ON `notifications` (`expires_at`);--> statement-breakpoint
CREATE TABLE `parameters` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`subsystem_id` integer NOT NULL,
	`external_ref` text NOT NULL,
	`display_name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`type` text DEFAULT 'string' NOT NULL,
	`value` text,
	`default_value` text,
	`min` real,
	`max` real,
	`step` real,
	`options` text NOT NULL,
	`unit` text,
	`playable_id` integer,
	`value_updated_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`subsystem_id`) REFERENCES `subsystems`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`playable_id`) REFERENCES `playables`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `parameters_subsystem_ref` ON `parameters` (`subsystem_id`,`external_ref`);--> statement-breakpoint
CREATE INDEX `parameters_playable` ON `parameters` (`playable_id`);--> statement-breakpoint
CREATE TABLE `playables` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`subsystem_id` integer NOT NULL,
	`external_ref` text,
	`display_name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`command` text DEFAULT '' NOT NULL,
	`group_name` text DEFAULT '' NOT NULL,
	`duration` integer DEFAULT 0 NOT NULL,
	`duration_type` text DEFAULT 'static' NOT NULL,
	`type` text DEFAULT 'standard' NOT NULL,
	`objects` text NOT NULL,
	`thumb_id` integer,
	`template_path` text,
	`composition_id` integer,
	`active` integer DEFAULT true NOT NULL,
	`available_in_subsystem` integer DEFAULT true NOT NULL,
	`force_cached` integer DEFAULT false NOT NULL,
	`is_cached` integer DEFAULT false NOT NULL,
	`copy_to_player` integer DEFAULT false NOT NULL,
	`auto_sync` integer DEFAULT false NOT NULL,
	`metadata` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`subsystem_id`) REFERENCES `subsystems`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `playables_subsystem_ref` ON `playables` (`subsystem_id`,`external_ref`) WHERE "playables"."external_ref" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `playables_composition` ON `playables` (`composition_id`);--> statement-breakpoint
CREATE TABLE `preset_entries` (
	`preset_id` integer NOT NULL,
	`position` integer NOT NULL,
	`parameter_id` integer NOT NULL,
	`value` text NOT NULL,
	PRIMARY KEY(`preset_id`, `position`),
	FOREIGN KEY (`preset_id`) REFERENCES `presets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`parameter_id`) REFERENCES `parameters`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `preset_entries_parameter` ON `preset_entries` (`parameter_id`);--> statement-breakpoint
CREATE TABLE `presets` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`subsystem_id` integer NOT NULL,
	`external_ref` text,
	`display_name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`last_applied_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`subsystem_id`) REFERENCES `subsystems`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `presets_subsystem_ref` ON `presets` (`subsystem_id`,`external_ref`) WHERE "presets"."external_ref" IS NOT NULL;--> statement-breakpoint
CREATE TABLE `subsystem_messages` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`uuid` text NOT NULL,
	`subsystem_id` integer NOT NULL,
	`type` text NOT NULL,
	`zone` text,
	`zone_id` integer,
	`play_type` text,
	`payload` text NOT NULL,
	`state` text DEFAULT 'queued' NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`delivered_at` integer,
	FOREIGN KEY (`subsystem_id`) REFERENCES `subsystems`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `subsystem_messages_uuid_unique` ON `subsystem_messages` (`uuid`);--> statement-breakpoint
CREATE INDEX `subsystem_messages_waiting` ON `subsystem_messages` (`subsystem_id`,`state`,`id`);--> statement-breakpoint
CREATE INDEX `subsystem_messages_created` ON `subsystem_messages` (`subsystem_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `subsystem_messages_expiry` ON `subsystem_messages` (`state`,`expires_at`);--> statement-breakpoint
CREATE TABLE `variable_history` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`variable_id` integer NOT NULL,
	`at` integer NOT NULL,
	`value` text NOT NULL,
	`source` text NOT NULL,
	`by` text,
	FOREIGN KEY (`variable_id`) REFERENCES `variables`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `variable_history_variable_at` ON `variable_history` (`variable_id`,`at`);--> statement-breakpoint
CREATE TABLE `variables` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`subsystem_id` integer NOT NULL,
	`external_ref` text NOT NULL,
	`display_name` text NOT NULL,
	`user_defined_display_name` integer DEFAULT false NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`type` text DEFAULT 'string' NOT NULL,
	`last_value` text DEFAULT '' NOT NULL,
	`last_value_updated_at` integer,
	`unit` text,
	`value_mapping` text NOT NULL,
	`tags` text NOT NULL,
	`log` integer DEFAULT false NOT NULL,
	`store_history` integer DEFAULT true NOT NULL,
	`available_in_subsystem` integer DEFAULT true NOT NULL,
	`health_enabled` integer DEFAULT false NOT NULL,
	`health_grace_period` integer DEFAULT 30 NOT NULL,
	`health_rules` text NOT NULL,
	`health_state` integer DEFAULT -1 NOT NULL,
	`health_pending_state` integer,
	`health_pending_since` integer,
	`alert` integer DEFAULT false NOT NULL,
	`composite` integer DEFAULT false NOT NULL,
	`composite_definition` text NOT NULL,
	`asset_id` integer,
	`metric_type` text,
	`metric_key1` text,
	`metric_key2` text,
	`port_number` integer,
	`if_desc` text,
	`platform_managed` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`subsystem_id`) REFERENCES `subsystems`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `variables_subsystem_ref` ON `variables` (`subsystem_id`,`external_ref`);--> statement-breakpoint
CREATE INDEX `variables_display_name` ON `variables` ("display_name" collate nocase);--> statement-breakpoint
CREATE INDEX `variables_asset` ON `variables` (`asset_id`);--> statement-breakpoint
CREATE INDEX `variables_health_pending` ON `variables` (`health_pending_state`);--> statement-breakpoint
ALTER TABLE `logs` ADD `display_name` text;--> statement-breakpoint
CREATE INDEX `logs_subsystem_time` ON `logs` (`subsystem_external_id`,`time`);