CREATE TABLE `compositions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`subsystem_id` integer NOT NULL,
	`external_ref` text,
	`display_name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`template_path` text NOT NULL,
	`template_id` integer NOT NULL,
	`slots` text NOT NULL,
	`parameters` text NOT NULL,
	`duration` integer,
	`status` text DEFAULT 'draft' NOT NULL,
	`playable_id` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`subsystem_id`) REFERENCES `subsystems`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`playable_id`) REFERENCES `playables`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `compositions_subsystem_ref` ON `compositions` (`subsystem_id`,`external_ref`) WHERE "compositions"."external_ref" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `compositions_template` ON `compositions` (`template_id`);--> statement-breakpoint
CREATE INDEX `compositions_playable` ON `compositions` (`playable_id`);--> statement-breakpoint
CREATE TABLE `copy_received` (
	`player_id` integer NOT NULL,
	`object_id` integer NOT NULL,
	`sha256` text NOT NULL,
	`ranges` text NOT NULL,
	`bytes` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`player_id`, `object_id`),
	FOREIGN KEY (`player_id`) REFERENCES `subsystems`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`object_id`) REFERENCES `objects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `copy_received_object` ON `copy_received` (`object_id`);--> statement-breakpoint
CREATE TABLE `copy_statuses` (
	`playable_id` integer NOT NULL,
	`player_id` integer NOT NULL,
	`state` text NOT NULL,
	`bytes_done` integer DEFAULT 0 NOT NULL,
	`bytes_total` integer DEFAULT 0 NOT NULL,
	`error` text,
	`stale` integer DEFAULT false NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`playable_id`, `player_id`),
	FOREIGN KEY (`playable_id`) REFERENCES `playables`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`player_id`) REFERENCES `subsystems`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `copy_statuses_player` ON `copy_statuses` (`player_id`);