import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../process/config.js';
import type { Queryable, Tx } from '../../data-source.js';
import { forbidden, invalid, notFound } from '../../errors.js';
import { compileGlob } from '../../glob.js';
import type { ObjectFormat } from '../../git/objects.js';
import type { ListedEntry } from '../../git/read.js';
import type { GitRepo } from '../../git/repo.js';
import { syncAllBranches } from '../code/branch-rows.js';
import { createLabel, type LabelRow } from '../orgs/labels.js';
import { createOrgRepository, orgPermissionsOf, type OrgRow } from '../orgs/orgs.js';
import { readRepoAvatar, setRepoAvatar } from './repo-avatars.js';
import { createRepository, type NewRepo, type RepoContext } from './repos.js';
import type { RepoRow } from './repo-row.js';
import { replaceTopics } from './topics.js';
import { findUserByName } from '../users/users.js';
import { userTypes, type UserRow } from '../users/user-row.js';
import { sshCloneUrl, type SshUrlSettings } from './ssh-url.js';

/** GenerateRepoOption: what the new repository is called and which parts of the template it takes. */
export interface GenerateOptions {
  name: string;
  description?: string;
  private?: boolean;
  default_branch?: string;
  git_content?: boolean;
  topics?: boolean;
  git_hooks?: boolean;
  webhooks?: boolean;
  avatar?: boolean;
  labels?: boolean;
  protected_branch?: boolean;
}

export interface GenerateContext extends RepoContext {
  config: Pick<Config, 'repository' | 'actions' | 'rootUrl' | 'dataDir' | 'ssh'>;
}

/**
 * Who will own a generated repository: the caller, any user for an administrator, or an organization the caller
 * may create repositories in (Gitea's Generate handler).
 */
export async function resolveGenerateOwner(db: Queryable, doer: UserRow, ownerName: string): Promise<UserRow> {
  if (ownerName.toLowerCase() === doer.lower_name) return doer;
  const owner = await findUserByName(db, ownerName);
  if (!owner) throw notFound(`request owner \`${ownerName}\` does not exist`);
  if (doer.is_admin) return owner;
  if (owner.type !== userTypes.organization) throw forbidden('Only admin can generate repository for other user.');
  if (!(await orgPermissionsOf(db, owner as OrgRow, doer)).canCreateRepository) {
    throw forbidden('Given user is not allowed to create repository in organization.');
  }
  return owner;
}

/**
 * Gitea's GenerateRepository: a new repository (template_id set) that takes the selected parts of a template:
 * its default branch's files as one fresh commit with `.gitea/template` variables expanded, topics, git hooks,
 * avatar, labels and branch protection rules. Webhooks are accepted as a choice; there are none to copy yet.
 */
export async function generateRepository(
  tx: Tx,
  ctx: GenerateContext,
  template: RepoRow,
  owner: UserRow,
  doer: UserRow,
  options: GenerateOptions,
): Promise<RepoRow> {
  if (!template.is_template) throw invalid('this is not a template repo');
  const chosen = options.git_content || options.topics || options.git_hooks || options.webhooks || options.avatar || options.labels || options.protected_branch;
  if (!chosen) throw invalid('must select at least one template item');
  const withContent = Boolean(options.git_content) && !template.is_empty;
  const input: NewRepo = {
    name: options.name,
    description: options.description,
    private: options.private,
    default_branch: options.default_branch || (withContent ? template.default_branch : undefined),
    object_format_name: template.object_format_name as ObjectFormat,
    template_id: template.id,
  };
  let repo = owner.type === userTypes.organization
    ? await createOrgRepository(tx, ctx, owner as OrgRow, doer, input)
    : await createRepository(tx, ctx, owner, doer, input);
  const templateGit = ctx.git.open(template);
  const repoGit = ctx.git.open(repo);
  if (withContent && (await generateGitContent(templateGit, repoGit, template, repo, owner, ctx.config))) {
    await syncAllBranches(tx, repoGit, repo.id, doer.id);
    [repo] = await tx.query<RepoRow>('UPDATE repository SET is_empty = false WHERE id = $1 RETURNING *', [repo.id]);
  }
  if (options.topics && template.topics.length > 0) await replaceTopics(tx, repo, template.topics);
  if (options.git_hooks) await copyGitHooks(templateGit.dir, repoGit.dir);
  if (options.avatar && template.avatar) {
    const image = await readRepoAvatar(ctx.config, template.avatar);
    if (image) repo = await setRepoAvatar(tx, ctx.config, repo, image.bytes);
  }
  if (options.labels) {
    const labels = await tx.query<LabelRow>('SELECT * FROM label WHERE repo_id = $1 ORDER BY id', [template.id]);
    for (const label of labels) {
      await createLabel(tx, { repoId: repo.id }, { name: label.name, color: label.color, description: label.description, exclusive: label.exclusive });
    }
  }
  if (options.protected_branch) await copyProtectedBranches(tx, template.id, repo.id);
  const [row] = await tx.query<RepoRow>('SELECT * FROM repository WHERE id = $1', [repo.id]);
  return row;
}

async function readBlob(repoGit: GitRepo, oid: string): Promise<Buffer> {
  const blob = await repoGit.readBlob(oid);
  if (!blob) throw new Error(`blob ${oid} is missing`);
  return blob;
}

/**
 * Writes the template's default-branch files into the new repository as a single "Initial commit" by the new owner, on
 * its default branch. Only the tree's objects are copied, never the template's history. Answers false
 * when the template's default branch has no commit.
 */
async function generateGitContent(templateGit: GitRepo, repoGit: GitRepo, template: RepoRow, repo: RepoRow, owner: UserRow, urls: UrlSettings): Promise<boolean> {
  const tree = await templateGit.resolve(`refs/heads/${template.default_branch}`, 'tree');
  if (!tree) return false;
  const items = await templateGit.listTree(tree, { recursive: true });
  const objects = new Set([tree, ...items.filter((item) => item.type !== 'commit').map((item) => item.oid)]);
  await repoGit.copyObjectsFrom(templateGit, [...objects]);

  const format = repo.object_format_name as ObjectFormat;
  const edits = await planTemplateEdits(repoGit, items, buildExpansions(template, repo, urls));
  const index = await repoGit.openIndex(tree);
  let newTree: string;
  try {
    await index.apply(edits, format);
    newTree = await index.writeTree();
  } finally {
    await index.dispose();
  }
  const email = owner.keep_email_private ? `${owner.lower_name}@noreply.${new URL(urls.rootUrl).hostname}` : owner.email;
  const signature = { name: owner.full_name || owner.name, email, date: new Date() };
  const commit = await repoGit.commitTree(newTree, [], 'Initial commit\n', signature, signature);
  const ref = `refs/heads/${repo.default_branch}`;
  if (!(await repoGit.updateRef(ref, commit, null))) throw new Error(`${ref} already exists in a new repository`);
  await repoGit.setHead(repo.default_branch);
  return true;
}

/**
 * The index edits `.gitea/template` asks for: the file itself goes, and every regular file one of its globs
 * matches gets its variables expanded, in its content and its path. Removals come first, so a renamed file may
 * take the place of one that moved away.
 */
async function planTemplateEdits(repoGit: GitRepo, items: ListedEntry[], vars: Map<string, string>): Promise<Array<{ path: string; mode: string; oid: string | null }>> {
  const control = items.find((item) => item.path === '.gitea/template' && item.type === 'blob');
  if (!control) return [];
  const removals = [{ path: control.path, mode: control.mode, oid: null }];
  const additions: Array<{ path: string; mode: string; oid: string | null }> = [];
  const globs = parseTemplateGlobs((await readBlob(repoGit, control.oid)).toString('utf8'));
  for (const item of items) {
    if (item.type !== 'blob' || item === control || (item.mode !== '100644' && item.mode !== '100755')) continue;
    if (!globs.some((glob) => glob.test(item.path))) continue;
    const content = expandVariables((await readBlob(repoGit, item.oid)).toString('latin1'), vars, false);
    const newPath = sanitizeFilePath(Buffer.from(expandVariables(bytesOf(item.path), vars, true), 'latin1').toString('utf8'));
    if (!newPath || newPath === '.') continue;
    const oid = await repoGit.hashObject(Buffer.from(content, 'latin1'));
    if (newPath !== item.path) removals.push({ path: item.path, mode: item.mode, oid: null });
    additions.push({ path: newPath, mode: item.mode, oid });
  }
  return [...removals, ...additions];
}

/** The globs of a `.gitea/template` file: one per line, `#` comments and blank lines skipped, invalid ones ignored. */
export function parseTemplateGlobs(text: string): RegExp[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => compileGlob(line, '/'))
    .filter((glob): glob is RegExp => glob !== null);
}

/** UTF-8 bytes of `text`, one character per byte: expansion works on bytes, so binary content passes unchanged. */
const bytesOf = (text: string): string => Buffer.from(text, 'utf8').toString('latin1');

function splitWords(text: string): string[] {
  return text.split(/[^A-Za-z0-9]+/).flatMap((part) => part.match(/[A-Z]+(?![a-z])\d*|[A-Z]?[a-z]+\d*|\d+/g) ?? []);
}

const capitalize = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();

/** The case transformers Gitea offers as VARIABLE_SNAKE, _KEBAB, _CAMEL, _PASCAL, _LOWER, _UPPER and _TITLE. */
const transformers: Record<string, (text: string) => string> = {
  SNAKE: (text) => splitWords(text).map((w) => w.toLowerCase()).join('_'),
  KEBAB: (text) => splitWords(text).map((w) => w.toLowerCase()).join('-'),
  CAMEL: (text) => splitWords(text).map((w, i) => (i === 0 ? w.toLowerCase() : capitalize(w))).join(''),
  PASCAL: (text) => splitWords(text).map(capitalize).join(''),
  LOWER: (text) => text.toLowerCase(),
  UPPER: (text) => text.toUpperCase(),
  TITLE: (text) => text.toLowerCase().replace(/(^|[^\p{L}\p{N}'])(\p{L})/gu, (_, before: string, letter: string) => before + letter.toUpperCase()),
};

/** The variables a template may use, as Gitea defines them, each with its transformed forms where Gitea has them. */
/** What the URL variables of a template are made of. */
type UrlSettings = { rootUrl: string; ssh: SshUrlSettings };

export function buildExpansions(template: RepoRow, repo: RepoRow, { rootUrl, ssh: sshSettings }: UrlSettings): Map<string, string> {
  const root = new URL(rootUrl);
  const subUrl = root.pathname.replace(/\/$/, '');
  const link = (r: RepoRow): string => `${subUrl}/${encodeURIComponent(r.owner_name)}/${encodeURIComponent(r.name)}`;
  const https = (r: RepoRow): string => `${rootUrl}${r.owner_name}/${r.name}.git`;
  const ssh = (r: RepoRow): string => sshCloneUrl(sshSettings, r.owner_name, r.name);
  const now = new Date();
  const month = now.toLocaleString('en-US', { month: 'long' });
  const entries: Array<[string, string, boolean]> = [
    ['YEAR', String(now.getFullYear()), false],
    ['MONTH', String(now.getMonth() + 1).padStart(2, '0'), false],
    ['MONTH_ENGLISH', month, true],
    ['DAY', String(now.getDate()).padStart(2, '0'), false],
    ['REPO_NAME', repo.name, true],
    ['TEMPLATE_NAME', template.name, true],
    ['REPO_DESCRIPTION', repo.description, false],
    ['TEMPLATE_DESCRIPTION', template.description, false],
    ['REPO_OWNER', repo.owner_name, true],
    ['TEMPLATE_OWNER', template.owner_name, true],
    ['REPO_LINK', link(repo), false],
    ['TEMPLATE_LINK', link(template), false],
    ['REPO_HTTPS_URL', https(repo), false],
    ['TEMPLATE_HTTPS_URL', https(template), false],
    ['REPO_SSH_URL', ssh(repo), false],
    ['TEMPLATE_SSH_URL', ssh(template), false],
  ];
  const vars = new Map<string, string>();
  for (const [name, value, transformed] of entries) {
    vars.set(name, value);
    if (transformed) for (const [suffix, transform] of Object.entries(transformers)) vars.set(`${name}_${suffix}`, transform(value));
  }
  return vars;
}

const fileNameReserved = /[<>:"/\\|?*\x00-\x1f]|^(con|prn|aux|nul|com\d|lpt\d)$/gi;

/** Gitea's filePathSanitize: no reserved characters or device names, no `..` or `.git` components. */
export function sanitizeFilePath(text: string): string {
  const fields = text.split('/').map((field) => {
    let clean = field.replace(fileNameReserved, '_').trim();
    if (clean.startsWith('..')) clean = `__${clean.slice(2)}`;
    if (clean.toLowerCase() === '.git') clean = `_${clean.slice(1)}`;
    return clean;
  });
  return path.posix.normalize(fields.join('/').replace(/^\/+|\/+$/g, ''));
}

const isShellSpecial = (c: string): boolean => '*#$@!?-'.includes(c) || (c >= '0' && c <= '9');
const isNameChar = (c: string): boolean => /[A-Za-z0-9_]/.test(c);

/**
 * Go's os.Expand, as Gitea applies it: `$NAME` and `${NAME}` become the variable's value (for a path, with
 * reserved file-name characters replaced); an unknown name becomes the name itself. `text` and the result are byte strings.
 */
export function expandVariables(text: string, vars: Map<string, string>, forPath: boolean): string {
  const value = (name: string): string => {
    const found = vars.get(name);
    if (found === undefined) return name;
    return bytesOf(forPath ? found.replace(fileNameReserved, '_') : found);
  };
  let out = '';
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '$' || i + 1 >= text.length) {
      out += text[i];
      continue;
    }
    const rest = text.slice(i + 1);
    let name = '';
    let width = 0;
    if (rest[0] === '{') {
      if (rest.length > 2 && isShellSpecial(rest[1]) && rest[2] === '}') {
        name = rest[1];
        width = 3;
      } else {
        const close = rest.indexOf('}');
        if (close === 1) width = 2;
        else if (close < 0) width = 1;
        else {
          name = rest.slice(1, close);
          width = close + 1;
        }
      }
    } else if (isShellSpecial(rest[0])) {
      name = rest[0];
      width = 1;
    } else {
      while (width < rest.length && isNameChar(rest[width])) width++;
      name = rest.slice(0, width);
    }
    if (name) out += value(name);
    else if (width === 0) out += '$';
    i += width;
  }
  return out;
}

/** Custom git hooks kept the way Gitea keeps them (hooks/<name>.d/<name>) are copied to the new repository. */
async function copyGitHooks(templateDir: string, dir: string): Promise<void> {
  for (const name of ['pre-receive', 'update', 'post-receive']) {
    const source = path.join(templateDir, 'hooks', `${name}.d`, name);
    if (!existsSync(source)) continue;
    const target = path.join(dir, 'hooks', `${name}.d`, name);
    await mkdir(path.dirname(target), { recursive: true });
    await copyFile(source, target);
    await chmod(target, 0o755);
  }
}

/** Every branch protection rule of the template, column for column (whatever columns the rules have). */
async function copyProtectedBranches(tx: Tx, fromRepoId: number, toRepoId: number): Promise<void> {
  const columns = await tx.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name = 'protected_branch' AND column_name NOT IN ('id', 'repo_id', 'created', 'updated')
     ORDER BY ordinal_position`,
  );
  const list = columns.map((c) => `"${c.column_name}"`).join(', ');
  await tx.query(
    `INSERT INTO protected_branch (repo_id, ${list}) SELECT $1, ${list} FROM protected_branch WHERE repo_id = $2 ORDER BY id`,
    [toRepoId, fromRepoId],
  );
}
