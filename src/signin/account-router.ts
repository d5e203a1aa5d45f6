import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import type { AccountResult } from '../service/account.js';
import { ServiceError } from '../service/errors.js';
import type { MemberRow, SessionRow } from '../service/index.js';
import { MAX_PASSWORD_LENGTH } from '../service/members.js';
import { requestIdOf } from '../web/request-id.js';
import { accountView, isNotice, type AccountPaths, type AccountProblem, type Notice } from './account-views.js';
import { cookieValues } from './cookies.js';
import { CsrfGuard, isSameOrigin } from './csrf.js';
import { text } from './form.js';
import { exactPath, subPath, type PageKit } from './pages.js';
import { qrSvg } from './qr.js';
import { setRenewedCookie } from './renewed-cookie.js';
import { recoveryCodesView, setupView, type CodeProblem } from './step-views.js';
import { messageView } from './views.js';
import { MIN_PASSWORD_LENGTH } from '../service/members.js';

/** The service's rule for new passwords (MemberService.setPassword), said on the form before it is broken. */

/** The signed-in member and the session of this request, once `signedIn` has found them. */
interface Signed {
  member: MemberRow;
  session: SessionRow;
}

/**
 * The member's own account page at ACCOUNT_PATH: change the password, see and end their sessions, turn the
 * second factor on and off. Every page needs a live session (else the sign-in page, coming back here after);
 * every form carries a CSRF proof bound to a nonce cookie of its own, scoped to the account path, and must
 * come from the service's own origin. After a change the browser is sent back to the page (303), so a reload
 * repeats nothing.
 */
export function createAccountRouter(kit: PageKit): Router {
  const { config, services, logger, headers, ownHost, readableQuery, readForm, page } = kit;
  const { signin } = config;
  const base = signin.accountPath.replace(/\/+$/, '') || '/';
  const paths: AccountPaths = {
    self: signin.accountPath,
    password: subPath(base, 'password'),
    setup: subPath(base, 'two-step'),
    confirm: subPath(base, 'two-step/confirm'),
    remove: subPath(base, 'two-step/off'),
    endSession: subPath(base, 'sessions/end'),
    endOthers: subPath(base, 'sessions/end-others'),
    logout: signin.logoutPath,
  };
  const csrf = new CsrfGuard({ path: base, cookieName: 'account-csrf', secure: signin.cookieSecure, proof: (nonce) => services.signin.formProof(nonce) });
  const signInHref = `${signin.loginPath}?ReturnUrl=${encodeURIComponent(signin.accountPath)}`;

  const signedOf = (res: Response): Signed => res.locals.account as Signed;

  /** One `account` line per change asked for: what came of it, whose, from where; never a password or code. */
  const log = (req: Request, res: Response, outcome: string, fields: Record<string, unknown> = {}) => {
    const member = (res.locals.account as Signed | undefined)?.member.id;
    logger.info('account', { outcome, ...(member ? { member } : {}), client: kit.requestContext(req).client, ...fields, requestId: requestIdOf(req) });
  };

  /**
   * The live session of the login cookie (renewed, FORMS_SLIDING, when its ticket is old); without one, the
   * sign-in page, which comes back here.
   */
  const signedIn: RequestHandler = async (req, res, next) => {
    const { cookieDomain } = kit.requestContext(req);
    for (const cookie of cookieValues(req, signin.cookieName)) {
      const visit = await services.signin.current(cookie, cookieDomain);
      if (!visit) continue;
      setRenewedCookie(kit, res, visit.renewed);
      res.locals.account = { member: visit.member, session: visit.session } satisfies Signed;
      return next();
    }
    res.redirect(303, signInHref);
  };

  /** Same origin and a valid CSRF proof, before anything is read or changed. */
  const checked: RequestHandler = (req, res, next) => {
    const { ownOrigin } = kit.requestContext(req);
    if (isSameOrigin(req, ownOrigin) && csrf.verify(req, text(req.body, 'csrf'))) return next();
    log(req, res, 'refused:csrf');
    const message = 'For your security, the form could not be checked. Open your account page again and make the change from there.';
    page(res, 403, 'message', messageView('This form has expired', message, { href: signin.accountPath, text: 'Go to your account page' }));
  };

  const showAccount = async (req: Request, res: Response, status: number, extra: { notice?: Notice; problem?: AccountProblem }) => {
    const { member, session } = signedOf(res);
    const [sessions, twoStep] = await Promise.all([services.account.liveSessions(member.id), services.secondFactor.status(member.id)]);
    const view = accountView({
      member,
      currentSessionId: session.id,
      sessions,
      twoStep,
      mfaRequired: signin.mfa === 'required',
      minPasswordLength: MIN_PASSWORD_LENGTH,
      maxPasswordLength: MAX_PASSWORD_LENGTH,
      csrfToken: csrf.issue(req, res),
      paths,
      ...extra,
    });
    if (extra.problem?.reason === 'throttled') res.setHeader('Retry-After', String(extra.problem.retryAfterSeconds));
    page(res, status, 'account', view);
  };

  /** After a change: back to the page, which says what was done. */
  const done = (res: Response, notice: Notice) => res.redirect(303, `${signin.accountPath}?done=${notice}`);

  /** A refusal of the account service, as the page shows it. */
  const refusal = (form: 'password' | 'remove', result: Exclude<AccountResult, { ok: true }>, recovery: boolean): AccountProblem =>
    result.reason === 'throttled'
      ? { form, reason: 'throttled', retryAfterSeconds: result.retryAfterSeconds ?? 60, recovery }
      : form === 'password'
        ? { form, reason: result.reason === 'wrong-code' ? 'wrong-password' : result.reason }
        : { form, reason: result.reason === 'wrong-code' ? 'wrong-code' : 'wrong-password', recovery };
  const refusalStatus = (problem: AccountProblem) => (problem.reason === 'throttled' ? 429 : problem.reason.startsWith('wrong-') ? 401 : 400);

  const showSetup = async (req: Request, res: Response, status: number, problem?: CodeProblem) => {
    const { member } = signedOf(res);
    const setup = await services.secondFactor.pendingSetup(member.id, accountName(member));
    if (!setup) return res.redirect(303, signin.accountPath);
    const view = setupView({
      action: paths.confirm,
      hidden: [{ name: 'csrf', value: csrf.issue(req, res) }],
      secret: setup.secret,
      qrSvg: await qrSvg(setup.uri),
      required: false,
      cancelHref: signin.accountPath,
      cancelText: 'Cancel and go back to your account',
      problem,
    });
    page(res, status, 'setup', view);
  };

  const router = express.Router();
  const route = (path: string) => router.route(exactPath(path)).all(headers, ownHost, readableQuery);
  const post = (path: string) => route(path).get((_req, res) => res.redirect(303, signin.accountPath));

  route(paths.self).get(signedIn, async (req, res) => {
    const notice = req.query.done;
    await showAccount(req, res, 200, isNotice(notice) ? { notice } : {});
  });

  post(paths.password).post(readForm, checked, signedIn, async (req, res) => {
    const { member, session } = signedOf(res);
    const current = text(req.body, 'currentPassword') ?? '';
    const next = text(req.body, 'newPassword') ?? '';
    if (!current || !next) {
      const reason = !current && !next ? 'missing-both' : !current ? 'missing-current' : 'missing-next';
      return showAccount(req, res, 400, { problem: { form: 'password', reason } });
    }
    const { client, device } = kit.requestContext(req);
    const result = await services.account.changePassword(member, current, next, session, client, device);
    if (!result.ok) {
      log(req, res, result.reason, { action: 'change-password' });
      const problem = refusal('password', result, false);
      return showAccount(req, res, refusalStatus(problem), { problem });
    }
    log(req, res, 'password-changed');
    done(res, 'password-changed');
  });

  post(paths.endSession).post(readForm, checked, signedIn, async (req, res) => {
    const { member, session } = signedOf(res);
    const id = text(req.body, 'session') ?? '';
    // This session ends by signing out; the list offers only the others.
    if (id === session.id || !(await services.account.endSession(member.id, id))) {
      return showAccount(req, res, 400, { problem: { form: 'sessions', reason: 'not-found' } });
    }
    log(req, res, 'session-ended', { count: 1 });
    done(res, 'session-ended');
  });

  post(paths.endOthers).post(readForm, checked, signedIn, async (req, res) => {
    const { member, session } = signedOf(res);
    const count = await services.account.endOtherSessions(member.id, session.id);
    log(req, res, 'session-ended', { count });
    done(res, 'sessions-ended');
  });

  // Set-up: a new secret (POST), shown by GET until it is confirmed, so that a reload shows the same one.
  route(paths.setup)
    .get(signedIn, (req, res) => showSetup(req, res, 200))
    .post(readForm, checked, signedIn, async (_req, res) => {
      const { member } = signedOf(res);
      try {
        await services.secondFactor.beginSetup(member.id, accountName(member));
      } catch (error) {
        if (!(error instanceof ServiceError && error.code === 'SECOND_FACTOR_ENABLED')) throw error;
        return res.redirect(303, signin.accountPath);
      }
      res.redirect(303, paths.setup);
    });

  post(paths.confirm).post(readForm, checked, signedIn, async (req, res) => {
    const { member } = signedOf(res);
    const code = text(req.body, 'code')?.trim() ?? '';
    if (!code) return showSetup(req, res, 400, { reason: 'missing' });
    let codes: string[] | null;
    try {
      const { client, device } = kit.requestContext(req);
      codes = await services.secondFactor.confirmSetup(member.id, code, { by: 'account', from: { client, device } });
    } catch (error) {
      // Nothing being set up (confirmed already, or turned off meanwhile): the page says how things are.
      if (!(error instanceof ServiceError && error.code === 'SECOND_FACTOR_NOT_PENDING')) throw error;
      return res.redirect(303, signin.accountPath);
    }
    if (!codes) {
      log(req, res, 'wrong-code', { action: 'add-second-factor' });
      return showSetup(req, res, 401, { reason: 'invalid' });
    }
    log(req, res, 'second-factor-added');
    page(res, 200, 'recovery-codes', recoveryCodesView(codes, `${signin.accountPath}?done=two-step-on`));
  });

  post(paths.remove).post(readForm, checked, signedIn, async (req, res) => {
    const { member } = signedOf(res);
    const password = text(req.body, 'password') ?? '';
    const typedCode = text(req.body, 'code')?.trim() ?? '';
    const recoveryCode = text(req.body, 'recovery')?.trim() ?? '';
    const recovery = !typedCode && recoveryCode !== '';
    const code = typedCode || recoveryCode;
    if (!password || !code) {
      const reason = !password && !code ? 'missing-both' : !password ? 'missing-password' : 'missing-code';
      return showAccount(req, res, 400, { problem: { form: 'remove', reason, recovery } });
    }
    const { client, device } = kit.requestContext(req);
    const result = await services.account.removeSecondFactor(member, password, code, client, device);
    if (!result.ok) {
      log(req, res, result.reason, { action: 'remove-second-factor' });
      const problem = refusal('remove', result, recovery);
      return showAccount(req, res, refusalStatus(problem), { problem });
    }
    log(req, res, 'second-factor-removed');
    done(res, 'two-step-off');
  });

  return router;
}

/** What authenticator apps show next to the issuer: the member's email, or else the username. */
function accountName(member: MemberRow): string {
  return member.email || member.username;
}
