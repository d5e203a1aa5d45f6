import type { Response } from 'express';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Config } from '../config/config.js';
import type { Logger } from '../log/logger.js';
import type { EndedSessions, Services } from '../service/index.js';
import { clientAddress } from '../web/client-address.js';
import { sessionCookieDomain } from '../web/endpoint-url.js';
import { cookieValues, loginCookieOptions } from '../web/login-cookie.js';
import { requestIdOf } from '../web/request-id.js';

/**
 * Where a sign-in through a client names, in the interaction's result, the member session the member signed in
 * again in place of (prompt=login, max_age): the browser holds the new one's cookie, and the old one ends.
 */
export const REPLACED_SESSION = 'replacedMemberSession';

/**
 * Member sessions the browser has just ended at the end-session endpoint, and where the provider sends it: where
 * to send it first (the SAML SPs of those sessions that only the browser can tell), or undefined. The app hands
 * it in; the provider knows nothing of who else is told.
 */
export type SignedOut = (ended: EndedSessions[], next: string) => Promise<string | undefined>;

/**
 * What the provider's routes do to the member session: signing in through a client ties the OpenID session to
 * the member session of the browser's login cookie (and ends the one it replaced); signing out at the
 * end-session endpoint ends that member session too and clears the login cookie (and the token cookie), as
 * signing out on the sign-in page does, and goes round the other sites to tell through the browser (signedOut)
 * before the provider's own redirect.
 */
/** The client the request is for, by its name when it has one (what staff read), else its id. */
function clientNameOf(ctx: KoaContextWithOIDC): string | null {
  const client = ctx.oidc.client;
  return client ? String(client.clientName ?? client.clientId) : null;
}

export async function followMemberSession(ctx: KoaContextWithOIDC, deps: { config: Config; services: Services; logger: Logger; signedOut?: SignedOut | undefined }): Promise<void> {
  const { config, services, logger } = deps;
  const { route, result } = ctx.oidc;
  const { signin } = config;
  const session = ctx.oidc.session;
  const cookies = cookieValues(ctx.req, signin.cookieName);
  const cookieDomain = sessionCookieDomain(ctx.req, config);
  // Only once the member is signed in: a resume that found another member's OpenID session first ends that one.
  if (route === 'resume' && result?.login && session?.accountId === result.login.accountId) {
    const linked = await services.oidc.sessions.link(session.uid, session.accountId, cookies, cookieDomain);
    if (!linked) logger.warn('oidc sign-in', { outcome: 'member-session-ended', requestId: requestIdOf(ctx.req) });
    services.events.record({
      type: 'oidc-signin',
      memberId: session.accountId,
      clientAddress: clientAddress(ctx.req, config.trustProxy),
      via: clientNameOf(ctx),
      requestId: requestIdOf(ctx.req),
      outcome: linked ? 'signed-in' : 'member-session-ended',
    });
    const replaced = result[REPLACED_SESSION];
    if (typeof replaced === 'string') await services.sessions.end(replaced);
  }
  if (route === 'end_session_confirm' && ctx.status === 303 && ctx.oidc.params?.['logout']) {
    // The provider ends the OpenID session of a member when another signed in on this browser since (on resume):
    // the browser's member session is the other member's, and stays.
    const browser = await services.oidc.sessions.signedIn(cookies, cookieDomain);
    if (browser && browser.member.id !== session?.accountId) return;
    const tokens = signin.tokenCookieName ? cookieValues(ctx.req, signin.tokenCookieName) : [];
    const from = { clientAddress: clientAddress(ctx.req, config.trustProxy), via: clientNameOf(ctx), requestId: requestIdOf(ctx.req) };
    const ended = await Promise.all([...cookies.map((cookie) => services.signin.signOut(cookie, from)), ...tokens.map((token) => services.signin.signOutToken(token, from))]);
    // The Express response the app handed the provider: its clearCookie writes what the sign-in page's does.
    const res = ctx.res as Response;
    res.clearCookie(signin.cookieName, loginCookieOptions(signin));
    if (signin.tokenCookieName) res.clearCookie(signin.tokenCookieName, loginCookieOptions(signin));
    logger.info('sign-out', { outcome: 'signed-out', through: 'oidc', requestId: requestIdOf(ctx.req) });
    const first = await deps.signedOut?.(ended.filter((which) => which !== null), ctx.response.get('Location'));
    // The provider's answer is a 303 already: Koa's redirect keeps that status and moves its Location.
    if (first !== undefined) ctx.redirect(first);
  }
}
