import { inTx } from '../../../db/data-source.js';
import { createToken } from '../../../db/models/users/tokens.js';
import { createUser } from '../../../db/models/users/users.js';
import { basicAuth, type TestHearth, type TestUser } from '../hearth.js';

export interface UserOptions {
  /** `user1`, `user2`, … when not given. */
  name?: string;
  /** NAME@example.com when not given. */
  email?: string;
  admin?: boolean;
  /** The scopes of the user's access token; `all` when not given. */
  scopes?: string[];
}

let unnamed = 0;

/** An individual user with the password `pw-NAME-secret` and one access token, ready to call the API as. */
export async function user(h: TestHearth, options: UserOptions = {}): Promise<TestUser> {
  const name = options.name ?? `user${++unnamed}`;
  const password = `pw-${name}-secret`;
  return inTx(h.deps, async (tx) => {
    const row = await createUser(
      tx,
      { username: name, email: options.email ?? `${name}@example.com`, password, is_admin: options.admin ?? false },
      { passwordAlgo: h.config.security.passwordHashAlgo },
    );
    const { token } = await createToken(tx, row, { name: 'test', scopes: options.scopes ?? ['all'] });
    return { user: row, password, token, basic: basicAuth(name, password), bearer: `token ${token}` };
  });
}
