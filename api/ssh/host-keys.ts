import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ssh2 from 'ssh2';

/**
 * The server's host keys (SSH_SERVER_HOST_KEYS), made at the first start and kept: a file whose name mentions rsa
 * gets a 3072-bit RSA key, any other an ed25519 key (OpenSSH's private key format, mode 0600, the public key beside
 * it as `.pub`). Clients pin these, so an existing file is never replaced.
 */
export function ensureHostKeys(files: string[]): Buffer[] {
  return files.map((file) => {
    if (!existsSync(file)) {
      const pair = /rsa/i.test(path.basename(file))
        ? ssh2.utils.generateKeyPairSync('rsa', { bits: 3072, comment: 'hearth host key' })
        : ssh2.utils.generateKeyPairSync('ed25519', { comment: 'hearth host key' });
      mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      const staging = `${file}.${process.pid}.tmp`;
      writeFileSync(staging, pair.private, { mode: 0o600 });
      writeFileSync(`${file}.pub`, `${pair.public}\n`, { mode: 0o644 });
      renameSync(staging, file);
    }
    const key = readFileSync(file);
    const parsed = ssh2.utils.parseKey(key);
    if (parsed instanceof Error) throw new Error(`SSH_SERVER_HOST_KEYS: ${file} is not a private key ssh2 reads (${parsed.message})`);
    return key;
  });
}
