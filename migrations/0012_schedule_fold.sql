ALTER TABLE `scheduled_items` ADD `start_fold` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `scheduled_items` ADD `end_fold` integer DEFAULT false NOT NULL;