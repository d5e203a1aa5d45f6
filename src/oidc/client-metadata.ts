import type { ClientMetadata } from 'oidc-provider';
import type { OidcClientRow } from '../service/oidc/index.js';

/** The provider's metadata of a registered client: the code flow only, its secret's hash standing for the secret. */
export function clientMetadata(client: OidcClientRow): ClientMetadata {
  return {
    client_id: client.id,
    client_name: client.name,
    ...(client.secretHash === null
      ? { token_endpoint_auth_method: 'none' }
      : // client_secret_post is accepted too: the provider takes either for a client registered with one.
        { token_endpoint_auth_method: 'client_secret_basic', client_secret: client.secretHash }),
    redirect_uris: client.redirectUris,
    post_logout_redirect_uris: client.postLogoutRedirectUris,
    ...(client.backchannelLogoutUri === null
      ? {}
      : { backchannel_logout_uri: client.backchannelLogoutUri, backchannel_logout_session_required: true }),
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    first_party: client.firstParty,
  };
}
