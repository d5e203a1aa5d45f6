import bodyParser from 'body-parser';
import type { CookieOptions, Request, RequestHandler, Response } from 'express';
import type { Config } from '../config/config.js';
import type { Logger } from '../log/logger.js';
import type { SignInAttemptOutcome } from '../log/signin-outcomes.js';
import { holdsValidText, type EndedSessions, type Services } from '../service/index.js';
import { brandingView } from '../web/branding.js';
import { clientAddress } from '../web/client-address.js';
import { endpointUrl, sessionCookieDomain } from '../web/endpoint-url.js';
import { createHostPolicy } from '../web/host-policy.js';
import { requestIdOf } from '../web/request-id.js';
import { loginCookieOptions } from './cookies.js';
import { CsrfGuard } from './csrf.js';
import { relyingParty } from './passkey-party.js';
import { securityHeaders } from './security-headers.js';
import { loadTemplates, type PageName } from './templates.js';
import { deviceName } from './user-agent.js';
import { messageView, supportView } from './views.js';

/** Where sign-in attempts are counted besides the log; the app hands in src/ops/metrics.ts's. */
export interface SigninMetrics {
  signinAttempt(outcome: SignInAttemptOutcome): void;
}

/**
 * The site a return address sends the member back to, when it is the step of another site's sign-in request (an
 * OpenID client's or a SAML service provider's, by its display name), or undefined: the sign-in page names it,
 * and the session opened says it came through it. The app hands it in from the features that know those sites.
 */
export type RequestingSite = (returnUrl: string) => Promise<{ kind: 'oidc-client' | 'saml-sp'; name: string } | undefined>;

/**
 * Member sessions this browser has just ended, and where it was going: where to send it first (an identity
 * provider taking it round the sites of those sessions that only the browser can tell, then on to `next`), or
 * undefined. The app hands it in from the features that know those sites.
 */
export type SignedOut = (ended: EndedSessions[], next: string) => Promise<string | undefined>;

export interface SigninDeps {
  config: Config;
  services: Services;
  logger: Logger;
  metrics?: SigninMetrics | undefined;
  requestingSite?: RequestingSite | undefined;
  signedOut?: SignedOut | undefined;
}

/** What a request tells about where it comes from and how it reached the service. */
export interface RequestContext {
  /** The service's origin as the browser reached it. */
  ownOrigin: string;
  /** The domain sessions are issued for: COOKIE_DOMAIN, or the request's host. */
  cookieDomain: string;
  client: string;
  userAgent: string | undefined;
  /** The device as the member reads it in a mail ("Firefox on Windows"), from the User-Agent; undefined when not recognised. */
  device: string | undefined;
  /** The request's id (src/web/request-id.ts), as the log lines and the events name it. */
  requestId: string;
}

/**
 * What the sign-in, second-step and account pages share: templates, branding, security headers, the host
 * check, the sign-in form's CSRF guard, form parsing and the log of sign-in attempts. Made once per app.
 */
export interface PageKit extends SigninDeps {
  headers: RequestHandler;
  ownHost: RequestHandler;
  /** Refuses a query holding invalid text (src/service/valid-text.ts) with a 400 page. */
  readableQuery: RequestHandler;
  /** Reads a form body, and refuses it, or its query, when it holds invalid text. */
  readForm: RequestHandler;
  /** The sign-in form's guard (its nonce cookie is scoped to LOGIN_PATH). */
  loginCsrf: CsrfGuard;
  cookieOptions: CookieOptions;
  page(res: Response, status: number, name: PageName, view: object): void;
  requestContext(req: Request): RequestContext;
  /** The site whose sign-in a return address continues, for the page to name and the session opened to say (undefined: none). */
  siteOf(returnUrl: string | undefined): ReturnType<RequestingSite>;
  logAttempt(req: Request, outcome: SignInAttemptOutcome, client: string, extra?: Record<string, unknown>): void;
  /** Where the browser goes after it ended these sessions on its way to `next`: round their sites first (SignedOut), if any must be told. */
  afterSignOut(ended: EndedSessions[], next: string): Promise<string>;
}

/** Sign-in, sign-out and account forms are a few short fields; anything larger is not one of them. */
const FORM_LIMIT = '16kb';

/** A configured path matched literally (Express would read ':' or '*' in it as a pattern), in any letter case as on IIS. */
export function exactPath(path: string): RegExp {
  return new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/?$`, 'i');
}

/** A path below a configured one: `/Account` + `password` → `/Account/password`. */
export function subPath(base: string, name: string): string {
  return `${base.replace(/\/+$/, '')}/${name}`;
}

/** Templates load here, once, so that a broken template directory stops the start. */
export function createPageKit(deps: SigninDeps): PageKit {
  const { config, services, logger, metrics } = deps;
  const { signin } = config;
  const templates = loadTemplates(signin.branding.templateDir);
  const common = { ...brandingView(signin.branding), support: supportView(signin.support) };
  const hosts = createHostPolicy(config);

  const page = (res: Response, status: number, name: PageName, view: object) => {
    res.status(status).type('html').send(templates.render(name, { ...common, nonce: res.locals.styleNonce, ...view }));
  };

  /** The pages answer only where the request's host can stand for the service's own origin (src/web/host-policy.ts). */
  const ownHost: RequestHandler = (req, res, next) => {
    if (hosts.ownsOrigin(req)) return next();
    logger.warn('sign-in refused: host', { host: req.headers.host ?? null, requestId: requestIdOf(req) });
    const message = 'This page is served only at the service\'s own address. Its operator sets that address with PUBLIC_URL or ALLOWED_HOSTS.';
    page(res, 400, 'message', messageView('Wrong address', message));
  };

  /** What no one types (a NUL, an unpaired surrogate) is refused before any field is read. */
  const readableText: RequestHandler = (req, res, next) => {
    if (holdsValidText(req.query) && holdsValidText(req.body)) return next();
    logger.info('sign-in refused: invalid text', { path: req.path, requestId: requestIdOf(req) });
    const message = 'What was sent holds a character that cannot be typed (a NUL or a broken character). Go back, type it again and send it.';
    page(res, 400, 'message', messageView('This form could not be read', message));
  };
  const parseForm = bodyParser.urlencoded({ extended: false, limit: FORM_LIMIT });

  const ownOrigin = (req: Request) => new URL(endpointUrl(req, config)).origin;
  return {
    ...deps,
    // Where passkeys can be used, the pages load their scripts, under the response's nonce.
    headers: securityHeaders(signin.branding.logoUrl, { passkeys: (req) => relyingParty(config, ownOrigin(req)) !== undefined }),
    ownHost,
    readableQuery: readableText,
    readForm: (req, res, next) => parseForm(req, res, (error?: unknown) => (error ? next(error) : readableText(req, res, next))),
    loginCsrf: new CsrfGuard({ path: signin.loginPath, secure: signin.cookieSecure, proof: (nonce) => services.signin.formProof(nonce) }),
    cookieOptions: loginCookieOptions(signin),
    page,
    requestContext: (req) => ({
      ownOrigin: ownOrigin(req),
      cookieDomain: sessionCookieDomain(req, config),
      client: clientAddress(req, config.trustProxy),
      userAgent: req.headers['user-agent'],
      device: deviceName(req.headers['user-agent']),
      requestId: requestIdOf(req),
    }),
    siteOf: async (returnUrl) => (returnUrl === undefined ? undefined : await deps.requestingSite?.(returnUrl)),
    logAttempt: (req, outcome, client, extra = {}) => {
      metrics?.signinAttempt(outcome);
      logger.info('sign-in', { outcome, client, ...extra, requestId: requestIdOf(req) });
    },
    afterSignOut: async (ended, next) => (await deps.signedOut?.(ended, next)) ?? next,
  };
}
