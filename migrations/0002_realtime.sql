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
	`end_local` text NOT NULL,
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
