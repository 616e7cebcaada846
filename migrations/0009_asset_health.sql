CREATE TABLE `asset_health_changes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` integer NOT NULL,
	`asset_id` integer NOT NULL,
	`variable_id` integer,
	`metric_type` text,
	`display_name` text,
	`from_state` integer NOT NULL,
	`to_state` integer NOT NULL,
	`last_value` text,
	FOREIGN KEY (`asset_id`) REFERENCES `assets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `asset_health_changes_asset_at` ON `asset_health_changes` (`asset_id`,`at`);--> statement-breakpoint
CREATE INDEX `asset_health_changes_at` ON `asset_health_changes` (`at`);