import type { RequestHandler } from 'express';
import { text } from '../form.js';
import type { AccountKit } from './kit.js';

/** Ends one of the member's other sessions; this one ends by signing out, and the list offers only the others. */
export function endSession(account: AccountKit): RequestHandler {
  const { pages, signedOf, showAccount, log, doneEnding } = account;
  return async (req, res) => {
    const { member, session } = signedOf(res);
    const id = text(req.body, 'session') ?? '';
    const { client, device, requestId } = pages.requestContext(req);
    if (id === session.id || !(await pages.services.account.endSession(member.id, id, { clientAddress: client, device, requestId }))) {
      return showAccount(req, res, 400, { problem: { form: 'sessions', reason: 'not-found' } });
    }
    log(req, res, 'session-ended', { count: 1 });
    await doneEnding(res, 'session-ended', [{ sessionId: id }]);
  };
}

/** Ends every session of the member but this one. */
export function endOtherSessions(account: AccountKit): RequestHandler {
  const { pages, signedOf, log, doneEnding } = account;
  return async (req, res) => {
    const { member, session } = signedOf(res);
    const { client, device, requestId } = pages.requestContext(req);
    const ended = await pages.services.account.endOtherSessions(member.id, session.id, { clientAddress: client, device, requestId });
    log(req, res, 'session-ended', { count: ended.length });
    await doneEnding(res, 'sessions-ended', ended.map((sessionId) => ({ sessionId })));
  };
}
