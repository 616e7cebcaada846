CREATE TABLE `webhook_outbox` (
	`id` integer PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL,
	`events` text NOT NULL
);
