import type { Response } from 'express';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Config } from '../config/config.js';
import type { Logger } from '../log/logger.js';
import type { Services } from '../service/index.js';
import { sessionCookieDomain } from '../web/endpoint-url.js';
import { cookieValues, loginCookieOptions } from '../web/login-cookie.js';
import { requestIdOf } from '../web/request-id.js';

/**
 * What the provider's routes do to the member session: signing in through a client ties the new OpenID session
 * to the member session of the browser's login cookie; signing out at the end-session endpoint ends that member
 * session too and clears the login cookie (and the token cookie), as signing out on the sign-in page does.
 */
export async function followMemberSession(ctx: KoaContextWithOIDC, deps: { config: Config; services: Services; logger: Logger }): Promise<void> {
  const { config, services, logger } = deps;
  const { route } = ctx.oidc;
  const { signin } = config;
  const session = ctx.oidc.session;
  if (route === 'resume' && ctx.oidc.result?.login && session?.accountId) {
    const cookies = cookieValues(ctx.req, signin.cookieName);
    const linked = await services.oidc.sessions.link(session.uid, session.accountId, cookies, sessionCookieDomain(ctx.req, config));
    if (!linked) logger.warn('oidc sign-in', { outcome: 'member-session-ended', requestId: requestIdOf(ctx.req) });
  }
  if (route === 'end_session_confirm' && ctx.status === 303 && ctx.oidc.params?.['logout']) {
    const tokens = signin.tokenCookieName ? cookieValues(ctx.req, signin.tokenCookieName) : [];
    await Promise.all([
      ...cookieValues(ctx.req, signin.cookieName).map((cookie) => services.signin.signOut(cookie)),
      ...tokens.map((token) => services.signin.signOutToken(token)),
    ]);
    // The Express response the app handed the provider: its clearCookie writes what the sign-in page's does.
    const res = ctx.res as Response;
    res.clearCookie(signin.cookieName, loginCookieOptions(signin));
    if (signin.tokenCookieName) res.clearCookie(signin.tokenCookieName, loginCookieOptions(signin));
    logger.info('sign-out', { outcome: 'signed-out', through: 'oidc', requestId: requestIdOf(ctx.req) });
  }
}

