import type { Convertor, FormatContext } from './convertor.js';

interface PackagistPayload { repository: { url: string } }

/** Gitea's services/webhook/packagist.go: a push asks Packagist to update the package at the meta's package_url; other events send an empty update. */
export function packagistConvertor({ meta }: FormatContext): Convertor<PackagistPayload> {
  const empty = (): PackagistPayload => ({ repository: { url: '' } });
  return {
    create: empty, delete: empty, fork: empty, repository: empty, release: empty, issue: empty, issueComment: empty, package: empty,
    pullRequest: empty, review: empty, wiki: empty,
    push: () => ({ repository: { url: meta.package_url ?? '' } }),
  };
}
