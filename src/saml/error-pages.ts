import type { ErrorRequestHandler } from 'express';
import type { Logger } from '../log/logger.js';
import { StoreUnavailableError } from '../service/index.js';
import { requestIdOf } from '../web/request-id.js';
import { SIGN_IN_UNAVAILABLE } from '../web/unavailable-text.js';
import { messageView, type SamlPages } from './pages.js';

/** What body-parser's errors carry: a 4xx status and a `type` (entity.too.large, parameters.too.many...). */
interface BodyError {
  status: number;
  type: string;
}

const isBodyError = (error: unknown): error is BodyError => {
  const { status, type } = (error ?? {}) as Partial<BodyError>;
  return typeof type === 'string' && type !== 'request.aborted' && typeof status === 'number' && status >= 400 && status < 500;
};

/**
 * What the identity provider's routes answer, in the sign-in pages' layout, when a request cannot be taken up at
 * all, instead of ASP.NET's error pages: the store unable to write (a full disk, a read-only or locked database)
 * is the sign-in pages' 503 page, whose cause is logged once per burst where the store's calls are watched
 * (src/ops/store-availability.ts); a form body-parser refuses (larger than any SAML message) a page with its
 * status. A browser brought the request, and the site it came from learns nothing either way: no SAML status
 * is posted, as no SP was verified yet. Any other error goes on to the app's handler.
 */
export function samlErrorPages(pages: SamlPages, logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) return next(error);
    if (error instanceof StoreUnavailableError) {
      res.status(503).type('html').send(pages.render(req, res, 'message', messageView(SIGN_IN_UNAVAILABLE.title, SIGN_IN_UNAVAILABLE.message)));
      return;
    }
    if (!isBodyError(error)) return next(error);
    logger.info('saml request', { outcome: 'refused', reason: `an unreadable form (${error.type})`, requestId: requestIdOf(req) });
    const text = 'The site you came from sent a message this service cannot read. Go back to that site and try again.';
    res.status(error.status).type('html').send(pages.render(req, res, 'message', messageView('This request could not be read', text)));
  };
}
