import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Stars, watches, topics and deploy keys. The counters they feed (repository.num_stars, user.num_stars,
 * repository.num_watches, topic.repo_count) follow the rows through triggers, so the cascades that come
 * with deleting a user or a repository keep them right without every deleter knowing about them.
 */
export class StarsWatchesTopicsKeys1732000005000 implements MigrationInterface {
  name = 'StarsWatchesTopicsKeys1732000005000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE star (
        uid bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        repo_id bigint NOT NULL REFERENCES repository(id) ON DELETE CASCADE,
        created timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (uid, repo_id)
      )`);
    await db.query(`CREATE INDEX star_repo_id ON star (repo_id)`);
    await db.query(`
      CREATE FUNCTION star_counts() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          UPDATE repository SET num_stars = num_stars + 1 WHERE id = NEW.repo_id;
          UPDATE "user" SET num_stars = num_stars + 1 WHERE id = NEW.uid;
        ELSE
          UPDATE repository SET num_stars = GREATEST(num_stars - 1, 0) WHERE id = OLD.repo_id;
          UPDATE "user" SET num_stars = GREATEST(num_stars - 1, 0) WHERE id = OLD.uid;
        END IF;
        RETURN NULL;
      END $$`);
    await db.query(`CREATE TRIGGER star_counts AFTER INSERT OR DELETE ON star FOR EACH ROW EXECUTE FUNCTION star_counts()`);

    // Gitea's watch modes: 1 normal, 2 "don't watch" (an automatic watch was declined), 3 automatic.
    await db.query(`
      CREATE TABLE watch (
        user_id bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
        repo_id bigint NOT NULL REFERENCES repository(id) ON DELETE CASCADE,
        mode smallint NOT NULL DEFAULT 1 CHECK (mode IN (1, 2, 3)),
        created timestamptz NOT NULL DEFAULT now(),
        updated timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, repo_id)
      )`);
    await db.query(`CREATE INDEX watch_repo_id ON watch (repo_id)`);
    await db.query(`
      CREATE FUNCTION watch_counts() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        delta integer := 0;
        target bigint;
      BEGIN
        IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.mode IN (1, 3) THEN delta := delta + 1; END IF;
        IF TG_OP IN ('DELETE', 'UPDATE') AND OLD.mode IN (1, 3) THEN delta := delta - 1; END IF;
        target := CASE WHEN TG_OP = 'DELETE' THEN OLD.repo_id ELSE NEW.repo_id END;
        IF delta <> 0 THEN
          UPDATE repository SET num_watches = GREATEST(num_watches + delta, 0) WHERE id = target;
        END IF;
        RETURN NULL;
      END $$`);
    await db.query(`CREATE TRIGGER watch_counts AFTER INSERT OR UPDATE OR DELETE ON watch FOR EACH ROW EXECUTE FUNCTION watch_counts()`);

    await db.query(`
      CREATE TABLE topic (
        id bigserial PRIMARY KEY,
        name text NOT NULL UNIQUE,
        repo_count integer NOT NULL DEFAULT 0,
        created timestamptz NOT NULL DEFAULT now(),
        updated timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`
      CREATE TABLE repo_topic (
        repo_id bigint NOT NULL REFERENCES repository(id) ON DELETE CASCADE,
        topic_id bigint NOT NULL REFERENCES topic(id) ON DELETE CASCADE,
        PRIMARY KEY (repo_id, topic_id)
      )`);
    await db.query(`CREATE INDEX repo_topic_topic_id ON repo_topic (topic_id)`);
    await db.query(`
      CREATE FUNCTION topic_counts() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          UPDATE topic SET repo_count = repo_count + 1, updated = now() WHERE id = NEW.topic_id;
        ELSE
          UPDATE topic SET repo_count = GREATEST(repo_count - 1, 0), updated = now() WHERE id = OLD.topic_id;
        END IF;
        RETURN NULL;
      END $$`);
    await db.query(`CREATE TRIGGER topic_counts AFTER INSERT OR DELETE ON repo_topic FOR EACH ROW EXECUTE FUNCTION topic_counts()`);

    // key_id names the key material: the same public key added to two repositories shares it, as in Gitea.
    await db.query(`CREATE SEQUENCE deploy_key_key_id_seq`);
    await db.query(`
      CREATE TABLE deploy_key (
        id bigserial PRIMARY KEY,
        key_id bigint NOT NULL,
        repo_id bigint NOT NULL REFERENCES repository(id) ON DELETE CASCADE,
        name text NOT NULL,
        content text NOT NULL,
        fingerprint text NOT NULL,
        mode smallint NOT NULL DEFAULT 2 CHECK (mode IN (1, 2)),
        created timestamptz NOT NULL DEFAULT now(),
        updated timestamptz NOT NULL DEFAULT now(),
        UNIQUE (repo_id, fingerprint),
        UNIQUE (repo_id, name)
      )`);
    await db.query(`CREATE INDEX deploy_key_fingerprint ON deploy_key (fingerprint)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE deploy_key, repo_topic, topic, watch, star`);
    await db.query(`DROP SEQUENCE deploy_key_key_id_seq`);
    await db.query(`DROP FUNCTION star_counts(), watch_counts(), topic_counts()`);
  }
}
