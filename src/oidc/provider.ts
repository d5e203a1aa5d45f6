import Provider, { type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { Config } from '../config/config.js';
import type { Logger } from '../log/logger.js';
import { StoreUnavailableError, type Services } from '../service/index.js';
import type { SigningJwk } from '../service/oidc/index.js';
import { SIGN_IN_UNAVAILABLE } from '../web/unavailable-text.js';
import { InvalidTextError, storeAdapter } from './adapter.js';
import type { BackchannelLogouts } from './backchannel.js';
import { memberClaims, MULTI_FACTOR_ACR, SCOPE_CLAIMS } from './claims.js';
import { watchEvents } from './events.js';
import { followMemberSession, type SignedOut } from './member-session.js';
import { logoutView, messageView, refusalView, type OidcPageName, type OidcPages } from './pages.js';
import { INTERACTION_PREFIX, ROUTES } from './paths.js';
import { asProviderRefusal } from './unavailable.js';

export interface ProviderDeps {
  config: Config;
  services: Services;
  logger: Logger;
  pages: OidcPages;
  backchannel: BackchannelLogouts;
  /** Where the browser goes first after signing out at the end-session endpoint (src/oidc/member-session.ts). */
  signedOut?: SignedOut | undefined;
}

/** How long an authorization code lives: it is exchanged at once, by the client's server. */
const CODE_TTL_SECONDS = 60;
/** How long a member has to sign in (and set up a second factor) before the authorization request expires. */
const INTERACTION_TTL_SECONDS = 3600;

/**
 * oidc-provider configured for the member sessions: the code flow only (PKCE for public clients), ID tokens
 * signed with `keys`, the registered clients, the sign-in page for signing in, and every record in the store.
 */
export function createProvider(deps: ProviderDeps, issuer: string, keys: SigningJwk[]): Provider {
  const { config, services, pages } = deps;
  const { oidc } = services;
  const memberLifetime = config.session.absoluteTimeoutSeconds;
  const tokenLifetime = config.oidc.tokenLifetimeSeconds;

  const page = (ctx: KoaContextWithOIDC, name: OidcPageName, view: object) => {
    ctx.type = 'html';
    ctx.body = pages.render(ctx.req, ctx.res, name, view);
  };

  const renderError = (ctx: KoaContextWithOIDC, out: { error?: unknown; error_description?: unknown }) => {
    page(ctx, 'message', refusalView(String(out.error), String(out.error_description ?? '')));
  };

  const configuration: Configuration = {
    adapter: storeAdapter(oidc),
    jwks: { keys },
    cookies: { keys: oidc.cookieKeys },
    findAccount: (_ctx, id) =>
      asProviderRefusal(async () => {
        const member = await services.members.find(id);
        if (!member?.enabled) return undefined;
        return { accountId: member.id, claims: () => memberClaims(member) as { sub: string } };
      }),
    claims: { ...SCOPE_CLAIMS, sid: null },
    scopes: Object.keys(SCOPE_CLAIMS),
    acrValues: [MULTI_FACTOR_ACR],
    responseTypes: ['code'],
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
    // A client's secret is held as its hash, which no symmetric algorithm may use as a key.
    enabledJWA: { idTokenSigningAlgValues: ['RS256'] },
    allowOmittingSingleRegisteredRedirectUri: false,
    extraClientMetadata: { properties: ['first_party'] },
    routes: ROUTES,
    interactions: { url: (_ctx, interaction) => `${config.basePath}${INTERACTION_PREFIX}/${interaction.uid}` },
    // Refresh tokens for every client allowed them, each bound to the OpenID session, which lives as long as the
    // member session does; each use rotates it, and reusing a rotated one revokes the grant.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: async () => true,
    rotateRefreshToken: true,
    ttl: {
      AccessToken: tokenLifetime,
      IdToken: tokenLifetime,
      AuthorizationCode: CODE_TTL_SECONDS,
      Interaction: INTERACTION_TTL_SECONDS,
      Session: memberLifetime,
      Grant: memberLifetime,
      RefreshToken: memberLifetime,
    },
    async loadExistingGrant(ctx) {
      const client = ctx.oidc.client;
      const accountId = ctx.oidc.session?.accountId;
      if (!client || !accountId) return undefined;
      const grantId = ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session?.grantIdFor(client.clientId);
      const existing = grantId ? await ctx.oidc.provider.Grant.find(grantId) : undefined;
      if (existing || client['first_party'] !== true) return existing;
      // The organisation's own sites: their members are not asked to consent.
      const grant = new ctx.oidc.provider.Grant({ accountId, clientId: client.clientId });
      grant.addOIDCScope([...ctx.oidc.requestParamOIDCScopes].join(' '));
      await grant.save();
      return grant;
    },
    clientBasedCORS: (ctx, origin, client) =>
      (ctx.oidc.route === 'userinfo' || client.clientAuthMethod === 'none') && client.redirectUris?.some((uri) => URL.parse(uri)?.origin === origin) === true,
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: true },
      backchannelLogout: { enabled: true },
      // Only a confidential client, and only about its own tokens.
      introspection: { enabled: true, allowedPolicy: async (_ctx, client, token) => client.clientAuthMethod !== 'none' && token.clientId === client.clientId },
      revocation: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
      rpInitiatedLogout: {
        enabled: true,
        async logoutSource(ctx) {
          const secret = ctx.oidc.session?.state?.['secret'];
          const action = new URL(ctx.oidc.urlFor('end_session_confirm')).pathname;
          page(ctx, 'oidc-logout', logoutView(ctx.oidc.client?.clientName, action, typeof secret === 'string' ? secret : ''));
        },
        async postLogoutSuccessSource(ctx) {
          page(ctx, 'message', messageView('You have signed out', 'You are signed out of every site you signed in to with this account.'));
        },
      },
    },
    async renderError(ctx, out) {
      renderError(ctx, out);
    },
    // Back-channel logout URIs are the admin's, registered through the CLI: trusted as registered, those on
    // private or loopback addresses included, which oidc-provider's own dispatcher would refuse to reach.
    fetch: (url, options) => {
      const { dispatcher: _ssrfGuard, ...rest } = options as RequestInit & { dispatcher?: unknown };
      return globalThis.fetch(url, rest);
    },
  };

  const provider = new Provider(issuer, configuration);
  // Behind the app: src/oidc/router.ts states PUBLIC_URL's scheme and host in X-Forwarded-Proto and -Host.
  provider.proxy = true;
  provider.Client.prototype.compareClientSecret = function compareClientSecret(this: { clientSecret?: string }, given: string) {
    return this.clientSecret !== undefined && oidc.clients.secretMatches(this.clientSecret, given);
  };
  // The adapter refuses a record holding invalid text; one the provider keeps after its route has answered (the
  // session at the end of a logout) is refused here, as the route's own refusals are shown.
  provider.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (!(error instanceof InvalidTextError)) throw error;
      ctx.status = error.statusCode;
      renderError(ctx as KoaContextWithOIDC, error);
    }
  });
  provider.use(async (ctx, next) => {
    await next();
    // No route of the provider took the request (oidc-provider gives a context to those it routes): it is left
    // unanswered, for the app to answer as any unknown path (src/oidc/router.ts).
    if ((ctx as { oidc?: unknown }).oidc === undefined) {
      ctx.respond = false;
      return;
    }
    try {
      await followMemberSession(ctx as KoaContextWithOIDC, deps);
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      // The route's own answer (a redirect) stands for nothing the member session did not follow.
      ctx.remove('Location');
      ctx.status = 503;
      page(ctx as KoaContextWithOIDC, 'message', messageView(SIGN_IN_UNAVAILABLE.title, SIGN_IN_UNAVAILABLE.message));
    }
  });
  watchEvents(provider, deps);
  return provider;
}

/**
 * oidc-provider guards its outgoing requests (which the configuration's `fetch` sets aside) with a dispatcher
 * made from Node's global one, which Node makes at its first fetch(). Without it, the provider writes a warning
 * to the console when it first posts a back-channel logout: one fetch of a data: URL, without any network,
 * makes it first.
 */
export async function prepareOutgoingRequests(): Promise<void> {
  await (await fetch('data:,')).arrayBuffer();
}
