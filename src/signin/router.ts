import bodyParser from 'body-parser';
import express, { type Request, type Response, type Router } from 'express';
import type { Config } from '../config/config.js';
import type { Logger } from '../log/logger.js';
import type { Services } from '../service/index.js';
import { withToken } from '../service/return-urls.js';
import type { SignInResult } from '../service/signin.js';
import { clientAddress } from '../web/client-address.js';
import { endpointUrl, sessionCookieDomain } from '../web/endpoint-url.js';
import { createHostPolicy } from '../web/host-policy.js';
import { requestIdOf } from '../web/request-id.js';
import { brandingView } from './branding.js';
import { cookieValues, loginCookieOptions } from './cookies.js';
import { CsrfGuard, isSameOrigin } from './csrf.js';
import { loginForm, returnParameter } from './form.js';
import { securityHeaders } from './security-headers.js';
import { loadTemplates, type PageName } from './templates.js';
import { loginView, messageView, signedInView, type LoginState } from './views.js';

/** How a sign-in attempt ended, as logged. */
export type SignInAttemptOutcome = 'signed-in' | 'invalid' | 'throttled' | 'incomplete' | 'refused:csrf';

/** Where sign-in attempts are counted besides the log; the app hands in src/ops/metrics.ts's. */
export interface SigninMetrics {
  signinAttempt(outcome: SignInAttemptOutcome): void;
}

export interface SigninDeps {
  config: Config;
  services: Services;
  logger: Logger;
  metrics?: SigninMetrics;
}

/** Sign-in and sign-out forms are a few short fields; anything larger is not one of them. */
const FORM_LIMIT = '16kb';

/** A configured path matched literally (Express would read ':' or '*' in it as a pattern), in any letter case as on IIS. */
function exactPath(path: string): RegExp {
  return new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/?$`, 'i');
}

/** The sign-in and sign-out pages. Templates load here, once, so a broken template directory stops the start. */
export function createSigninRouter({ config, services, logger, metrics }: SigninDeps): Router {
  const { signin } = config;
  const templates = loadTemplates(signin.branding.templateDir);
  const branding = brandingView(signin.branding);
  const csrf = new CsrfGuard({ path: signin.loginPath, secure: signin.cookieSecure, proof: (nonce) => services.signin.formProof(nonce) });
  const cookieOptions = loginCookieOptions(signin);
  const readForm = bodyParser.urlencoded({ extended: false, limit: FORM_LIMIT });
  const headers = securityHeaders(signin.branding.logoUrl);

  const page = (res: Response, status: number, name: PageName, view: object) => {
    res.status(status).type('html').send(templates.render(name, { ...branding, nonce: res.locals.styleNonce, ...view }));
  };
  const showLogin = (req: Request, res: Response, status: number, state: Omit<LoginState, 'loginAction' | 'csrfToken'>) =>
    page(res, status, 'login', loginView({ ...state, loginAction: signin.loginPath, csrfToken: csrf.issue(req, res) }));

  const hosts = createHostPolicy(config);
  /** The pages answer only where the request's host can stand for the service's own origin (src/web/host-policy.ts). */
  const ownHost = (req: Request, res: Response, next: () => void) => {
    if (hosts.ownsOrigin(req)) return next();
    logger.warn('sign-in refused: host', { host: req.headers.host ?? null, requestId: requestIdOf(req) });
    const message = 'This page is served only at the service\'s own address. Its operator sets that address with PUBLIC_URL or ALLOWED_HOSTS.';
    page(res, 400, 'message', messageView('Wrong address', message));
  };

  /** The service's origin and the cookie's domain as this request reached the service. */
  const requestContext = (req: Request) => {
    return { ownOrigin: new URL(endpointUrl(req, config)).origin, cookieDomain: sessionCookieDomain(req, config), client: clientAddress(req, config.trustProxy) };
  };

  const logAttempt = (req: Request, outcome: SignInAttemptOutcome, client: string, result?: SignInResult) => {
    metrics?.signinAttempt(outcome);
    logger.info('sign-in', { outcome, client, ...(result?.ok ? { member: result.member.id } : {}), requestId: requestIdOf(req) });
  };

  const router = express.Router();

  router
    .route(exactPath(signin.loginPath))
    .all(headers, ownHost)
    .get(async (req, res) => {
      const { cookieDomain } = requestContext(req);
      const returnUrl = returnParameter(req.query);
      for (const cookie of cookieValues(req, signin.cookieName)) {
        const member = await services.signin.current(cookie, cookieDomain);
        if (member) return page(res, 200, 'signed-in', signedInView(member, signin.logoutPath, returnUrl));
      }
      showLogin(req, res, 200, { returnUrl });
    })
    .post(readForm, async (req, res) => {
      const { ownOrigin, cookieDomain, client } = requestContext(req);
      const form = loginForm(req.body);
      if (!isSameOrigin(req, ownOrigin) || !csrf.verify(req, form.csrf)) {
        logAttempt(req, 'refused:csrf', client);
        const href = form.returnUrl ? `${signin.loginPath}?ReturnUrl=${encodeURIComponent(form.returnUrl)}` : signin.loginPath;
        const message = 'For your security, the form could not be checked. Open the sign-in page again and sign in from there.';
        return page(res, 403, 'message', messageView('This sign-in form has expired', message, { href, text: 'Go to the sign-in page' }));
      }
      const kept = { login: form.login, remember: form.remember, returnUrl: form.returnUrl };
      if (!form.login.trim() || !form.password) {
        logAttempt(req, 'incomplete', client);
        return showLogin(req, res, 400, { ...kept, problem: { reason: 'missing', login: !form.login.trim(), password: !form.password } });
      }
      const result = await services.signin.signIn({ login: form.login, password: form.password, clientAddress: client, cookieDomain });
      logAttempt(req, result.ok ? 'signed-in' : result.reason, client, result);
      if (!result.ok) {
        if (result.reason === 'throttled') res.setHeader('Retry-After', String(result.retryAfterSeconds));
        return showLogin(req, res, result.reason === 'throttled' ? 429 : 401, { ...kept, problem: result });
      }
      // "Keep me signed in" makes the cookie outlive the browser, for as long as the session can live.
      const lifetime = form.remember ? { maxAge: config.session.absoluteTimeoutSeconds * 1000 } : {};
      res.cookie(signin.cookieName, result.issued.cookie, { ...cookieOptions, ...lifetime });
      // ISGweb's partner plugins read the session token from a cookie of their own on the shared domain.
      if (signin.tokenCookieName) res.cookie(signin.tokenCookieName, result.issued.token, { ...cookieOptions, ...lifetime });
      const target = await services.returnUrls.resolve(form.returnUrl, ownOrigin);
      res.redirect(303, target.appendToken ? withToken(target.location, result.issued.token) : target.location);
    });

  // Sign-out needs no CSRF token, on GET (partner plugins link to it) or POST: it only ends the visitor's
  // own session, which a forged request could do no more than a link can.
  const signOut = async (req: Request, res: Response, returnUrl: string | undefined) => {
    const { ownOrigin, client } = requestContext(req);
    const tokens = signin.tokenCookieName ? cookieValues(req, signin.tokenCookieName) : [];
    const ended = await Promise.all([
      ...cookieValues(req, signin.cookieName).map((cookie) => services.signin.signOut(cookie)),
      ...tokens.map((token) => services.signin.signOutToken(token)),
    ]);
    logger.info('sign-out', { outcome: ended.includes(true) ? 'signed-out' : 'no-session', client, requestId: requestIdOf(req) });
    res.clearCookie(signin.cookieName, cookieOptions);
    if (signin.tokenCookieName) res.clearCookie(signin.tokenCookieName, cookieOptions);
    // Never a token here: the session it would name has just ended.
    res.redirect(303, (await services.returnUrls.resolve(returnUrl, ownOrigin)).location);
  };
  router
    .route(exactPath(signin.logoutPath))
    .all(headers, ownHost)
    .get((req, res) => signOut(req, res, returnParameter(req.query)))
    .post(readForm, (req, res) => signOut(req, res, returnParameter(req.body)));

  return router;
}
