import { Agent, fetch } from 'undici';
import { z } from 'zod';
import type { Tx } from '../../data-source.js';
import type { RemoteAccess } from '../../git/remote.js';
import { createLabel } from '../orgs/labels.js';

// What a migration with `service` gitea or forgejo reads through the source's own API (Gitea's v1 API, which
// Hearth speaks too): labels and releases. Requests go to the address git was pinned to, with the same
// credentials (basic), and time out. Issues, milestones and pull requests are not read (see the report).

const apiTimeoutMs = 30_000;
const pageSize = 50;

const sourceLabel = z.object({ name: z.string(), color: z.string(), description: z.string().optional(), exclusive: z.boolean().optional() });
const sourceRelease = z.object({
  tag_name: z.string(),
  target_commitish: z.string().optional(),
  name: z.string().nullish(),
  body: z.string().nullish(),
  draft: z.boolean().optional(),
  prerelease: z.boolean().optional(),
  published_at: z.string().nullish(),
  created_at: z.string().nullish(),
});
export type SourceLabel = z.infer<typeof sourceLabel>;
export type SourceRelease = z.infer<typeof sourceRelease>;

export interface SourceData {
  labels: SourceLabel[];
  releases: SourceRelease[];
}

/** The source repository's API address from its clone address: `…/owner/repo(.git)` → `…/api/v1/repos/owner/repo`. */
function apiBaseOf(cloneUrl: string): URL {
  const url = new URL(cloneUrl);
  const parts = url.pathname.replace(/\/+$/, '').replace(/\.git$/i, '').split('/');
  const [repo, owner] = [parts.pop(), parts.pop()];
  if (!repo || !owner) throw new Error('the clone address names no owner and repository for the source API');
  return new URL(`${parts.join('/')}/api/v1/repos/${owner}/${repo}/`, url.origin);
}

/** Every page of a list endpoint of the source API, each item checked. */
async function readList<T>(remote: RemoteAccess, base: URL, endpoint: string, schema: z.ZodType<T>): Promise<T[]> {
  const pin = remote.pin;
  const dispatcher = new Agent({
    connect: {
      timeout: apiTimeoutMs,
      // Connect to the address the outbound check approved, whatever the name resolves to now.
      lookup: (_host, options, callback) => {
        const family = pin && pin.address.includes(':') ? 6 : 4;
        if (!pin) return callback(new Error('no checked address to connect to'), '', 4);
        if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [{ address: pin.address, family }]);
        return callback(null, pin.address, family);
      },
    },
  });
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (remote.credentials) headers.Authorization = `Basic ${Buffer.from(`${remote.credentials.username}:${remote.credentials.password}`).toString('base64')}`;
  const items: T[] = [];
  try {
    for (let page = 1; ; page++) {
      const url = new URL(`${endpoint}?page=${page}&limit=${pageSize}`, base);
      const response = await fetch(url, { headers, dispatcher, redirect: 'manual', signal: AbortSignal.timeout(apiTimeoutMs) });
      if (!response.ok) throw new Error(`the source API answered ${response.status} for ${endpoint}`);
      const batch = z.array(schema).parse(await response.json());
      items.push(...batch);
      if (batch.length < pageSize) return items;
    }
  } finally {
    await dispatcher.close();
  }
}

/** Reads what was asked for; nothing is read for a local source. */
export async function readSourceData(remote: RemoteAccess, wanted: { labels: boolean; releases: boolean }): Promise<SourceData> {
  if (!remote.pin) return { labels: [], releases: [] };
  const base = apiBaseOf(remote.url);
  return {
    labels: wanted.labels ? await readList(remote, base, 'labels', sourceLabel) : [],
    releases: wanted.releases ? await readList(remote, base, 'releases', sourceRelease) : [],
  };
}

/**
 * Writes the source's labels and releases into the new repository: a release replaces the tag release of its tag
 * (its title, notes, draft and pre-release state, date); published ones are counted.
 */
export async function importSourceData(tx: Tx, repoId: number, publisherId: number, data: SourceData): Promise<void> {
  for (const label of data.labels) {
    await createLabel(tx, { repoId }, { name: label.name, color: label.color, description: label.description, exclusive: label.exclusive });
  }
  for (const release of data.releases) {
    await tx.query(
      `INSERT INTO release (repo_id, publisher_id, tag_name, lower_tag_name, target, title, note, is_draft, is_prerelease, is_tag, created)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, false, COALESCE($10::timestamptz, now()))
       ON CONFLICT (repo_id, lower_tag_name) DO UPDATE SET title = EXCLUDED.title, note = EXCLUDED.note, target = EXCLUDED.target,
         is_draft = EXCLUDED.is_draft, is_prerelease = EXCLUDED.is_prerelease, is_tag = false, created = EXCLUDED.created, publisher_id = EXCLUDED.publisher_id`,
      [
        repoId, publisherId, release.tag_name, release.tag_name.toLowerCase(), release.target_commitish ?? '', release.name ?? '', release.body ?? '',
        release.draft ?? false, release.prerelease ?? false, release.published_at || release.created_at || null,
      ],
    );
  }
  if (data.releases.length > 0) {
    await tx.query(
      'UPDATE repository SET num_releases = (SELECT count(*) FROM release WHERE repo_id = $1 AND NOT is_tag AND NOT is_draft) WHERE id = $1',
      [repoId],
    );
  }
}
