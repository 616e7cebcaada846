CREATE TABLE `assets` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`display_name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`tags` text NOT NULL,
	`external_ref` text,
	`subsystem_id` integer,
	`type` text DEFAULT 'device' NOT NULL,
	`profile_type` text,
	`parent_id` integer,
	`manufacturer` text,
	`model` text,
	`serial_number` text,
	`firmware_version` text,
	`status` text DEFAULT 'active' NOT NULL,
	`metadata` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`subsystem_id`) REFERENCES `subsystems`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `assets_subsystem_ref` ON `assets` (`subsystem_id`,`external_ref`);--> statement-breakpoint
CREATE INDEX `assets_parent` ON `assets` (`parent_id`);--> statement-breakpoint
CREATE INDEX `assets_subsystem` ON `assets` (`subsystem_id`);