import { ok, route } from '../../http/route.js';
import { defaultPageSize, maxPageSize } from '../../http/pagination.js';

/** Gitea-compatible version (clients gate features on it) with Hearth's own release as build metadata. */
export const apiVersion = '1.22.0+hearth-0.1.0';

export const miscRoutes = [
  route({
    method: 'get', path: '/version', operationId: 'getVersion', summary: 'Returns the version of the Gitea application', tag: 'miscellaneous',
    scope: null, responses: { 200: 'ServerVersion' },
    handle: async () => ok({ version: apiVersion }),
  }),
  route({
    method: 'get', path: '/settings/api', operationId: 'getGeneralAPISettings', summary: "Get instance's global settings for api", tag: 'settings',
    scope: null, responses: { 200: 'GeneralAPISettings' },
    handle: async () => ok({ max_response_items: maxPageSize, default_paging_num: defaultPageSize, default_git_trees_per_page: 1000, default_max_blob_size: 10485760 }),
  }),
  route({
    method: 'get', path: '/settings/attachment', operationId: 'getGeneralAttachmentSettings', summary: "Get instance's global settings for Attachment", tag: 'settings',
    scope: null, responses: { 200: 'GeneralAttachmentSettings' },
    handle: async ({ deps }) => {
      const { enabled, allowedTypes, maxSize, maxFiles } = deps.config.attachment;
      return ok({ enabled, allowed_types: allowedTypes, max_size: maxSize, max_files: maxFiles });
    },
  }),
  route({
    method: 'get', path: '/settings/ui', operationId: 'getGeneralUISettings', summary: "Get instance's global settings for ui", tag: 'settings',
    scope: null, responses: { 200: 'GeneralUISettings' },
    handle: async ({ deps }) => ok({
      default_theme: 'gitea-auto',
      allowed_reactions: deps.config.ui.reactions,
      custom_emojis: ['git', 'gitea', 'codeberg', 'gitlab', 'github', 'gogs'],
    }),
  }),
  route({
    method: 'get', path: '/settings/repository', operationId: 'getGeneralRepositorySettings', summary: "Get instance's global settings for repositories", tag: 'settings',
    scope: null, responses: { 200: 'GeneralRepoSettings' },
    handle: async () => ok({
      mirrors_disabled: false,
      http_git_disabled: false,
      migrations_disabled: false,
      stars_disabled: false,
      time_tracking_disabled: false,
      lfs_disabled: true,
    }),
  }),
];
