import type { Response } from 'express';
import type { RenewedCookie } from '../service/sessions.js';
import type { PageKit } from './pages.js';

/**
 * Sets the login cookie a visit renewed (FORMS_SLIDING), with the attributes of sign-in's: outliving the browser
 * only when its ticket is persistent ("keep me signed in"). Nothing when the visit renewed none.
 */
export function setRenewedCookie(kit: PageKit, res: Response, renewed: RenewedCookie | null): void {
  if (!renewed) return;
  const lifetime = renewed.keepForMs === null ? {} : { maxAge: renewed.keepForMs };
  res.cookie(kit.config.signin.cookieName, renewed.cookie, { ...kit.cookieOptions, ...lifetime });
}
