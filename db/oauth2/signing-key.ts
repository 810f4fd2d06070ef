import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { calculateJwkThumbprint, exportJWK, exportPKCS8, generateKeyPair, importJWK, importPKCS8, type JWK } from 'jose';

export const signingAlgorithm = 'RS256';

export interface SigningKey {
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  /** The public half as a JWK with its `kid`, `alg` and `use`, as `/login/oauth/keys` serves it. */
  publicJwk: JWK & { kid: string };
}

/**
 * The OAuth2 provider's signing key: made at first use (RS256, as Gitea's default) into `$HEARTH_DATA_DIR/jwt/private.pem`
 * and read from there afterwards, so tokens outlive restarts and every web process of one data directory signs alike.
 * Two processes making it at once: the exclusive create lets one win and the other read the winner's file.
 */
export class OAuth2SigningKeys {
  private loaded: Promise<SigningKey> | null = null;

  constructor(private readonly dataDir: string) {}

  get(): Promise<SigningKey> {
    this.loaded ??= this.load().catch((error: unknown) => {
      this.loaded = null;
      throw error;
    });
    return this.loaded;
  }

  private async load(): Promise<SigningKey> {
    const file = path.join(this.dataDir, 'jwt', 'private.pem');
    const pem = await readFile(file, 'utf8').catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
      const { privateKey } = await generateKeyPair(signingAlgorithm, { extractable: true, modulusLength: 2048 });
      const fresh = await exportPKCS8(privateKey);
      await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      try {
        await writeFile(file, fresh, { flag: 'wx', mode: 0o600 });
        return fresh;
      } catch (raced) {
        if ((raced as NodeJS.ErrnoException).code !== 'EEXIST') throw raced;
        return readFile(file, 'utf8');
      }
    });
    const privateKey = await importPKCS8(pem, signingAlgorithm, { extractable: true });
    const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicPart } = await exportJWK(privateKey);
    const kid = await calculateJwkThumbprint(publicPart);
    const publicKey = (await importJWK(publicPart, signingAlgorithm)) as CryptoKey;
    return { privateKey, publicKey, publicJwk: { ...publicPart, kid, alg: signingAlgorithm, use: 'sig' } };
  }
}
