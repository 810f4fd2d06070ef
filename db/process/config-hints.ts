/**
 * Gitea's app.ini names that Hearth reads elsewhere or not at all, with where to look instead.
 * Used to word the warning for an unknown section or key.
 */
const sectionHints: Record<string, string> = {
  database: 'Hearth reads the database from DATABASE_URL (postgres://user:password@host:port/name); unset, it runs an embedded PostgreSQL',
  '': 'Hearth has no settings outside a section',
};

const keyHints: Record<string, string> = {
  'server HTTP_PORT': 'Hearth reads its port from the PORT environment variable',
  'server HTTP_ADDR': 'Hearth listens on every address; set PORT for the port',
  'server PROTOCOL': 'Hearth serves plain HTTP; put a TLS proxy in front and set [server] ROOT_URL',
  'server APP_DATA_PATH': 'Hearth keeps its data under HEARTH_DATA_DIR',
  'server DOMAIN': 'Hearth builds its links from [server] ROOT_URL (or HEARTH_ROOT_URL)',
  'repository ROOT': 'repositories live under $HEARTH_DATA_DIR/git',
  'log MODE': 'Hearth logs JSON lines to standard output; [log] LEVEL (or LOG_LEVEL) sets the level',
  'log ROOT_PATH': 'Hearth logs to standard output',
  ' APP_NAME': 'Hearth has no settings outside a section',
  ' RUN_USER': 'Hearth runs as the user that starts it',
  ' RUN_MODE': 'Hearth has no run modes',
};

export function giteaHint(section: string, key?: string): string | undefined {
  return key === undefined ? sectionHints[section] : keyHints[`${section} ${key}`];
}
