CREATE TABLE `backup_timetable` (
	`id` integer PRIMARY KEY NOT NULL,
	`last_slot` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `backups` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`display_name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`include_media` integer NOT NULL,
	`keep` integer DEFAULT false NOT NULL,
	`type` text NOT NULL,
	`status` text NOT NULL,
	`job` text,
	`object` text,
	`object_size` integer,
	`sha256` text,
	`encrypted` integer DEFAULT false NOT NULL,
	`schema_version` integer,
	`product_version` text,
	`is_valid` integer,
	`last_time_verified` integer,
	`verify_result` text,
	`scheduled_for` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `backups_type_created` ON `backups` (`type`,`created_at`);--> statement-breakpoint
CREATE INDEX `backups_object` ON `backups` (`object`);--> statement-breakpoint
CREATE TABLE `mail_deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`alert_id` integer,
	`incident_id` integer,
	`recipient` text NOT NULL,
	`subject` text NOT NULL,
	`body` text NOT NULL,
	`state` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer,
	`last_attempt_at` integer,
	`last_error` text,
	`sent_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `mail_deliveries_due` ON `mail_deliveries` (`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `mail_deliveries_incident` ON `mail_deliveries` (`incident_id`);--> statement-breakpoint
CREATE INDEX `mail_deliveries_created` ON `mail_deliveries` (`created_at`);