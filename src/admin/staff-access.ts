import type { Request, RequestHandler, Response } from 'express';
import type { Config } from '../config/config.js';
import type { Logger } from '../log/logger.js';
import type { Services } from '../service/index.js';
import type { StaffRole } from '../service/staff.js';
import { clientAddress } from '../web/client-address.js';
import { sessionCookieDomain } from '../web/endpoint-url.js';
import { cookieValues, setRenewedLoginCookie } from '../web/login-cookie.js';
import { requestIdOf } from '../web/request-id.js';
import type { AdminPages } from './pages.js';

/** The staff member of this request, once `staffOnly` has let it through. */
export interface Staff {
  memberId: string;
  role: StaffRole;
  /** Where the staff member acts from, as events and mails name it. */
  client: string;
  device: string | undefined;
}

export function staffOf(res: Response): Staff {
  return res.locals.staff as Staff;
}

/**
 * Lets through a member with a staff role whose session was opened with a second factor. Without a live session,
 * the sign-in page, which comes back here; a member who is not staff gets 403; one without a confirmed second
 * factor is sent to set it up on the account page, and one who set it up after signing in to sign in again with it.
 */
export function staffOnly(deps: { config: Config; services: Services; logger: Logger; pages: AdminPages }): RequestHandler {
  const { config, services, logger, pages } = deps;
  const { signin } = config;
  const refuse = (req: Request, res: Response, outcome: string, member: string, view: object) => {
    logger.warn('staff console refused', { outcome, member, path: req.path, requestId: requestIdOf(req) });
    res.status(403).type('html').send(pages.render(req, res, 'message', view));
  };
  return async (req, res, next) => {
    const cookieDomain = sessionCookieDomain(req, config);
    for (const cookie of cookieValues(req, signin.cookieName)) {
      const visit = await services.staff.visit(cookie, cookieDomain);
      if (!visit) continue;
      setRenewedLoginCookie(res, signin, visit.renewed);
      const member = visit.member.id;
      if (visit.role === null) {
        return refuse(req, res, 'not-staff', member, {
          title: 'Staff only',
          message: 'This page is for member-services staff. You are signed in, but your account has no staff role.',
          link: { href: signin.accountPath, text: 'Go to your account page' },
        });
      }
      if (visit.secondFactor === 'none') {
        return refuse(req, res, 'no-second-factor', member, {
          title: 'Set up two-step verification first',
          message: 'The staff console opens only to staff who sign in with a passkey or with a code from an authenticator app. Add a passkey or set up two-step verification on your account page, then sign in again.',
          link: { href: `${signin.accountPath.replace(/\/+$/, '')}/two-step`, text: 'Set up two-step verification' },
        });
      }
      if (visit.secondFactor === 'later') {
        return refuse(req, res, 'signed-in-without-second-factor', member, {
          title: 'Sign in again with your code',
          message: 'You set up two-step verification after you signed in. Sign out, then sign in again with a code from your authenticator app to open the staff console.',
          link: { href: signin.logoutPath, text: 'Sign out' },
        });
      }
      const client = clientAddress(req, config.trustProxy);
      res.locals.staff = { memberId: member, role: visit.role, client, device: pages.deviceName(req.headers['user-agent']) } satisfies Staff;
      return next();
    }
    res.redirect(303, `${signin.loginPath}?ReturnUrl=${encodeURIComponent(req.originalUrl)}`);
  };
}
