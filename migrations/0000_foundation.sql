CREATE TABLE `control_panels` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`location` text NOT NULL,
	`subsystem_id` integer NOT NULL,
	`external_ref` text,
	`display_name` text NOT NULL,
	`display_name_set` integer DEFAULT false NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`type` text DEFAULT 'iframe' NOT NULL,
	`connection` text NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`registered_panel_id` integer,
	`roles` text NOT NULL,
	`scale` text NOT NULL,
	`open_externally` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`subsystem_id`) REFERENCES `subsystems`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`registered_panel_id`) REFERENCES `control_panels`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `control_panels_subsystem_ref` ON `control_panels` (`subsystem_id`,`external_ref`) WHERE "control_panels"."location" = 'registered' AND "control_panels"."external_ref" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `control_panels_registered` ON `control_panels` (`registered_panel_id`);--> statement-breakpoint
CREATE TABLE `logs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`time` integer NOT NULL,
	`key` text DEFAULT 'general' NOT NULL,
	`value` text DEFAULT '' NOT NULL,
	`severity` text DEFAULT 'info' NOT NULL,
	`category` text DEFAULT 'activity' NOT NULL,
	`created_by` text,
	`created_by_type` text,
	`tags` text NOT NULL,
	`subsystem_id` integer,
	`subsystem_external_id` text,
	`host` text,
	`posted_by` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `logs_time` ON `logs` (`time`);--> statement-breakpoint
CREATE INDEX `logs_category_time` ON `logs` (`category`,`time`);--> statement-breakpoint
CREATE TABLE `roles` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`display_name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`permissions` text NOT NULL,
	`built_in` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `roles_name_unique` ON `roles` (`name`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`token_hash` text NOT NULL,
	`user_id` integer NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`address` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sessions_tokenHash_unique` ON `sessions` (`token_hash`);--> statement-breakpoint
CREATE INDEX `sessions_user` ON `sessions` (`user_id`);--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `subsystems` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`external_id` text NOT NULL,
	`display_name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`type` text DEFAULT 'generic' NOT NULL,
	`health_enabled` integer DEFAULT true NOT NULL,
	`health_grace_period` integer,
	`health_check` text NOT NULL,
	`direct_media_playback` integer DEFAULT false NOT NULL,
	`metadata` text NOT NULL,
	`status` text DEFAULT 'unknown' NOT NULL,
	`last_contacted_at` integer,
	`status_changed_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `subsystems_externalId_unique` ON `subsystems` (`external_id`);--> statement-breakpoint
CREATE INDEX `subsystems_type` ON `subsystems` (`type`);--> statement-breakpoint
CREATE TABLE `tokens` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`display_name` text NOT NULL,
	`token_hash` text NOT NULL,
	`prefix` text NOT NULL,
	`role_id` integer NOT NULL,
	`subsystem_ids` text NOT NULL,
	`expires_at` integer,
	`created_by` text,
	`last_used_at` integer,
	`last_used_from` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`role_id`) REFERENCES `roles`(`id`) ON UPDATE no action ON DELETE restrict
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tokens_tokenHash_unique` ON `tokens` (`token_hash`);--> statement-breakpoint
CREATE TABLE `user_templates` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`display_name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`role_ids` text NOT NULL,
	`controlpanels` text NOT NULL,
	`preferences` text NOT NULL,
	`is_default` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `user_templates_displayName_unique` ON `user_templates` (`display_name`);--> statement-breakpoint
CREATE TABLE `user_roles` (
	`user_id` integer NOT NULL,
	`role_id` integer NOT NULL,
	`position` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`user_id`, `role_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`role_id`) REFERENCES `roles`(`id`) ON UPDATE no action ON DELETE restrict
);
--> statement-breakpoint
CREATE INDEX `user_roles_role` ON `user_roles` (`role_id`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`username` text NOT NULL,
	`display_name` text NOT NULL,
	`email` text,
	`password_hash` text NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`template_id` integer,
	`controlpanels` text NOT NULL,
	`preferences` text NOT NULL,
	`last_login_at` integer,
	`password_changed_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`template_id`) REFERENCES `user_templates`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_username_nocase` ON `users` ("username" COLLATE NOCASE);