import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A repository's issues and pull requests together (the list's default when the caller reads both units) in the
 * list's order, so a page is read from the index instead of sorting every open issue.
 */
export class IssueListOrder1732000016000 implements MigrationInterface {
  name = 'IssueListOrder1732000016000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('CREATE INDEX issue_list_all ON issue (repo_id, is_closed, created DESC, id DESC)');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP INDEX issue_list_all');
  }
}
