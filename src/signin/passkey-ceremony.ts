import type { Request, RequestHandler, Response } from 'express';
import type { Ceremony, RelyingParty } from '../service/passkeys.js';
import { requestIdOf } from '../web/request-id.js';
import { cookieValues } from './cookies.js';
import { isSameOrigin, type CsrfGuard } from './csrf.js';
import { text } from './form.js';
import type { PageKit } from './pages.js';
import { relyingParty } from './passkey-party.js';

/** How long the browser keeps a ceremony's nonce: as long as its challenge is good (src/service/passkeys.ts). */
const NONCE_MAX_AGE_MS = 5 * 60_000;

/** A passkey ceremony's two steps, on the sign-in page or the account page: its options, then its answer. */
export interface PasskeyCeremony {
  /**
   * Answers the options for the browser as JSON (`{ options }`), the ceremony's nonce in an HttpOnly cookie; a
   * refusal as `{ error }`: a form not checked (403), passkeys not offered at this address (404), or what `begin`
   * refused the ceremony for, in its words (403).
   */
  options(begin: (req: Request, res: Response, rp: RelyingParty) => Promise<Ceremony<object> | { refused: string }>): RequestHandler;
  /** The nonce this browser holds (then forgotten: a ceremony is answered once), or ''. */
  takeNonce(req: Request, res: Response): string;
  /** The browser's answer (the `response` field: the helper's JSON), or undefined when it is not JSON of an object. */
  answer(req: Request): unknown;
}

/** `cookieName` holds the nonce, scoped to `path`; `csrf` checks the form's proof. */
export function passkeyCeremony(kit: PageKit, options: { cookieName: string; path: string; csrf: CsrfGuard }): PasskeyCeremony {
  const { cookieName, path, csrf } = options;
  const cookie = { path, httpOnly: true, sameSite: 'strict' as const, secure: kit.config.signin.cookieSecure };
  return {
    options: (begin) => async (req, res) => {
      const { ownOrigin } = kit.requestContext(req);
      res.setHeader('Cache-Control', 'no-store');
      if (!isSameOrigin(req, ownOrigin) || !csrf.verify(req, text(req.body, 'csrf'))) {
        kit.logger.info('passkey refused: csrf', { path: req.path, requestId: requestIdOf(req) });
        return res.status(403).json({ error: 'For your security, the page could not be checked. Reload it and try again.' });
      }
      const rp = relyingParty(kit.config, ownOrigin);
      if (!rp) return res.status(404).json({ error: 'Passkeys cannot be used at this address.' });
      const ceremony = await begin(req, res, rp);
      if ('refused' in ceremony) return res.status(403).json({ error: ceremony.refused });
      res.cookie(cookieName, ceremony.nonce, { ...cookie, maxAge: NONCE_MAX_AGE_MS });
      res.json({ options: ceremony.options });
    },
    takeNonce(req, res) {
      res.clearCookie(cookieName, cookie);
      return cookieValues(req, cookieName).at(-1) ?? '';
    },
    answer(req) {
      try {
        const parsed: unknown = JSON.parse(text(req.body, 'response') ?? '');
        return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : undefined;
      } catch {
        return undefined;
      }
    },
  };
}
