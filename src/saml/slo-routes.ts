import bodyParser from 'body-parser';
import express, { type Request, type Response, type Router } from 'express';
import type { Config } from '../config/config.js';
import type { EndedSessions } from '../service/index.js';
import type { SamlSp } from '../service/saml/index.js';
import { clientAddress } from '../web/client-address.js';
import { sessionCookieDomain } from '../web/endpoint-url.js';
import { cookieValues, loginCookieOptions } from '../web/login-cookie.js';
import { requestIdOf } from '../web/request-id.js';
import { CLOCK_SKEW_MS } from './authn-request.js';
import { tellOverBackChannel, type BackChannelDeps } from './back-channel.js';
import type { LogoutRequestMsg } from './inbound/messages.js';
import { readInbound } from './inbound/read-inbound.js';
import { answered, answersAsked, goOn, LOGOUT_LIFETIME_MS, toldThroughBrowser, type LogoutPropagation } from './logout-propagation.js';
import { messageView } from './pages.js';
import { SAML_PATHS } from './paths.js';
import type { AnswerDeps } from './sign-in-answer.js';
import { soapEndpoint } from './slo-endpoints.js';
import { inboundOf, MESSAGE_FORM_LIMIT } from './sso-routes.js';

export interface SloDeps extends AnswerDeps {
  config: Config;
}

/**
 * Ends the SAML participations of member sessions that ended (the services' session events, whatever ended
 * them): each SP with a SOAP logout endpoint is told over the back channel. The others are left to the browser
 * (src/saml/logout-propagation.ts) when it signed out; a participation never told goes with its session.
 */
export async function endSamlSessions(ended: EndedSessions, deps: BackChannelDeps): Promise<void> {
  for (const participant of await deps.services.saml.sessions.ofEnded(ended)) await tellOverBackChannel(participant, deps);
}

/**
 * Single Logout started by an SP (a signed LogoutRequest over HTTP-Redirect or HTTP-POST): the member sessions
 * it names end as DeleteUserSession ends them (the OpenID sessions and every other SP with them); the other SPs
 * are told through the browser, one after the other, or over SOAP when they have a SOAP logout endpoint; then the
 * SP that asked gets its LogoutResponse. A sign-out elsewhere goes round the SPs the same way, from
 * /saml/slo/continue/{handle}.
 */
export function createSloRoutes(deps: SloDeps): Router {
  const { config, services, logger, pages, urls, metadataOf } = deps;
  const router = express.Router();

  const refused = (req: Request, res: Response, reason: string, sp?: SamlSp) => {
    deps.metrics?.samlLogout('refused');
    logger.info('saml logout', { outcome: 'refused', ...(sp ? { sp: sp.name } : {}), reason, requestId: requestIdOf(req) });
    res.status(400).type('html').send(pages.render(req, res, 'message', messageView('Signing out could not continue', `The site you came from sent a sign-out this service cannot take (${reason}).`)));
  };

  /** The member sessions an SP's LogoutRequest names: its participations by that NameID, of those SessionIndexes if it gives any. */
  const named = async (sp: SamlSp, request: LogoutRequestMsg) => {
    const found = await services.saml.sessions.find(sp.id, request.nameId.value);
    return request.sessionIndexes.length === 0 ? found : found.filter((participant) => request.sessionIndexes.includes(participant.sessionIndex));
  };

  const logoutRequestFrom = async (req: Request, res: Response, sp: SamlSp, request: LogoutRequestMsg, relayState: string | undefined) => {
    const now = Date.now();
    if (request.destination !== urls.slo) return refused(req, res, 'a Destination other than this identity provider', sp);
    if ((request.notOnOrAfter !== undefined && request.notOnOrAfter <= now) || request.issueInstant < now - LOGOUT_LIFETIME_MS || request.issueInstant > now + CLOCK_SKEW_MS) {
      return refused(req, res, 'an expired request', sp);
    }
    const end = { spId: sp.id, inResponseTo: request.id, ...(relayState === undefined ? {} : { relayState }) };
    const propagation: LogoutPropagation = { end, remaining: [], partial: false };
    const opened = await services.saml.requests.open({ spId: sp.id, requestId: request.id, kind: 'logout', payload: propagation, lifetimeMs: LOGOUT_LIFETIME_MS });
    if (opened === 'replayed') return refused(req, res, 'a request ID used before (a replay)', sp);
    const participations = await named(sp, request);
    const sessions = [...new Set(participations.map((participant) => participant.memberSessionId))];
    for (const sessionId of sessions) {
      await services.saml.sessions.leave(sessionId, sp.id);
      const others = await services.saml.sessions.ofSession(sessionId);
      const browser = await toldThroughBrowser(others, deps);
      // Told here, they leave now; those with a SOAP endpoint are told by the session's end (endSamlSessions).
      for (const other of browser) await services.saml.sessions.leave(sessionId, other.spId);
      propagation.remaining.push(...browser);
      for (const other of others.filter((participant) => !browser.includes(participant))) {
        const otherSp = await services.saml.sps.findById(other.spId);
        if (!otherSp || soapEndpoint(metadataOf(otherSp)) === undefined) propagation.partial = true;
      }
      const memberId = participations.find((participant) => participant.memberSessionId === sessionId)?.memberId;
      // The member signed out at the SP: their sign-out, through it.
      if (await services.sessions.end(sessionId)) {
        services.events.record({ type: 'signed-out', memberId, clientAddress: clientAddress(req, config.trustProxy), via: sp.name, requestId: requestIdOf(req), outcome: 'saml-logout' });
      }
    }
    const browser = await services.oidc.sessions.signedIn(cookieValues(req, config.signin.cookieName), sessionCookieDomain(req, config));
    if (browser === null || sessions.includes(browser.sessionId)) {
      res.clearCookie(config.signin.cookieName, loginCookieOptions(config.signin));
      if (config.signin.tokenCookieName) res.clearCookie(config.signin.tokenCookieName, loginCookieOptions(config.signin));
    }
    const member = participations[0]?.memberId;
    deps.metrics?.samlLogout('signed-out');
    logger.info('saml logout', { outcome: sessions.length > 0 ? 'signed-out' : 'no-session', sp: sp.name, ...(member ? { member } : {}), sessions: sessions.length, requestId: requestIdOf(req) });
    return goOn(req, res, deps, opened.handle, propagation);
  };

  const slo = async (req: Request, res: Response) => {
    let found: SamlSp | undefined;
    const read = await readInbound(inboundOf(req), async (issuer) => {
      const sp = await services.saml.sps.findByEntityId(issuer);
      if (!sp) return null;
      found = sp;
      // A logout request ends the member's sessions: it must be signed, whatever the SP's setting for sign-ins.
      return { signingCertificates: metadataOf(sp).signingCertificates, requireSigned: true };
    });
    if (!read.ok || !found) return refused(req, res, read.ok ? 'no service provider' : `${read.reason.code}: ${read.reason.text}`);
    const sp = found;
    const { message } = read;
    if (message.kind === 'LogoutRequest') return logoutRequestFrom(req, res, sp, message, read.relayState);
    if (message.kind !== 'LogoutResponse') return refused(req, res, `an ${message.kind} at the single logout endpoint`, sp);
    // An SP told through the browser answers; the RelayState is the handle of the logout going round.
    const pending = read.relayState === undefined ? null : await services.saml.requests.find(read.relayState);
    if (!pending || pending.kind !== 'logout' || read.relayState === undefined) return refused(req, res, 'a LogoutResponse to no logout in progress', sp);
    const propagation = pending.payload as LogoutPropagation;
    if (!answersAsked(propagation, sp.id, message)) return refused(req, res, 'a LogoutResponse that answers no LogoutRequest sent to its issuer', sp);
    return goOn(req, res, deps, read.relayState, answered(propagation, message));
  };

  router.get(SAML_PATHS.slo, slo);
  router.post(SAML_PATHS.slo, bodyParser.urlencoded({ extended: false, limit: MESSAGE_FORM_LIMIT }), slo);
  // A sign-out elsewhere (signedOut in src/saml/router.ts) sends the browser here first; once on its way, the SPs' answers carry it.
  router.get(`${SAML_PATHS.sloContinue}/:handle`, async (req, res) => {
    const handle = req.params['handle'] ?? '';
    const pending = await services.saml.requests.find(handle);
    const propagation = pending?.kind === 'logout' ? (pending.payload as LogoutPropagation) : undefined;
    if (!propagation || propagation.asked !== undefined || !('next' in propagation.end)) return refused(req, res, 'a sign-out that expired or is under way');
    return goOn(req, res, deps, handle, propagation);
  });
  return router;
}
