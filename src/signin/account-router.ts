import express, { type RequestHandler, type Router } from 'express';
import { isNotice } from './account-views.js';
import { createAccountKit, type AccountKit } from './account/kit.js';
import { changePassword } from './account/password.js';
import { addPasskey, passkeyOptions, removePasskey, renamePasskey } from './account/passkeys.js';
import { endOtherSessions, endSession } from './account/sessions.js';
import { beginSetup, confirmSetup, removeSecondFactor, setupPage } from './account/two-step.js';
import { exactPath, type PageKit } from './pages.js';
import { passkeyCeremony } from './passkey-ceremony.js';

/**
 * The member's own account page at ACCOUNT_PATH: change the password, see and end their sessions, turn the
 * second factor on and off, add, rename and remove passkeys, each form by a handler of its own (src/signin/account/). Every page needs a live
 * session (else the sign-in page, coming back here after); every form carries a CSRF proof bound to a nonce
 * cookie of its own, scoped to the account path, and must come from the service's own origin. After a change
 * the browser is sent back to the page (303), so a reload repeats nothing.
 */
export function createAccountRouter(kit: PageKit, passkeyScripts: readonly string[]): Router {
  const account = createAccountKit(kit, passkeyScripts);
  const ceremony = passkeyCeremony(kit, { cookieName: 'passkey-add', path: account.paths.self, csrf: account.csrf });
  const { paths, signedIn, checked } = account;
  const { headers, ownHost, readableQuery, readForm } = kit;

  const router = express.Router();
  const route = (path: string) => router.route(exactPath(path)).all(headers, ownHost, readableQuery);
  // A form's address asked for by GET goes to the page.
  const post = (path: string) => route(path).get((_req, res) => res.redirect(303, paths.self));
  const form = (handler: RequestHandler) => [readForm, checked, signedIn, handler];

  route(paths.self).get(signedIn, accountPage(account));
  post(paths.password).post(form(changePassword(account)));
  post(paths.endSession).post(form(endSession(account)));
  post(paths.endOthers).post(form(endOtherSessions(account)));
  route(paths.setup).get(signedIn, setupPage(account)).post(form(beginSetup(account)));
  post(paths.confirm).post(form(confirmSetup(account)));
  post(paths.remove).post(form(removeSecondFactor(account)));
  // The options' CSRF check is the ceremony's own, which answers JSON.
  post(paths.passkeyOptions).post(readForm, signedIn, passkeyOptions(account, ceremony));
  post(paths.addPasskey).post(form(addPasskey(account, ceremony)));
  post(paths.renamePasskey).post(form(renamePasskey(account)));
  post(paths.removePasskey).post(form(removePasskey(account)));
  return router;
}

/** The page itself, with the notice of the change just made (`?done=…`, one of the fixed notices). */
function accountPage(account: AccountKit): RequestHandler {
  return async (req, res) => {
    const notice = req.query.done;
    await account.showAccount(req, res, 200, isNotice(notice) ? { notice } : {});
  };
}
