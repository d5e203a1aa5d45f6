import { timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { randomSecret } from '../service/secrets.js';
import { cookieValues } from './cookies.js';

const DEFAULT_COOKIE = 'signin-csrf';
const NONCE = /^[A-Za-z0-9_-]{43}$/;

export interface CsrfOptions {
  /** The forms' path: the nonce cookie is sent there (and below it) only. */
  path: string;
  /** The nonce cookie's name; `signin-csrf` unless given (the account pages have one of their own). */
  cookieName?: string;
  secure: boolean;
  /** The server-keyed proof of a nonce (SignInService.formProof). */
  proof(nonce: string): string;
}

/**
 * Signed double-submit: the browser holds a random nonce in an HttpOnly, SameSite=Strict cookie, and the
 * form holds its proof under the server key. Another site can make the browser send the cookie on a
 * top-level POST at most, but can neither read it nor forge the proof that must come with it.
 */
export class CsrfGuard {
  readonly #cookie: string;

  constructor(private readonly options: CsrfOptions) {
    this.#cookie = options.cookieName ?? DEFAULT_COOKIE;
  }

  /** The form field's value; sets the nonce cookie when the visitor has none (kept otherwise, so open tabs stay valid). */
  issue(req: Request, res: Response): string {
    let nonce = cookieValues(req, this.#cookie).find((value) => NONCE.test(value));
    if (nonce === undefined) {
      nonce = randomSecret();
      res.cookie(this.#cookie, nonce, { path: this.options.path, httpOnly: true, sameSite: 'strict', secure: this.options.secure });
    }
    return this.options.proof(nonce);
  }

  verify(req: Request, submitted: unknown): boolean {
    if (typeof submitted !== 'string') return false;
    const given = Buffer.from(submitted);
    return cookieValues(req, this.#cookie).some((nonce) => {
      const expected = Buffer.from(this.options.proof(nonce));
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
  }
}

/** Browsers send Origin on every cross-site POST; a present one must be this service's own. */
export function isSameOrigin(req: Request, ownOrigin: string): boolean {
  const origin = req.headers.origin;
  return origin === undefined || origin === ownOrigin;
}
