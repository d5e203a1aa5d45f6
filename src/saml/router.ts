import { randomBytes } from 'node:crypto';
import express, { type Router } from 'express';
import type { Config } from '../config/config.js';
import type { Logger } from '../log/logger.js';
import type { EndedSessions, Services } from '../service/index.js';
import { samlErrorPages } from './error-pages.js';
import { idpMetadata } from './idp-metadata.js';
import { LOGOUT_LIFETIME_MS, toldThroughBrowser, type LogoutPropagation } from './logout-propagation.js';
import type { SamlPages } from './pages.js';
import { idpUrls, SAML_PATHS } from './paths.js';
import { spMetadataReader } from './registered-sp.js';
import type { SamlMetrics } from './sign-in-answer.js';
import { createSloRoutes, endSamlSessions } from './slo-routes.js';
import { createSsoRoutes } from './sso-routes.js';

export type { SamlPageName, SamlPages } from './pages.js';
export type { SamlMetrics, SamlSignInOutcome } from './sign-in-answer.js';

export interface SamlDeps {
  config: Config;
  services: Services;
  logger: Logger;
  pages: SamlPages;
  metrics?: SamlMetrics | undefined;
}

export interface SamlFeature {
  /** The identity provider's routes, for the app to mount; they answer only while an SP is registered. */
  router: Router;
  /** Member sessions ended elsewhere: their SPs are told over the SOAP back channel (the services' session events). */
  sessionsEnded(ended: EndedSessions): void;
  /** The SP whose sign-in a return address continues (its name), for the sign-in page to show and its session to say. */
  requestingSite(returnUrl: string): Promise<{ kind: 'saml-sp'; name: string } | undefined>;
  /**
   * Member sessions the browser has just ended (a sign-out on the sign-in page, the account page, OpenID
   * end-session): where to send the browser first, for it to go round their SPs that are told through the
   * browser (src/saml/logout-propagation.ts) before going on to `next`; undefined when there is none.
   */
  signedOut(ended: EndedSessions[], next: string): Promise<string | undefined>;
}

const SAML_PREFIX = '/saml/';

/**
 * The SAML 2.0 identity provider, on the member sessions. It is on while PUBLIC_URL (its entity ID is
 * PUBLIC_URL/saml/metadata) is set and an SP is registered; otherwise its paths are not found, as any other
 * unknown path (without PUBLIC_URL, nothing is mounted at all).
 */
export function createSaml(deps: SamlDeps): SamlFeature {
  const { config, services, logger } = deps;
  const publicUrl = config.publicUrl;
  if (publicUrl === undefined) return { router: express.Router(), sessionsEnded: () => undefined, requestingSite: async () => undefined, signedOut: async () => undefined };
  const urls = idpUrls(publicUrl, config.basePath);
  const routeDeps = { ...deps, urls, metadataOf: spMetadataReader() };

  const mounted = express.Router();
  mounted.use(async (req, _res, next) => next(req.path.startsWith(SAML_PREFIX) && (await services.saml.sps.any()) ? undefined : 'router'));
  mounted.get(SAML_PATHS.metadata, async (_req, res) => {
    const published = await services.saml.keys.published();
    res.type('application/samlmetadata+xml').send(idpMetadata(urls, published.map((key) => key.certificatePem)));
  });
  mounted.use(createSsoRoutes(routeDeps));
  mounted.use(createSloRoutes(routeDeps));
  mounted.use(samlErrorPages(deps.pages, logger));
  const router = express.Router();
  router.use(config.basePath || '/', mounted);

  const origin = new URL(publicUrl).origin;
  const continuePrefix = `${config.basePath}${SAML_PATHS.continue}/`;
  return {
    router,
    async requestingSite(returnUrl) {
      const url = URL.parse(returnUrl, publicUrl);
      const handle = url?.origin === origin && url.pathname.startsWith(continuePrefix) ? decodeURIComponent(url.pathname.slice(continuePrefix.length)) : '';
      if (!/^[A-Za-z0-9_-]+$/.test(handle) || !(await services.saml.sps.any())) return undefined;
      const request = await services.saml.requests.find(handle);
      const name = request ? (await services.saml.sps.findById(request.spId))?.name : undefined;
      return name === undefined ? undefined : { kind: 'saml-sp', name };
    },
    async signedOut(ended, next) {
      if (ended.length === 0 || !(await services.saml.sps.any())) return undefined;
      const remaining: LogoutPropagation['remaining'] = [];
      for (const which of ended) remaining.push(...(await toldThroughBrowser(await services.saml.sessions.ofEnded(which), routeDeps)));
      const [first] = remaining;
      if (first === undefined) return undefined;
      // Told through this browser now, they leave; the back channel leaves them alone (src/saml/logout-propagation.ts).
      for (const participant of remaining) await services.saml.sessions.leave(participant.memberSessionId, participant.spId);
      const propagation: LogoutPropagation = { end: { next }, remaining, partial: false };
      // No SP's request started it: a random ID of the identity provider's own keeps it apart from every other.
      const requestId = `_idp-logout-${randomBytes(16).toString('hex')}`;
      const opened = await services.saml.requests.open({ spId: first.spId, requestId, kind: 'logout', payload: propagation, lifetimeMs: LOGOUT_LIFETIME_MS });
      return opened === 'replayed' ? undefined : urls.logoutPath(opened.handle);
    },
    sessionsEnded(ended) {
      const end = async () => {
        if (await services.saml.sps.any()) await endSamlSessions(ended, routeDeps);
      };
      end().catch((error: unknown) => logger.error('saml session end failed', { error: error instanceof Error ? error.message : String(error) }));
    },
  };
}
