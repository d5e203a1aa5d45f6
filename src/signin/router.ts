import express, { type Request, type Response, type Router } from 'express';
import { requestIdOf } from '../web/request-id.js';
import { createAccountRouter } from './account-router.js';
import { cookieValues } from './cookies.js';
import { isSameOrigin } from './csrf.js';
import { finishSignIn } from './finish.js';
import { createHomePage } from './home-page.js';
import { loginForm, returnParameter, stepForm, text } from './form.js';
import { createPageKit, exactPath, type SigninDeps } from './pages.js';
import { createRecoveryRouter, PASSWORD_RESET_NOTICE, withReturn } from './recovery-router.js';
import { setRenewedLoginCookie } from '../web/login-cookie.js';
import { createPasskeySignIn } from './passkey-signin.js';
import { createSecondStep } from './second-step.js';
import { unavailablePage } from './unavailable.js';
import { loginView, messageView, signedInView, type LoginState } from './views.js';

export type { RequestingSite, SignedOut, SigninDeps, SigninMetrics } from './pages.js';

const SIGN_IN_AGAIN_NOTICE = 'The site you came from asks you to sign in again, to be sure it is you.';

/**
 * The sign-in and sign-out pages, the second step of a sign-in, the member's account page, password recovery and
 * the site's root.
 * Templates load here, once, so a broken template directory stops the start.
 */
export function createSigninRouter(deps: SigninDeps): Router {
  const kit = createPageKit(deps);
  const { config, services, logger, headers, ownHost, readableQuery, readForm, loginCsrf: csrf, cookieOptions, page } = kit;
  const { signin } = config;

  // "Forgot your password?" only where a link can be sent (SMTP_URL).
  const forgotHref = (returnUrl: string | undefined) => (services.recovery.enabled ? withReturn(signin.recoveryPaths.request, returnUrl) : undefined);
  const showLogin = async (req: Request, res: Response, status: number, state: Omit<LoginState, 'loginAction' | 'csrfToken' | 'requestingSite'>) => {
    const requestingSite = (await kit.siteOf(state.returnUrl))?.name;
    const fixed = { loginAction: signin.loginPath, csrfToken: csrf.issue(req, res), forgotHref: forgotHref(state.returnUrl), requestingSite, passkeys: passkeys.offer(req) };
    page(res, status, 'login', loginView({ ...state, ...fixed }));
  };
  const secondStep = createSecondStep(kit, showLogin);
  const passkeys = createPasskeySignIn(kit, showLogin);

  const router = express.Router();

  router
    .route(exactPath(signin.loginPath))
    .all(headers, ownHost, readableQuery)
    .get(async (req, res) => {
      const { cookieDomain } = kit.requestContext(req);
      const returnUrl = returnParameter(req.query);
      // A site asks for a fresh sign-in (an OpenID client's prompt=login): the form, even to a member signed in.
      const again = text(req.query, 'prompt') === 'login';
      for (const cookie of again ? [] : cookieValues(req, signin.cookieName)) {
        const visit = await services.signin.current(cookie, cookieDomain);
        if (!visit) continue;
        setRenewedLoginCookie(res, signin, visit.renewed);
        return page(res, 200, 'signed-in', signedInView(visit.member, { logoutAction: signin.logoutPath, accountHref: signin.accountPath }, returnUrl));
      }
      const notice = again ? SIGN_IN_AGAIN_NOTICE : req.query.done === 'password-reset' ? PASSWORD_RESET_NOTICE : undefined;
      await showLogin(req, res, 200, { returnUrl, notice });
    })
    .post(readForm, async (req, res) => {
      const { ownOrigin, cookieDomain, client, userAgent, device, requestId } = kit.requestContext(req);
      const form = loginForm(req.body);
      const step = stepForm(req.body);
      if (!isSameOrigin(req, ownOrigin) || !csrf.verify(req, form.csrf)) {
        kit.logAttempt(req, 'refused:csrf', client, step ? { step: step.step } : {});
        const href = form.returnUrl ? `${signin.loginPath}?ReturnUrl=${encodeURIComponent(form.returnUrl)}` : signin.loginPath;
        const message = 'For your security, the form could not be checked. Open the sign-in page again and sign in from there.';
        return page(res, 403, 'message', messageView('This sign-in form has expired', message, { href, text: 'Go to the sign-in page' }));
      }
      if (step) return secondStep.answer(req, res, step);
      const kept = { login: form.login, remember: form.remember, returnUrl: form.returnUrl };
      if (!form.login.trim() || !form.password) {
        kit.logAttempt(req, 'incomplete', client);
        return showLogin(req, res, 400, { ...kept, problem: { reason: 'missing', login: !form.login.trim(), password: !form.password } });
      }
      const result = await services.signin.signIn({
        login: form.login,
        password: form.password,
        clientAddress: client,
        cookieDomain,
        userAgent,
        device,
        requestId,
        persistent: form.remember,
        through: await kit.siteOf(form.returnUrl),
      });
      if (result.ok) {
        kit.logAttempt(req, 'signed-in', client, { member: result.member.id });
        return res.redirect(303, await finishSignIn(kit, res, result.issued, form, ownOrigin));
      }
      if (result.reason === 'second-factor') {
        // The password was right; the session waits for the code (or the set-up, MFA=required).
        kit.logAttempt(req, 'second-factor', client, { member: result.member.id, step: result.step });
        return secondStep.ask(req, res, result, kept);
      }
      kit.logAttempt(req, result.reason, client);
      if (result.reason === 'throttled') res.setHeader('Retry-After', String(result.retryAfterSeconds));
      return showLogin(req, res, result.reason === 'throttled' ? 429 : 401, { ...kept, problem: result });
    });

  // Sign-out needs no CSRF token, on GET (partner plugins link to it) or POST: it only ends the visitor's
  // own session, which a forged request could do no more than a link can.
  const signOut = async (req: Request, res: Response, returnUrl: string | undefined) => {
    const { ownOrigin, client, device, requestId } = kit.requestContext(req);
    const tokens = signin.tokenCookieName ? cookieValues(req, signin.tokenCookieName) : [];
    const from = { clientAddress: client, device, requestId };
    const ended = await Promise.all([
      ...cookieValues(req, signin.cookieName).map((cookie) => services.signin.signOut(cookie, from)),
      ...tokens.map((token) => services.signin.signOutToken(token, from)),
    ]);
    const endedSessions = ended.filter((which) => which !== null);
    logger.info('sign-out', { outcome: endedSessions.length > 0 ? 'signed-out' : 'no-session', client, requestId: requestIdOf(req) });
    res.clearCookie(signin.cookieName, cookieOptions);
    if (signin.tokenCookieName) res.clearCookie(signin.tokenCookieName, cookieOptions);
    // Never a token here: the session it would name has just ended.
    res.redirect(303, await kit.afterSignOut(endedSessions, (await services.returnUrls.resolve(returnUrl, ownOrigin)).location));
  };
  router
    .route(exactPath(signin.logoutPath))
    .all(headers, ownHost, readableQuery)
    .get((req, res) => signOut(req, res, returnParameter(req.query)))
    .post(readForm, (req, res) => signOut(req, res, returnParameter(req.body)));

  router.use(passkeys.router);
  router.use(createHomePage(kit));
  router.use(createAccountRouter(kit, passkeys.scripts));
  router.use(createRecoveryRouter(kit));
  router.use(unavailablePage(kit));

  return router;
}
