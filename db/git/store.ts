import { appendFile, mkdir, readdir, rename, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { CommitFieldsCache } from './commit-fields.js';
import type { ObjectFormat } from './objects.js';
import { readObjectFormat } from './refs.js';
import { GitRepo } from './repo.js';
import { gitOk } from './run.js';

/** The one branch of a wiki, as Gitea names it. */
export const wikiBranch = 'master';

/** The name the wiki of repository `name` has on disk, beside it: `<name>.wiki` (`<name>.wiki.git`). */
export const wikiName = (name: string): string => `${name}.wiki`;

/** What locates a repository on disk: its row (or anything shaped like it). */
export interface RepoLocation {
  owner_name: string;
  name: string;
  object_format_name: string;
}

/**
 * Where bare repositories live: `$HEARTH_DATA_DIR/git/<owner>/<repo>.git`, lower-cased. Everything that
 * touches the directory layout goes through here, so the store can later move to shared storage. `open`
 * hands out one repository to read and write; branch reads take commit fields from `commits` when the
 * process keeps such a cache (the web process does).
 */
export class GitStore {
  constructor(
    readonly root: string,
    private readonly commits?: CommitFieldsCache,
  ) {}

  /** A repository by its row, or by owner and name (its object format then read from its configuration). */
  open(repo: RepoLocation): GitRepo;
  open(owner: string, name: string): GitRepo;
  open(repoOrOwner: RepoLocation | string, name?: string): GitRepo {
    if (typeof repoOrOwner === 'string') {
      const dir = this.pathOf(repoOrOwner, name!);
      return new GitRepo(dir, readObjectFormat(dir) ?? 'sha1', this.commits);
    }
    const dir = this.pathOf(repoOrOwner.owner_name, repoOrOwner.name);
    return new GitRepo(dir, repoOrOwner.object_format_name as ObjectFormat, this.commits);
  }

  pathOf(owner: string, repo: string): string {
    return path.join(this.root, owner.toLowerCase(), `${repo.toLowerCase()}.git`);
  }

  exists(owner: string, repo: string): boolean {
    return existsSync(this.pathOf(owner, repo));
  }

  /** A new empty bare repository whose HEAD names `defaultBranch`. */
  async init(owner: string, repo: string, defaultBranch: string, objectFormat: 'sha1' | 'sha256' = 'sha1'): Promise<string> {
    const dir = this.pathOf(owner, repo);
    if (existsSync(dir)) throw new Error(`repository directory already exists: ${dir}`);
    await mkdir(path.dirname(dir), { recursive: true });
    await gitOk(['init', '--bare', '--quiet', `--object-format=${objectFormat}`, `--initial-branch=${defaultBranch}`, dir], { cwd: path.dirname(dir) });
    // one append instead of a `git config` per setting: git ends the file it just wrote with a newline
    await appendFile(path.join(dir, 'config'), '[receive]\n\tadvertisePushOptions = true\n[uploadpack]\n\tallowFilter = true\n\tallowAnySHA1InWant = true\n');
    return dir;
  }

  /** A repository's wiki: the bare repository `<repo>.wiki.git` beside it, in the repository's object format. */
  openWiki(repo: RepoLocation): GitRepo {
    return new GitRepo(this.pathOf(repo.owner_name, wikiName(repo.name)), repo.object_format_name as ObjectFormat, this.commits);
  }

  wikiExists(repo: RepoLocation): boolean {
    return this.exists(repo.owner_name, wikiName(repo.name));
  }

  /** Creates the wiki repository (HEAD on `master`, as Gitea's wikis are); answers false when it existed already. */
  async initWiki(repo: RepoLocation): Promise<boolean> {
    if (this.wikiExists(repo)) return false;
    const format = repo.object_format_name === 'sha256' ? 'sha256' : 'sha1';
    await this.init(repo.owner_name, wikiName(repo.name), wikiBranch, format);
    return true;
  }

  /** Every repository directory on disk (`<owner>/<name>.git`, wikis included as `<name>.wiki`), by owner then name. */
  async listDirectories(): Promise<Array<{ owner: string; name: string }>> {
    const found: Array<{ owner: string; name: string }> = [];
    const owners = await readdir(this.root, { withFileTypes: true }).catch(() => []);
    for (const owner of owners.filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort()) {
      const entries = await readdir(path.join(this.root, owner), { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        if (entry.isDirectory() && entry.name.endsWith('.git')) found.push({ owner, name: entry.name.slice(0, -'.git'.length) });
      }
    }
    return found.sort((a, b) => a.owner.localeCompare(b.owner) || a.name.localeCompare(b.name));
  }

  /** Moves a repository directory out of the store, to `<target>/<owner>/<name>.git`, kept rather than deleted. */
  async setAside(owner: string, repo: string, target: string): Promise<string> {
    const to = path.join(target, owner.toLowerCase(), `${repo.toLowerCase()}.git`);
    await mkdir(path.dirname(to), { recursive: true });
    await rename(this.pathOf(owner, repo), to);
    return to;
  }

  async remove(owner: string, repo: string): Promise<void> {
    await rm(this.pathOf(owner, repo), { recursive: true, force: true });
  }

  async move(fromOwner: string, fromRepo: string, toOwner: string, toRepo: string): Promise<void> {
    const from = this.pathOf(fromOwner, fromRepo);
    const to = this.pathOf(toOwner, toRepo);
    if (from === to) return;
    await mkdir(path.dirname(to), { recursive: true });
    await rename(from, to);
  }
}
