import type { RequestHandler } from 'express';
import { text } from '../form.js';
import type { AccountKit } from './kit.js';

/** Ends one of the member's other sessions; this one ends by signing out, and the list offers only the others. */
export function endSession(account: AccountKit): RequestHandler {
  const { pages, signedOf, showAccount, log, done } = account;
  return async (req, res) => {
    const { member, session } = signedOf(res);
    const id = text(req.body, 'session') ?? '';
    if (id === session.id || !(await pages.services.account.endSession(member.id, id))) {
      return showAccount(req, res, 400, { problem: { form: 'sessions', reason: 'not-found' } });
    }
    log(req, res, 'session-ended', { count: 1 });
    done(res, 'session-ended');
  };
}

/** Ends every session of the member but this one. */
export function endOtherSessions(account: AccountKit): RequestHandler {
  const { pages, signedOf, log, done } = account;
  return async (req, res) => {
    const { member, session } = signedOf(res);
    const count = await pages.services.account.endOtherSessions(member.id, session.id);
    log(req, res, 'session-ended', { count });
    done(res, 'sessions-ended');
  };
}
