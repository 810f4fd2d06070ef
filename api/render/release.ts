import type { AttachmentRow } from '../../db/models/releases/attachments.js';
import type { ReleaseView } from '../../db/views/releases.js';
import type { RepoRow } from '../../db/models/repos/repo-row.js';
import type { UserRow } from '../../db/models/users/user-row.js';
import { iso } from './time.js';
import { renderGhost, renderUser, type ApiUser, type RenderContext } from './user.js';

/** The Attachment definition of the Gitea 1.22 API description. */
export interface ApiAttachment {
  id: number;
  name: string;
  size: number;
  download_count: number;
  created_at: string;
  uuid: string;
  browser_download_url: string;
}

/** The Release definition of the Gitea 1.22 API description. */
export interface ApiRelease {
  id: number;
  tag_name: string;
  target_commitish: string;
  name: string;
  body: string;
  url: string;
  html_url: string;
  tarball_url: string;
  zipball_url: string;
  upload_url: string;
  draft: boolean;
  prerelease: boolean;
  created_at: string;
  published_at: string;
  author: ApiUser;
  assets: ApiAttachment[];
}

/** The repository a release belongs to, as its URLs need it. */
export interface ReleaseRepo {
  repo: RepoRow;
  owner: UserRow;
}

export function renderAttachment(attachment: AttachmentRow, { rootUrl }: RenderContext): ApiAttachment {
  return {
    id: attachment.id,
    name: attachment.name,
    size: attachment.size,
    download_count: attachment.download_count,
    created_at: iso(attachment.created),
    uuid: attachment.uuid,
    browser_download_url: `${rootUrl}attachments/${attachment.uuid}`,
  };
}

const escapeSegments = (text: string): string => text.split('/').map(encodeURIComponent).join('/');

/** The publisher is shown as Gitea shows it to nobody in particular (no private address). */
export function renderRelease({ release, publisher, attachments }: ReleaseView, { repo, owner }: ReleaseRepo, ctx: RenderContext): ApiRelease {
  const fullName = `${owner.name}/${repo.name}`;
  const html = `${ctx.rootUrl}${fullName}`;
  const url = `${ctx.rootUrl}api/v1/repos/${fullName}/releases/${release.id}`;
  const tag = escapeSegments(release.tag_name);
  return {
    id: release.id,
    tag_name: release.tag_name,
    target_commitish: release.target,
    name: release.title,
    body: release.note,
    url,
    html_url: `${html}/releases/tag/${tag}`,
    tarball_url: `${html}/archive/${tag}.tar.gz`,
    zipball_url: `${html}/archive/${tag}.zip`,
    upload_url: `${url}/assets`,
    draft: release.is_draft,
    prerelease: release.is_prerelease,
    created_at: iso(release.created),
    published_at: iso(release.created),
    author: publisher ? renderUser(publisher, null, ctx) : renderGhost(ctx),
    assets: attachments.map((a) => renderAttachment(a, ctx)),
  };
}
