import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Branch rows carry their head commit as the branch API shows it (author, committer, dates as git wrote them, the
 * whole message), so the branch list reads one query and no git. Rows written before have NULL there until their
 * branch next moves or the list fills them in.
 */
export class BranchHeadCommits1732000016200 implements MigrationInterface {
  name = 'BranchHeadCommits1732000016200';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE branch
        ADD COLUMN author_name text,
        ADD COLUMN author_email text,
        ADD COLUMN author_date text,
        ADD COLUMN committer_name text,
        ADD COLUMN committer_email text,
        ADD COLUMN committer_date text,
        ADD COLUMN message text`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE branch DROP COLUMN author_name, DROP COLUMN author_email, DROP COLUMN author_date, DROP COLUMN committer_name,
        DROP COLUMN committer_email, DROP COLUMN committer_date, DROP COLUMN message`);
  }
}
