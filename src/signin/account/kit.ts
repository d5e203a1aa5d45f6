import type { Request, RequestHandler, Response } from 'express';
import type { EndedSessions, MemberRow, SessionRow } from '../../service/index.js';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../service/members.js';
import { requestIdOf } from '../../web/request-id.js';
import { accountView, type AccountPaths, type AccountProblem, type Notice } from '../account-views.js';
import { cookieValues } from '../cookies.js';
import { CsrfGuard, isSameOrigin } from '../csrf.js';
import { text } from '../form.js';
import { subPath, type PageKit } from '../pages.js';
import { setRenewedLoginCookie } from '../../web/login-cookie.js';
import { relyingParty } from '../passkey-party.js';
import { messageView } from '../views.js';

/** The signed-in member and the session of this request, once `signedIn` has found them. */
export interface Signed {
  member: MemberRow;
  session: SessionRow;
}

/** What the account page's form handlers share. Made once per app. */
export interface AccountKit {
  pages: PageKit;
  paths: AccountPaths;
  /** The account forms' guard: its nonce cookie is its own, scoped to the account path. */
  csrf: CsrfGuard;
  /**
   * The live session of the login cookie (renewed, FORMS_SLIDING, when its ticket is old); without one, the
   * sign-in page, which comes back here.
   */
  signedIn: RequestHandler;
  /** Same origin and a valid CSRF proof, before anything is read or changed. */
  checked: RequestHandler;
  signedOf(res: Response): Signed;
  /** One `account` line per change asked for: what came of it, whose, from where; never a password or code. */
  log(req: Request, res: Response, outcome: string, fields?: Record<string, unknown>): void;
  /** The account page, saying what was done or what went wrong. */
  showAccount(req: Request, res: Response, status: number, extra: { notice?: Notice; problem?: AccountProblem }): Promise<void>;
  /** After a change: back to the page (303, so that a reload repeats nothing), which says what was done. */
  done(res: Response, notice: Notice): void;
  /** After sessions were ended: back to the page as `done`, round the sites of those sessions first (PageKit.afterSignOut). */
  doneEnding(res: Response, notice: Notice, ended: EndedSessions[]): Promise<void>;
}

/** `passkeyScripts`: the scripts the page loads where passkeys can be used (src/signin/passkey-assets.ts). */
export function createAccountKit(pages: PageKit, passkeyScripts: readonly string[]): AccountKit {
  const { config, services, logger, page } = pages;
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
    passkeyOptions: subPath(base, 'passkeys/options'),
    addPasskey: subPath(base, 'passkeys/add'),
    renamePasskey: subPath(base, 'passkeys/rename'),
    removePasskey: subPath(base, 'passkeys/remove'),
    logout: signin.logoutPath,
  };
  const csrf = new CsrfGuard({ path: base, cookieName: 'account-csrf', secure: signin.cookieSecure, proof: (nonce) => services.signin.formProof(nonce) });
  const signInHref = `${signin.loginPath}?ReturnUrl=${encodeURIComponent(signin.accountPath)}`;
  // Adding a passkey needs a recent sign-in: the sign-in page asks again even of a member signed in.
  const signInAgainHref = `${signInHref}&prompt=login`;

  const signedOf = (res: Response): Signed => res.locals.account as Signed;

  const log = (req: Request, res: Response, outcome: string, fields: Record<string, unknown> = {}) => {
    const member = (res.locals.account as Signed | undefined)?.member.id;
    logger.info('account', { outcome, ...(member ? { member } : {}), client: pages.requestContext(req).client, ...fields, requestId: requestIdOf(req) });
  };

  const signedIn: RequestHandler = async (req, res, next) => {
    const { cookieDomain } = pages.requestContext(req);
    for (const cookie of cookieValues(req, signin.cookieName)) {
      const visit = await services.signin.current(cookie, cookieDomain);
      if (!visit) continue;
      setRenewedLoginCookie(res, signin, visit.renewed);
      res.locals.account = { member: visit.member, session: visit.session } satisfies Signed;
      return next();
    }
    res.redirect(303, signInHref);
  };

  const checked: RequestHandler = (req, res, next) => {
    const { ownOrigin } = pages.requestContext(req);
    if (isSameOrigin(req, ownOrigin) && csrf.verify(req, text(req.body, 'csrf'))) return next();
    log(req, res, 'refused:csrf');
    const message = 'For your security, the form could not be checked. Open your account page again and make the change from there.';
    page(res, 403, 'message', messageView('This form has expired', message, { href: signin.accountPath, text: 'Go to your account page' }));
  };

  const showAccount: AccountKit['showAccount'] = async (req, res, status, extra) => {
    const { member, session } = signedOf(res);
    const passkeysHere = relyingParty(config, pages.requestContext(req).ownOrigin) !== undefined;
    const [sessions, twoStep, passkeys] = await Promise.all([
      services.account.liveSessions(member.id),
      services.secondFactor.status(member.id),
      passkeysHere ? services.passkeys.list(member.id) : undefined,
    ]);
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
      passkeys: passkeys && { list: passkeys, scripts: passkeyScripts, recent: services.passkeys.isRecent(session), signInAgainHref },
      ...extra,
    });
    if (extra.problem?.reason === 'throttled') res.setHeader('Retry-After', String(extra.problem.retryAfterSeconds));
    page(res, status, 'account', view);
  };

  const doneHref = (notice: Notice) => `${signin.accountPath}?done=${notice}`;
  const done = (res: Response, notice: Notice) => res.redirect(303, doneHref(notice));
  const doneEnding = async (res: Response, notice: Notice, ended: EndedSessions[]) => res.redirect(303, await pages.afterSignOut(ended, doneHref(notice)));

  return { pages, paths, csrf, signedIn, checked, signedOf, log, showAccount, done, doneEnding };
}
