import type { ErrorRequestHandler } from 'express';
import { errors } from 'oidc-provider';
import { StoreUnavailableError } from '../service/index.js';
import { SIGN_IN_UNAVAILABLE, STORE_UNAVAILABLE_TEXT } from '../web/unavailable-text.js';
import { messageView, type OidcPages } from './pages.js';

/**
 * The store unable to write (a full disk, a read-only or locked database) as OAuth says it: 503 with
 * `temporarily_unavailable` (RFC 6749, 4.1.2.1), which oidc-provider renders as it renders its own refusals (the
 * error page, a JSON body, or back to the client with the error), instead of its 500 `server_error`. The cause is
 * the operator's: it is logged once per burst where the store's calls are watched (src/ops/store-availability.ts).
 */
export class TemporarilyUnavailable extends errors.OIDCProviderError {
  constructor(cause: StoreUnavailableError) {
    super(503, 'temporarily_unavailable', { cause });
    this.error_description = STORE_UNAVAILABLE_TEXT;
    // oidc-provider shows a 5xx error as `server_error` unless it is marked for the client to see.
    this.expose = true;
  }
}

/** `work`, with the store's unavailability turned into the provider's refusal; other errors unchanged. */
export async function asProviderRefusal<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw error instanceof StoreUnavailableError ? new TemporarilyUnavailable(error) : error;
  }
}


/**
 * The same refusal where it reaches the app's side of the provider (the sign-in and consent steps, the signing
 * key made on the first request): a browser gets the sign-in pages' 503 page, a client OAuth's JSON error.
 */
export function unavailableAnswer(pages: OidcPages): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (!(error instanceof StoreUnavailableError || error instanceof TemporarilyUnavailable) || res.headersSent) return next(error);
    res.status(503);
    if (req.accepts(['json', 'html']) === 'html') res.type('html').send(pages.render(req, res, 'message', messageView(SIGN_IN_UNAVAILABLE.title, SIGN_IN_UNAVAILABLE.message)));
    else res.json({ error: 'temporarily_unavailable', error_description: STORE_UNAVAILABLE_TEXT });
  };
}
