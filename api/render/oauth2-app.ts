import type { OAuth2AppRow } from '../../db/models/users/oauth2-apps.js';
import { iso } from './time.js';

/** The OAuth2Application definition. */
export interface ApiOAuth2Application {
  id: number;
  name: string;
  client_id: string;
  client_secret: string;
  confidential_client: boolean;
  redirect_uris: string[];
  created: string;
}

/** The secret is shown only in the answers to creation and update, which issue it; elsewhere it is empty. */
export function renderOAuth2Application(app: OAuth2AppRow, secret = ''): ApiOAuth2Application {
  return {
    id: app.id,
    name: app.name,
    client_id: app.client_id,
    client_secret: secret,
    confidential_client: app.confidential_client,
    redirect_uris: app.redirect_uris,
    created: iso(app.created),
  };
}
