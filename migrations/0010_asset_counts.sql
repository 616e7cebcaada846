CREATE TABLE `asset_status_changes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` integer NOT NULL,
	`asset_id` integer NOT NULL,
	`from_status` text NOT NULL,
	`to_status` text NOT NULL,
	FOREIGN KEY (`asset_id`) REFERENCES `assets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `asset_status_changes_asset_at` ON `asset_status_changes` (`asset_id`,`at`);--> statement-breakpoint
CREATE INDEX `asset_status_changes_at` ON `asset_status_changes` (`at`);--> statement-breakpoint
CREATE INDEX `asset_health_changes_own` ON `asset_health_changes` (`asset_id`,`at`) WHERE variable_id is null;--> statement-breakpoint
CREATE INDEX `asset_health_changes_metric` ON `asset_health_changes` (`variable_id`,`at`) WHERE variable_id is not null;