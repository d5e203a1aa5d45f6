import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import type { Registry } from 'prom-client';
import type { AdminPages } from './admin/pages.js';
import { ADMIN_PATH } from './admin/paths.js';
import { createAdminRouter } from './admin/router.js';
import { mountAsmx } from './bindings/asmx-routes.js';
import type { CallMetrics } from './bindings/call-log.js';
import { createRefusals, hostFilter, notFound, requestErrorHandler } from './bindings/request-errors.js';
import type { Config } from './config/config.js';
import type { Logger } from './log/logger.js';
import { createOidc, type OidcMetrics, type OidcPages } from './oidc/router.js';
import type { Refusal } from './log/refusal-log.js';
import type { Readiness } from './ops/readiness.js';
import { createSaml, type SamlMetrics, type SamlPages } from './saml/router.js';
import { fetchSpMetadata, spRegistration } from './saml/sp-metadata.js';
import { createOpsRouter, HEALTH_PATH, METRICS_PATH, READY_PATH } from './ops/routes.js';
import { createScimRouter } from './provisioning/router.js';
import type { EndedSessions, Services } from './service/index.js';
import { brandingView } from './web/branding.js';
import { CsrfGuard, isSameOrigin } from './signin/csrf.js';
import { createSigninRouter, type SigninMetrics } from './signin/router.js';
import { securityHeaders } from './signin/security-headers.js';
import { loadTemplates, type PageName } from './signin/templates.js';
import { deviceName } from './signin/user-agent.js';
import { clientAddress } from './web/client-address.js';
import { endpointUrl, siteRootUrl } from './web/endpoint-url.js';
import { createHostPolicy } from './web/host-policy.js';
import { REQUEST_ID_HEADER, requestIdOf } from './web/request-id.js';
import { STRICT_TRANSPORT_SECURITY, strictTransportSecurity } from './web/strict-transport.js';

export interface AppDeps {
  config: Config;
  services: Services;
  logger: Logger;
  readiness: () => Promise<Readiness>;
  /** Where calls and sign-ins are counted. */
  metrics?: (CallMetrics & SigninMetrics & OidcMetrics & SamlMetrics) | undefined;
  /** Where requests refused before a binding took them are recorded (src/log/refusal-log.ts). */
  recordRefusal: (refusal: Refusal) => void;
  /** Where the OpenID and SAML identity providers are handed to, to be told of member sessions that end (the services' session events). */
  onSessionsEnded?: ((listener: (ended: EndedSessions) => void) => void) | undefined;
  /** Served at /metrics on the main port when given (metrics on, no METRICS_PORT). */
  metricsRegistry?: Registry | undefined;
}

/** The SCIM root, outside BASE_PATH as identity providers expect it. */
const SCIM_PATH = '/scim/v2';

/** SCIM provisioning, on only while a provisioning client exists: until then its paths are unknown ones (404). */
function provisioning({ config, services, logger }: Pick<AppDeps, 'config' | 'services' | 'logger'>): RequestHandler {
  return createScimRouter({
    members: services.provisioning,
    groups: services.roles,
    clients: services.provisioners,
    logger,
    maxBodyBytes: config.maxBodyBytes,
    baseUrl: (req) => `${siteRootUrl(req, config)}${SCIM_PATH}`,
    clientAddress: (req) => clientAddress(req, config.trustProxy),
  });
}

/**
 * Renders a page of the templates in the sign-in pages' layout and branding, with their security headers;
 * `scripts` says which scripts may run (src/signin/security-headers.ts).
 */
function layoutPages(config: Config, scripts: { scriptHashes?: boolean; scriptNonce?: boolean } = {}) {
  const { branding } = config.signin;
  const templates = loadTemplates(branding.templateDir);
  const view = brandingView(branding);
  const headers = securityHeaders(branding.logoUrl, scripts);
  return (req: IncomingMessage, res: ServerResponse, name: PageName, page: object): string => {
    headers(req as Request, res as Response, () => {});
    return templates.render(name, { ...view, nonce: (res as Response).locals['styleNonce'], ...page });
  };
}

/** The OpenID provider's pages, in the sign-in pages' layout, branding and security headers. */
function oidcPages(config: Config): OidcPages {
  const providerPageHeaders = securityHeaders(config.signin.branding.logoUrl, { scriptHashes: true });
  return {
    render: layoutPages(config),
    protect(req, res) {
      providerPageHeaders(req as Request, res as Response, () => {});
    },
  };
}

/** The SAML identity provider's pages, in the sign-in pages' layout and branding; the post page's script runs under its nonce. */
function samlPages(config: Config): SamlPages {
  return { render: layoutPages(config, { scriptNonce: true }) };
}

/**
 * The staff console's pages, in the sign-in pages' layout, branding and security headers, with a CSRF guard of
 * its own (its nonce cookie scoped to ADMIN_PATH) and the member pages' reading of a User-Agent.
 */
function adminPages(config: Config, services: Services): AdminPages {
  const csrf = new CsrfGuard({ path: ADMIN_PATH, cookieName: 'admin-csrf', secure: config.signin.cookieSecure, proof: (nonce) => services.signin.formProof(nonce) });
  return {
    render: layoutPages(config),
    formToken: (req, res) => csrf.issue(req, res),
    formChecked: (req, submitted) => isSameOrigin(req, new URL(endpointUrl(req, config)).origin) && csrf.verify(req, submitted),
    deviceName,
  };
}

/**
 * The whole application as one Express app; it never listens (src/main.ts does). In order: with ALLOWED_HOSTS,
 * a request for another host is refused; the ASMX endpoint and its HTTP GET/POST sidecar, which take nearly
 * every request, with nothing else before them; /healthz, /readyz and /metrics; SCIM provisioning at
 * /scim/v2; the sign-in pages; the staff console (docs/staff.md); the OpenID provider (docs/oidc.md); the SAML identity provider; ASP.NET's 404 for anything else; one error
 * handler. Every response echoes the request's id (src/web/request-id.ts, given when first asked for) in
 * X-Request-Id and forbids content sniffing; one to a request that came over HTTPS has Strict-Transport-Security.
 */
export async function createApp({ config, services, logger, readiness, metrics, metricsRegistry, recordRefusal, onSessionsEnded }: AppDeps): Promise<Express> {
  const refuse = createRefusals(recordRefusal, (req) => clientAddress(req, config.trustProxy));
  const strictTransport = strictTransportSecurity(config);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (config.allowedHosts !== undefined) {
    const exempt = new Set([HEALTH_PATH, READY_PATH, METRICS_PATH]);
    const refuseHost: typeof refuse = (req, res, error) => {
      strictTransport(req);
      refuse(req, res, error);
    };
    app.use(hostFilter(createHostPolicy(config), exempt, refuseHost));
  }
  // ASMX responses write both headers among the others they write at once (src/bindings/asmx-response.ts);
  // every other response gets them here: setHeader would put every ASMX response on Node's slower header path.
  await mountAsmx(app, { config, authentication: services.authentication, logger, metrics, refuse });
  app.use((req, res, next) => {
    res.setHeader(REQUEST_ID_HEADER, requestIdOf(req));
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const strict = strictTransport(req);
    if (strict !== undefined) res.setHeader(STRICT_TRANSPORT_SECURITY, strict);
    next();
  });
  app.use(createOpsRouter({ readiness, metrics: metricsRegistry }, logger));
  app.use(SCIM_PATH, provisioning({ config, services, logger }));
  const saml = createSaml({ config, services, logger, metrics, pages: samlPages(config) });
  // Sessions a browser signed out of: the SAML SPs that only the browser can tell are told on its way out.
  const signedOut = (ended: EndedSessions[], next: string) => saml.signedOut(ended, next);
  const oidc = createOidc({ config, services, logger, metrics, pages: oidcPages(config), signedOut });
  onSessionsEnded?.((ended) => {
    oidc.sessionsEnded(ended);
    saml.sessionsEnded(ended);
  });
  // The sites that send members to the sign-in page with a request of their own: the OpenID clients and the SAML SPs.
  const requestingSite = async (returnUrl: string) => (await oidc.requestingSite(returnUrl)) ?? (await saml.requestingSite(returnUrl));
  app.use(createSigninRouter({ config, services, logger, metrics, requestingSite, signedOut }));
  const spMetadata = { register: spRegistration, fetch: (url: string) => fetchSpMetadata(url) };
  app.use(createAdminRouter({ config, services, logger, pages: adminPages(config, services), oidcClientsOf: oidc.clientsOfSession, spMetadata }));
  app.use(oidc.router);
  app.use(saml.router);
  app.use(notFound);
  app.use(requestErrorHandler(logger, refuse));
  return app;
}
