import { expect } from 'chai';
import { modifyInPlace } from '../src/db/modify-in-place';

describe('modifyInPlace (MySQL-family migrations)', () => {
  it('turns a drop and re-add of one column into MODIFY, keeping the index on it in both directions', () => {
    const change = modifyInPlace({
      up: [
        'ALTER TABLE `messages` DROP COLUMN `text`',
        'DROP INDEX `ft_messages_text` ON `messages`',
        'ALTER TABLE `outbox_events` DROP COLUMN `payload`',
        'ALTER TABLE `outbox_events` ADD `payload` longtext NOT NULL',
      ],
      down: [
        'ALTER TABLE `outbox_events` DROP COLUMN `payload`',
        'ALTER TABLE `outbox_events` ADD `payload` text NOT NULL',
        'CREATE FULLTEXT INDEX `ft_messages_text` ON `messages` (`text`)',
      ],
    });
    expect(change.up).to.deep.equal([
      'ALTER TABLE `messages` DROP COLUMN `text`',
      'DROP INDEX `ft_messages_text` ON `messages`',
      'ALTER TABLE `outbox_events` MODIFY `payload` longtext NOT NULL',
    ]);
    expect(change.down).to.deep.equal([
      'ALTER TABLE `outbox_events` MODIFY `payload` text NOT NULL',
      'CREATE FULLTEXT INDEX `ft_messages_text` ON `messages` (`text`)',
    ]);
  });

  it('drops the index statements that only existed because the indexed column was dropped and re-added', () => {
    const change = modifyInPlace({
      up: [
        'DROP INDEX `ft_messages_text` ON `messages`',
        'ALTER TABLE `messages` DROP COLUMN `text`',
        'ALTER TABLE `messages` ADD `text` longtext NOT NULL',
        'CREATE INDEX `ix_other` ON `messages` (`chat_id`, `created_at`)',
      ],
      down: [
        'ALTER TABLE `messages` DROP COLUMN `text`',
        'ALTER TABLE `messages` ADD `text` text NOT NULL',
        'CREATE FULLTEXT INDEX `ft_messages_text` ON `messages` (`text`)',
        'DROP INDEX `ix_other` ON `messages`',
      ],
    });
    expect(change.up).to.deep.equal([
      'ALTER TABLE `messages` MODIFY `text` longtext NOT NULL',
      'CREATE INDEX `ix_other` ON `messages` (`chat_id`, `created_at`)',
    ]);
    expect(change.down).to.deep.equal([
      'ALTER TABLE `messages` MODIFY `text` text NOT NULL',
      'DROP INDEX `ix_other` ON `messages`',
    ]);
  });
});
