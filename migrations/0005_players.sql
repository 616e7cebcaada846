-- Hand-edited after drizzle-kit generated it: drizzle-kit leaves ON DELETE cascade out of an
-- ALTER TABLE ADD ... REFERENCES; players must go with their container (§13 rule 2).
ALTER TABLE `subsystems` ADD `kind` text DEFAULT 'subsystem' NOT NULL;--> statement-breakpoint
ALTER TABLE `subsystems` ADD `container_id` integer REFERENCES subsystems(id) ON DELETE cascade;--> statement-breakpoint
ALTER TABLE `subsystems` ADD `default_media_type` text DEFAULT 'none' NOT NULL;--> statement-breakpoint
ALTER TABLE `subsystems` ADD `default_media_id` integer;--> statement-breakpoint
CREATE INDEX `subsystems_container` ON `subsystems` (`container_id`);