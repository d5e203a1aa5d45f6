import type { IncomingMessage } from 'node:http';
import type { CookieOptions, Response } from 'express';
import type { SigninConfig } from '../config/config.js';

/**
 * Every value the request carries under this cookie name: a browser may send two (a host-only and a domain
 * cookie of the same name), and either may be the live one.
 */
export function cookieValues(req: IncomingMessage, name: string): string[] {
  const values: string[] = [];
  for (const pair of (req.headers.cookie ?? '').split(';')) {
    const equals = pair.indexOf('=');
    if (equals < 0 || pair.slice(0, equals).trim() !== name) continue;
    const value = decoded(pair.slice(equals + 1).trim().replace(/^"(.*)"$/, '$1'));
    if (value) values.push(value);
  }
  return values;
}

function decoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The login cookie's attributes; setting and clearing it must use the same ones, or the browser keeps it. */
export function loginCookieOptions(signin: SigninConfig): CookieOptions {
  return { domain: signin.cookieDomain, path: '/', httpOnly: true, secure: signin.cookieSecure, sameSite: 'lax' };
}

/**
 * Sets the login cookie a visit renewed (FORMS_SLIDING), with the attributes of sign-in's: outliving the browser
 * only when its ticket is persistent ("keep me signed in"). Nothing when the visit renewed none. The member pages
 * and the staff console both renew: a renewal not handed to the browser would strand its cookie.
 */
export function setRenewedLoginCookie(res: Response, signin: SigninConfig, renewed: { cookie: string; keepForMs: number | null } | null): void {
  if (!renewed) return;
  const lifetime = renewed.keepForMs === null ? {} : { maxAge: renewed.keepForMs };
  res.cookie(signin.cookieName, renewed.cookie, { ...loginCookieOptions(signin), ...lifetime });
}
