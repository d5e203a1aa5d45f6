import type { ErrorRequestHandler } from 'express';
import { StoreUnavailableError } from '../service/index.js';
import { SIGN_IN_UNAVAILABLE } from '../web/unavailable-text.js';
import type { PageKit } from './pages.js';
import { messageView } from './views.js';

/**
 * The pages' answer when the store cannot be written (a full disk, a read-only or locked database): 503 and a page
 * that asks the visitor to come back, rather than the internal error page. The cause is the operator's to read: it
 * is logged once per burst, with the database, where the store's calls are watched (src/ops/store-availability.ts).
 * Any other error goes on to the app's error handler.
 */
export function unavailablePage({ page }: Pick<PageKit, 'page'>): ErrorRequestHandler {
  return (error: unknown, _req, res, next) => {
    if (!(error instanceof StoreUnavailableError) || res.headersSent) return next(error);
    page(res, 503, 'message', messageView(SIGN_IN_UNAVAILABLE.title, SIGN_IN_UNAVAILABLE.message));
  };
}
