import type { Tx } from '../../data-source.js';
import { conflict, invalid, notFound } from '../../errors.js';
import { isValidRefPattern, zeroOid } from '../../git/objects.js';
import type { GitRepo } from '../../git/repo.js';
import type { GitStore } from '../../git/store.js';
import { recordRefUpdates } from './ref-updates.js';
import type { RepoRow } from '../repos/repo-row.js';
import type { UserRow } from '../users/user-row.js';

export interface NewTag {
  tag_name: string;
  target?: string;
  message?: string;
}

export interface TagContext {
  git: GitStore;
  config: { rootUrl: string };
}

/** What git itself accepts as a tag name (`git check-ref-format refs/tags/<name>`). */
async function assertValidTagName(repoGit: GitRepo, name: string): Promise<void> {
  if (!name || name.length > 255 || !isValidRefPattern(name)) throw invalid(`[TagName]: tag name is invalid: ${name}`);
  if (!(await repoGit.checkRefFormat(`refs/tags/${name}`))) throw invalid(`[TagName]: tag name is invalid: ${name}`);
}

/**
 * Gitea's CreateNewTag: a lightweight tag, or an annotated one (tagged by the doer) when there is a message, on
 * `target` (the default branch when absent); recorded as a tag-only release row. The ref goes away again if the
 * transaction does not commit.
 */
export async function createTag(tx: Tx, ctx: TagContext, repo: RepoRow, doer: UserRow, input: NewTag): Promise<string> {
  const repoGit = ctx.git.open(repo);
  await assertValidTagName(repoGit, input.tag_name);
  const commit = await repoGit.findCommit(input.target || repo.default_branch);
  if (!commit) throw notFound(`target not found: ${input.target || repo.default_branch}`);
  if (await repoGit.tagTarget(input.tag_name)) throw conflict(`tag already exists [name: ${input.tag_name}]`);
  const ref = `refs/tags/${input.tag_name}`;
  let oid = commit.oid;
  if (input.message) {
    const email = doer.keep_email_private ? `${doer.lower_name}@noreply.${new URL(ctx.config.rootUrl).hostname}` : doer.email;
    const header = `object ${commit.oid}\ntype commit\ntag ${input.tag_name}\ntagger ${doer.full_name || doer.name} <${email}> ${Math.floor(Date.now() / 1000)} +0000\n\n`;
    const message = input.message.endsWith('\n') ? input.message : `${input.message}\n`;
    oid = await repoGit.makeTag(header + message);
  }
  if (!(await repoGit.updateRef(ref, oid, null))) throw conflict(`tag already exists [name: ${input.tag_name}]`);
  tx.onRollback(async () => {
    await repoGit.deleteRef(ref, oid);
  });
  await tx.query(
    `INSERT INTO release (repo_id, publisher_id, tag_name, lower_tag_name, target, sha1, note, is_tag)
     VALUES ($1, $2, $3, $4, $5, $6, $7, true) ON CONFLICT (repo_id, lower_tag_name) DO NOTHING`,
    [repo.id, doer.id, input.tag_name, input.tag_name.toLowerCase(), commit.oid, commit.oid, input.message ?? ''],
  );
  await recordRefUpdates(tx, repoGit, repo, doer, [{ ref, oldSha: zeroOid(repoGit.format), newSha: oid }]);
  return input.tag_name;
}

/**
 * Gitea's DeleteTag: a tag that carries a release cannot be deleted on its own (409); otherwise the ref and its
 * tag-only release row go. The ref comes back if the transaction does not commit.
 */
export async function deleteTag(tx: Tx, ctx: TagContext, repo: RepoRow, doer: UserRow, name: string): Promise<void> {
  const repoGit = ctx.git.open(repo);
  const [release] = await tx.query<{ id: number; is_tag: boolean }>(
    'SELECT id, is_tag FROM release WHERE repo_id = $1 AND lower_tag_name = $2 FOR UPDATE',
    [repo.id, name.toLowerCase()],
  );
  const oid = isValidRefPattern(name) ? await repoGit.tagTarget(name) : null;
  if (!oid && !release?.is_tag) throw notFound(`tag does not exist [name: ${name}]`);
  if (release && !release.is_tag) throw conflict('a tag attached to a release cannot be deleted directly');
  if (release) await tx.query('DELETE FROM release WHERE id = $1', [release.id]);
  if (!oid) return;
  const ref = `refs/tags/${name}`;
  if (!(await repoGit.deleteRef(ref, oid))) throw conflict(`tag ${name} was changed by someone else meanwhile; try again`);
  tx.onRollback(async () => {
    await repoGit.updateRef(ref, oid, null);
  });
  await recordRefUpdates(tx, repoGit, repo, doer, [{ ref, oldSha: oid, newSha: zeroOid(repoGit.format) }]);
}
