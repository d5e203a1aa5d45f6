import express, { type Request, type Response, type Router } from 'express';
import type { PasskeySignIn } from '../service/passkeys.js';
import { isSameOrigin } from './csrf.js';
import { finishSignIn } from './finish.js';
import { returnParameter, text } from './form.js';
import { exactPath, subPath, type PageKit } from './pages.js';
import { loadPasskeyAssets } from './passkey-assets.js';
import { passkeyCeremony } from './passkey-ceremony.js';
import { relyingParty } from './passkey-party.js';
import type { LoginState, PasskeyOffer } from './views.js';

type ShowLogin = (req: Request, res: Response, status: number, state: Omit<LoginState, 'loginAction' | 'csrfToken' | 'requestingSite'>) => Promise<void>;

export interface PasskeySignInPages {
  /** The scripts, the options and the sign-in below LOGIN_PATH. */
  router: Router;
  /** The scripts a page loads to offer passkeys. */
  scripts: readonly string[];
  /** What the pages need to offer passkeys to this request (the scripts, the addresses), or undefined where they cannot be used. */
  offer(req: Request): PasskeyOffer | undefined;
}

/** The page's status for a refused passkey: 429 throttled, 400 a ceremony too old or unreadable, 403 a disabled member, else 401. */
function refusalStatus(reason: Exclude<PasskeySignIn, { ok: true }>['reason'] | 'unreadable'): number {
  return reason === 'throttled' ? 429 : reason === 'expired' || reason === 'unreadable' ? 400 : reason === 'member-disabled' ? 403 : 401;
}

/**
 * Signing in with a passkey on the sign-in page: the browser asks for options (a ceremony whose nonce it keeps in a
 * cookie scoped to LOGIN_PATH), lets the member choose a passkey (the button, or the username field's autofill),
 * and posts the answer as a form, which opens the session as a password does (finishSignIn) or shows the sign-in
 * page with why not. Both posts carry the sign-in form's CSRF proof.
 */
export function createPasskeySignIn(kit: PageKit, showLogin: ShowLogin): PasskeySignInPages {
  const { config, services, readForm, headers, ownHost } = kit;
  const base = subPath(config.signin.loginPath, 'passkey');
  const paths = { options: subPath(base, 'options'), signIn: base };
  const assets = loadPasskeyAssets(base);
  const ceremony = passkeyCeremony(kit, { cookieName: 'passkey-signin', path: base, csrf: kit.loginCsrf });

  const router = express.Router();
  router.use(assets.router);
  router
    .route(exactPath(paths.options))
    .all(headers, ownHost)
    .post(readForm, ceremony.options((_req, _res, rp) => services.passkeys.signInOptions(rp)));
  router
    .route(exactPath(paths.signIn))
    .all(headers, ownHost)
    .get((_req, res) => res.redirect(303, config.signin.loginPath))
    .post(readForm, async (req, res) => {
      const { ownOrigin, cookieDomain, client, userAgent, device, requestId } = kit.requestContext(req);
      const form = { remember: text(req.body, 'remember') !== undefined, returnUrl: returnParameter(req.body) };
      const nonce = ceremony.takeNonce(req, res);
      const rp = relyingParty(config, ownOrigin);
      const answer = ceremony.answer(req);
      if (!isSameOrigin(req, ownOrigin) || !kit.loginCsrf.verify(req, text(req.body, 'csrf')) || !rp || answer === undefined) {
        kit.logAttempt(req, 'incomplete', client, { step: 'passkey' });
        return showLogin(req, res, refusalStatus('unreadable'), { ...form, problem: { reason: 'passkey', refusal: 'unreadable' } });
      }
      const place = { cookieDomain, clientAddress: client, userAgent, device, requestId, persistent: form.remember };
      const result = await services.passkeys.signIn(nonce, answer, rp, place);
      if (result.ok) {
        kit.logAttempt(req, 'signed-in', client, { member: result.member.id, step: 'passkey' });
        return res.redirect(303, await finishSignIn(kit, res, result.issued, form, ownOrigin));
      }
      const outcome = result.reason === 'refused' ? 'invalid-passkey' : result.reason;
      kit.logAttempt(req, outcome, client, { step: 'passkey' });
      if (result.reason === 'throttled') res.setHeader('Retry-After', String(result.retryAfterSeconds));
      const problem = result.reason === 'throttled' ? { reason: 'throttled' as const, retryAfterSeconds: result.retryAfterSeconds } : { reason: 'passkey' as const, refusal: result.reason };
      return showLogin(req, res, refusalStatus(result.reason), { ...form, problem });
    });

  return {
    router,
    scripts: assets.paths,
    offer: (req) => (relyingParty(config, kit.requestContext(req).ownOrigin) ? { scripts: assets.paths, options: paths.options, action: paths.signIn } : undefined),
  };
}
