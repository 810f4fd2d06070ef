import type { GpgKeyEmail, GpgKeyRow, GpgKeyView } from '../../db/models/users/gpg-keys.js';
import { iso } from './time.js';

/** The GPGKey definition. Subkeys carry no addresses and no subkeys of their own (null, as Gitea sends them). */
export interface ApiGpgKey {
  id: number;
  primary_key_id: string;
  key_id: string;
  public_key: string;
  emails: GpgKeyEmail[] | null;
  subkeys: ApiGpgKey[] | null;
  can_sign: boolean;
  can_encrypt_comms: boolean;
  can_encrypt_storage: boolean;
  can_certify: boolean;
  verified: boolean;
  created_at: string;
  expires_at: string;
}

/** Gitea's zero time, which it shows for a key that never expires. */
const never = new Date('0001-01-01T00:00:00Z');

function renderKey(key: GpgKeyRow, emails: GpgKeyEmail[] | null, subkeys: ApiGpgKey[] | null): ApiGpgKey {
  return {
    id: key.id,
    primary_key_id: key.primary_key_id,
    key_id: key.key_id,
    public_key: key.content,
    emails,
    subkeys,
    can_sign: key.can_sign,
    can_encrypt_comms: key.can_encrypt_comms,
    can_encrypt_storage: key.can_encrypt_storage,
    can_certify: key.can_certify,
    verified: key.verified,
    created_at: iso(key.created),
    expires_at: iso(key.expires ?? never),
  };
}

export function renderGpgKey({ key, subkeys }: GpgKeyView): ApiGpgKey {
  return renderKey(key, key.emails.map(({ email, verified }) => ({ email, verified })), subkeys.map((subkey) => renderKey(subkey, null, null)));
}
