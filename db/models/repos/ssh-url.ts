import type { SshConfig } from '../../process/config.js';

/** What an SSH clone address is made of. */
export type SshUrlSettings = Pick<SshConfig, 'disabled' | 'port' | 'domain' | 'user'>;

/**
 * Gitea's ComposeSSHCloneURL: `ssh://user@host:port/owner/repo.git` on a port other than 22, the scp-like
 * `user@host:owner/repo.git` on 22; empty while SSH is disabled.
 */
export function sshCloneUrl(ssh: SshUrlSettings, owner: string, repo: string): string {
  if (ssh.disabled) return '';
  const path = `${encodeURIComponent(owner)}/${encodeURIComponent(repo)}.git`;
  // only an IPv6 address has colons in a host; it is bracketed as in a URL
  const host = ssh.domain.includes(':') && !ssh.domain.startsWith('[') ? `[${ssh.domain}]` : ssh.domain;
  if (ssh.port !== 22) return `ssh://${ssh.user}@${host}:${ssh.port}/${path}`;
  return `${ssh.user}@${host}:${path}`;
}
