CREATE TABLE `variable_history_recent` (
	`variable_id` integer NOT NULL,
	`at` integer NOT NULL,
	`value` text NOT NULL,
	`source` text NOT NULL,
	`by` text
);
