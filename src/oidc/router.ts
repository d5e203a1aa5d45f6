import type { IncomingMessage, RequestListener } from 'node:http';
import express, { type RequestHandler, type Router } from 'express';
import type Provider from 'oidc-provider';
import type { Config } from '../config/config.js';
import type { Logger } from '../log/logger.js';
import type { EndedSessions, Services } from '../service/index.js';
import { requestIdOf } from '../web/request-id.js';
import { BackchannelLogouts, type OidcMetrics } from './backchannel.js';
import { createInteractionRouter } from './interactions.js';
import { endOidcSessions } from './member-logout.js';
import type { SignedOut } from './member-session.js';
import { refusalView, type OidcPages } from './pages.js';
import { GET_ONLY_ROUTES, isProviderPath, ROUTES } from './paths.js';
import { createProvider, prepareOutgoingRequests } from './provider.js';
import { requestingClient, type RequestingClient } from './requesting-site.js';
import { clientsOfSession } from './session-clients.js';
import { unavailableAnswer } from './unavailable.js';

export type { OidcMetrics } from './backchannel.js';
export type { OidcPageName, OidcPages } from './pages.js';

export interface OidcDeps {
  config: Config;
  services: Services;
  logger: Logger;
  pages: OidcPages;
  metrics?: OidcMetrics | undefined;
  /** Member sessions ended at the end-session endpoint: where the browser goes first (src/oidc/member-session.ts). */
  signedOut?: SignedOut | undefined;
}

export interface OidcFeature {
  /** The provider's routes, for the app to mount; they answer only while the provider is on. */
  router: Router;
  /** Member sessions ended: their OpenID sessions end too (the services' session events). */
  sessionsEnded(ended: EndedSessions): void;
  /** The client whose sign-in a return address continues (its name), for the sign-in page to show and its session to say. */
  requestingSite(returnUrl: string): Promise<RequestingClient | undefined>;
  /** The names of the clients a member session signed the member in to, for the staff console. */
  clientsOfSession(memberSessionId: string): Promise<string[]>;
}

/**
 * The OpenID provider, on the member sessions. It is on while PUBLIC_URL (its issuer) is set and a client is
 * registered; otherwise its paths are not found, as any other unknown path, and nothing of it is built (without
 * PUBLIC_URL, nothing is mounted at all). It is built on the first request that reaches it, and again whenever
 * the published signing keys change (a rotation, on this instance or another).
 */
export function createOidc(deps: OidcDeps): OidcFeature {
  const { config, services, logger } = deps;
  const issuer = config.publicUrl;
  if (issuer === undefined) return { router: express.Router(), sessionsEnded: () => undefined, requestingSite: async () => undefined, clientsOfSession: async () => [] };
  const backchannel = new BackchannelLogouts(logger, deps.metrics);
  // Tokens signed with a retired key are checked for as long as they live: the key is published that long.
  const keepRetiredMs = config.oidc.tokenLifetimeSeconds * 1000;
  let built: { kids: string; provider: Provider; listener: RequestListener } | undefined;

  const current = async () => {
    const keys = await services.oidc.keys.signingKeys(keepRetiredMs);
    const kids = keys.map((key) => key.kid).join(' ');
    if (built?.kids !== kids) {
      if (built === undefined) await prepareOutgoingRequests();
      const provider = createProvider({ ...deps, backchannel }, issuer, keys);
      built = { kids, provider, listener: provider.callback() };
    }
    return built;
  };
  const provider = async () => (await current()).provider;

  const router = express.Router();
  const mounted = express.Router();
  // Any other path, and every path while no client is registered, goes on to the app's next routes (404).
  mounted.use(async (req, _res, next) => next(isProviderPath(req.path) && (await services.oidc.clients.any()) ? undefined : 'router'));
  mounted.use(createInteractionRouter({ ...deps, provider }));
  for (const route of GET_ONLY_ROUTES) mounted.post(ROUTES[route], refusedPost(route, deps));
  mounted.use(async (req, res, next) => {
    const { listener } = await current();
    statePublicOrigin(req, issuer);
    // The authorization endpoint's answer may be the form_post page, which carries the code: a page like ours.
    if (req.path === ROUTES.authorization || req.path.startsWith(`${ROUTES.authorization}/`)) deps.pages.protect(req, res);
    await listener(req, res);
    // A path none of the provider's routes takes goes on to the app's 404, as any unknown path.
    if (!res.headersSent) next();
  });
  mounted.use(unavailableAnswer(deps.pages));
  router.use(config.basePath || '/', mounted);

  return {
    router,
    requestingSite: requestingClient({ issuer, basePath: config.basePath, services, provider }),
    clientsOfSession: (memberSessionId) => clientsOfSession(services, memberSessionId),
    sessionsEnded(ended) {
      const end = async () => {
        if (await services.oidc.clients.any()) await endOidcSessions(ended, { services, provider, backchannel, logger });
      };
      end().catch((error: unknown) => logger.error('oidc session end failed', { error: error instanceof Error ? error.message : String(error) }));
    },
  };
}

const POST_REFUSED = 'this endpoint takes GET requests only';

/** A POST to a route the provider answers by GET only: refused as the provider refuses a request, 405 and its page. */
function refusedPost(route: (typeof GET_ONLY_ROUTES)[number], { logger, pages }: Pick<OidcDeps, 'logger' | 'pages'>): RequestHandler {
  return (req, res) => {
    logger.info('oidc refused', { route, error: 'invalid_request', description: POST_REFUSED, requestId: requestIdOf(req) });
    res.status(405).setHeader('Allow', 'GET');
    res.type('html').send(pages.render(req, res, 'message', refusalView('invalid_request', POST_REFUSED)));
  };
}

/**
 * The provider writes its URLs from the request's scheme and host, which must be PUBLIC_URL's whatever the
 * request named: it reads them from these headers (it trusts them), which are set here over what the client sent.
 */
function statePublicOrigin(req: IncomingMessage, issuer: string): void {
  const url = new URL(issuer);
  req.headers['x-forwarded-proto'] = url.protocol.slice(0, -1);
  req.headers['x-forwarded-host'] = url.host;
}
