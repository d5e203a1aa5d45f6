import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../service/members.js';
import { recoveryLink } from '../service/recovery.js';
import { requestIdOf } from '../web/request-id.js';
import { cookieValues } from './cookies.js';
import { isSameOrigin } from './csrf.js';
import { returnParameter, text } from './form.js';
import { exactPath, type PageKit } from './pages.js';
import { forgotView, resetView, type ForgotProblem, type ResetProblem } from './recovery-views.js';
import { messageView } from './views.js';

/** Where the link's token waits between the link and the new password: out of the address the form's page is at. */
const TOKEN_COOKIE = 'recovery-token';

/** The sign-in page's notice after a password was reset (`?done=password-reset`). */
export const PASSWORD_RESET_NOTICE = 'Your password has been changed, and you have been signed out everywhere. Sign in with your new password.';

/** A path with the return address kept, when there is one. */
export function withReturn(path: string, returnUrl: string | undefined, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams({ ...(returnUrl ? { ReturnUrl: returnUrl } : {}), ...extra }).toString();
  return query ? `${path}?${query}` : path;
}

/**
 * Password recovery by email, below LOGIN_PATH: the page that asks for the account (`forgot`), the one answer
 * to it (`forgot/sent`), and the new-password page the mailed link opens (`reset?token=…`). On only with a mailer
 * (SMTP_URL): without, these paths are unknown ones. The sign-in form's CSRF guard (its nonce cookie is scoped to
 * LOGIN_PATH, so it reaches these), host check and security headers hold here too. The link's token leaves the
 * address at once: its answer (Referrer-Policy: no-referrer, so that the address goes nowhere) keeps the token in
 * an HttpOnly cookie of the page's path and redirects to the page without it. The page's own form then keeps the
 * usual policy, under which the browser sends its Origin (no-referrer would make it `null`, which the origin check
 * refuses). The cookie is SameSite=Lax: the link comes from a mail, another site, and the redirect is that
 * navigation's. The return address (ReturnUrl, ReturnPage)
 * goes along the whole way, the mailed link included, back to the sign-in page. Logged: one `recovery` line per
 * form sent, with its outcome; never the login typed, the token, the link or a password.
 */
export function createRecoveryRouter(kit: PageKit): Router {
  const { config, services, logger, headers, ownHost, readableQuery, readForm, loginCsrf: csrf, page } = kit;
  const { signin } = config;
  const paths = { ...signin.recoveryPaths, sent: `${signin.recoveryPaths.request}/sent` };

  const log = (req: Request, outcome: string, fields: Record<string, unknown> = {}) =>
    logger.info('recovery', { outcome, client: kit.requestContext(req).client, ...fields, requestId: requestIdOf(req) });

  /** Same origin and a valid CSRF proof, before anything is read or changed. */
  const checked: RequestHandler = (req, res, next) => {
    if (isSameOrigin(req, kit.requestContext(req).ownOrigin) && csrf.verify(req, text(req.body, 'csrf'))) return next();
    log(req, 'refused:csrf');
    const message = 'For your security, the form could not be checked. Open the page again and try from there.';
    const link = { href: withReturn(paths.request, returnParameter(req.body)), text: 'Reset your password' };
    page(res, 403, 'message', messageView('This form has expired', message, link));
  };

  const enabled: RequestHandler = (_req, _res, next) => next(services.recovery.enabled ? undefined : 'router');

  const tokenCookie = { path: paths.reset, httpOnly: true, sameSite: 'lax' as const, secure: signin.cookieSecure };
  const tokenOf = (req: Request) => cookieValues(req, TOKEN_COOKIE).find((value) => value !== '') ?? '';

  const showForgot = (req: Request, res: Response, status: number, state: { returnUrl: string | undefined; login?: string; problem?: ForgotProblem }) => {
    if (state.problem?.reason === 'throttled') res.setHeader('Retry-After', String(state.problem.retryAfterSeconds));
    const view = forgotView({ action: paths.request, csrfToken: csrf.issue(req, res), signInHref: withReturn(signin.loginPath, state.returnUrl), ...state });
    page(res, status, 'forgot', view);
  };

  const showReset = (req: Request, res: Response, status: number, state: { returnUrl: string | undefined; problem?: ResetProblem }) => {
    const rules = { minPasswordLength: MIN_PASSWORD_LENGTH, maxPasswordLength: MAX_PASSWORD_LENGTH };
    page(res, status, 'reset-password', resetView({ action: paths.reset, csrfToken: csrf.issue(req, res), ...rules, ...state }));
  };

  /** A link that is not (or no longer) good: expired, used, replaced by a newer one, or never one. */
  const showInvalid = (res: Response, returnUrl: string | undefined) => {
    const message = 'This link to reset your password has expired or has been used already. Links work once, and only the newest one works.';
    page(res, 400, 'message', messageView('This link no longer works', message, { href: withReturn(paths.request, returnUrl), text: 'Ask for a new link' }));
  };

  const router = express.Router();
  const route = (path: string) => router.route(exactPath(path)).all(enabled, headers, ownHost, readableQuery);

  route(paths.request)
    .get((req, res) => showForgot(req, res, 200, { returnUrl: returnParameter(req.query) }))
    .post(readForm, checked, async (req, res) => {
      const returnUrl = returnParameter(req.body);
      const login = text(req.body, 'login') ?? '';
      if (!login.trim()) return showForgot(req, res, 400, { returnUrl, problem: { reason: 'missing' } });
      const { ownOrigin, client, device } = kit.requestContext(req);
      // The mail's link carries the return address as sign-in would go there (this service, or an origin a caller
      // registered), never an address a stranger chose.
      const linkReturn = returnUrl === undefined ? undefined : (await services.returnUrls.resolve(returnUrl, ownOrigin)).location;
      const result = await services.recovery.request({
        login,
        clientAddress: client,
        device,
        requestId: requestIdOf(req),
        link: (token) => recoveryLink(`${ownOrigin}${paths.reset}`, token, linkReturn),
      });
      if (!result.ok) {
        log(req, 'throttled');
        return showForgot(req, res, 429, { returnUrl, login, problem: result });
      }
      // One outcome whatever the login named: the log tells no more than the page.
      log(req, 'requested');
      res.redirect(303, withReturn(paths.sent, returnUrl));
    });

  route(paths.sent).get((req, res) => {
    const minutes = services.recovery.validMinutes;
    const message = `If an account matches what you entered, we have sent a link to its email address. The link works for ${minutes} minutes. If no mail arrives, check your spam folder, or ask for a new link.`;
    const back = { href: withReturn(signin.loginPath, returnParameter(req.query)), text: 'Back to sign in' };
    page(res, 200, 'message', { ...messageView('Check your email', message, back), noMailHelp: true });
  });

  route(paths.reset)
    .get(async (req, res) => {
      const returnUrl = returnParameter(req.query);
      const linked = text(req.query, 'token');
      if (linked !== undefined) {
        // The link itself: its address (the token) goes to no other page, nor into the form's.
        res.setHeader('Referrer-Policy', 'no-referrer');
        if (!(await services.recovery.check(linked))) return showInvalid(res, returnUrl);
        res.cookie(TOKEN_COOKIE, linked, tokenCookie);
        return res.redirect(303, withReturn(paths.reset, returnUrl));
      }
      if (!(await services.recovery.check(tokenOf(req)))) return showInvalid(res, returnUrl);
      showReset(req, res, 200, { returnUrl });
    })
    .post(readForm, checked, async (req, res) => {
      const password = text(req.body, 'newPassword') ?? '';
      const returnUrl = returnParameter(req.body);
      if (!password) return showReset(req, res, 400, { returnUrl, problem: 'missing' });
      const { client, device, requestId } = kit.requestContext(req);
      const result = await services.recovery.redeem(tokenOf(req), password, { client, device }, requestId);
      if (!result.ok) {
        log(req, result.reason);
        if (result.reason === 'invalid') return showInvalid(res, returnUrl);
        return showReset(req, res, 400, { returnUrl, problem: result.reason });
      }
      log(req, 'password-reset', { member: result.member.id });
      res.clearCookie(TOKEN_COOKIE, tokenCookie);
      res.redirect(303, withReturn(signin.loginPath, returnUrl, { done: 'password-reset' }));
    });

  return router;
}
