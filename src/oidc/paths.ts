/**
 * Where the provider answers, below BASE_PATH: discovery where OpenID Connect Discovery puts it, everything else
 * under /oidc. A request for any other path never reaches the provider.
 */
const DISCOVERY_PATH = '/.well-known/openid-configuration';
const OIDC_PREFIX = '/oidc';

/** oidc-provider's routes, relative to BASE_PATH. */
export const ROUTES = {
  authorization: `${OIDC_PREFIX}/auth`,
  token: `${OIDC_PREFIX}/token`,
  userinfo: `${OIDC_PREFIX}/me`,
  jwks: `${OIDC_PREFIX}/jwks`,
  end_session: `${OIDC_PREFIX}/session/end`,
  revocation: `${OIDC_PREFIX}/token/revocation`,
  introspection: `${OIDC_PREFIX}/token/introspection`,
  pushed_authorization_request: `${OIDC_PREFIX}/request`,
} as const;

/**
 * The routes oidc-provider answers by GET only: its HTTP POST methods need session cookies sent on cross-site
 * POSTs (SameSite=None), which this service does not set.
 */
export const GET_ONLY_ROUTES = ['authorization', 'end_session'] as const;

/** The sign-in step of an authorization request (src/oidc/interactions.ts), relative to BASE_PATH. */
export const INTERACTION_PREFIX = `${OIDC_PREFIX}/interaction`;

/** Whether a path (below BASE_PATH) is the provider's. */
export function isProviderPath(path: string): boolean {
  return path === DISCOVERY_PATH || path.startsWith(`${OIDC_PREFIX}/`);
}
