CREATE TABLE `object_tags` (
	`object_id` integer NOT NULL,
	`tag` text NOT NULL,
	PRIMARY KEY(`object_id`, `tag`),
	FOREIGN KEY (`object_id`) REFERENCES `objects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `object_tags_tag` ON `object_tags` (`tag`,`object_id`);--> statement-breakpoint
CREATE TABLE `objects` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`bucket` text NOT NULL,
	`name` text NOT NULL,
	`display_name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`tags` text NOT NULL,
	`status` text NOT NULL,
	`file` text,
	`content_type` text,
	`size` integer,
	`md5` text,
	`sha256` text,
	`expected_sha256` text,
	`metadata` text NOT NULL,
	`media` text,
	`media_type` text,
	`duration` integer,
	`search_text` text NOT NULL,
	`deleted_at` integer,
	`purge_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `objects_bucket_name` ON `objects` (`bucket`,`name`);--> statement-breakpoint
CREATE INDEX `objects_bucket_created` ON `objects` (`bucket`,`created_at`);--> statement-breakpoint
CREATE INDEX `objects_purge` ON `objects` (`purge_at`) WHERE "objects"."purge_at" IS NOT NULL;