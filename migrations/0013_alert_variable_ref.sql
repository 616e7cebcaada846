ALTER TABLE `alert_rules` ADD `variable_subsystem_external_id` text;--> statement-breakpoint
ALTER TABLE `alert_rules` ADD `variable_external_ref` text;--> statement-breakpoint
CREATE INDEX `alert_rules_variable_pair` ON `alert_rules` (`variable_subsystem_external_id`,`variable_external_ref`);--> statement-breakpoint
UPDATE `alert_rules` SET
  `variable_subsystem_external_id` = (SELECT s.`external_id` FROM `variables` v JOIN `subsystems` s ON s.`id` = v.`subsystem_id` WHERE v.`id` = `alert_rules`.`variable_id`),
  `variable_external_ref` = (SELECT v.`external_ref` FROM `variables` v WHERE v.`id` = `alert_rules`.`variable_id`)
WHERE `type` = 'variable' AND `variable_id` IN (SELECT `id` FROM `variables`);
