import type { RequestHandler } from 'express';
import { text } from '../form.js';
import type { AccountKit } from './kit.js';
import { showRefusal } from './refusals.js';

/**
 * The password form: the current password and the new one; every other session of the member ends, and the
 * sites of those sessions that only a browser can tell are told through this one (PageKit.afterSignOut).
 */
export function changePassword(account: AccountKit): RequestHandler {
  const { pages, signedOf, showAccount, log, doneEnding } = account;
  return async (req, res) => {
    const { member, session } = signedOf(res);
    const current = text(req.body, 'currentPassword') ?? '';
    const next = text(req.body, 'newPassword') ?? '';
    if (!current || !next) {
      const reason = !current && !next ? 'missing-both' : !current ? 'missing-current' : 'missing-next';
      return showAccount(req, res, 400, { problem: { form: 'password', reason } });
    }
    const { client, device, requestId } = pages.requestContext(req);
    const result = await pages.services.account.changePassword(member, current, next, session, client, device, requestId);
    if (!result.ok) return showRefusal(account, req, res, { action: 'change-password', form: 'password', recovery: false }, result);
    log(req, res, 'password-changed');
    await doneEnding(res, 'password-changed', result.endedSessions.map((sessionId) => ({ sessionId })));
  };
}
