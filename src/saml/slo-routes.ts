import bodyParser from 'body-parser';
import express, { type Request, type Response, type Router } from 'express';
import type { Config } from '../config/config.js';
import type { EndedSessions } from '../service/index.js';
import type { SamlParticipant, SamlSp } from '../service/saml/index.js';
import { sessionCookieDomain } from '../web/endpoint-url.js';
import { cookieValues, loginCookieOptions } from '../web/login-cookie.js';
import { requestIdOf } from '../web/request-id.js';
import { CLOCK_SKEW_MS } from './authn-request.js';
import { tellOverBackChannel, type BackChannelDeps } from './back-channel.js';
import type { LogoutRequestMsg } from './inbound/messages.js';
import { readInbound } from './inbound/read-inbound.js';
import { logoutRequest, logoutResponse, type FrontChannelMessage } from './logout-messages.js';
import { messageView } from './pages.js';
import { SAML_PATHS } from './paths.js';
import { postToSp, type AnswerDeps } from './sign-in-answer.js';
import { frontChannelEndpoint, soapEndpoint } from './slo-endpoints.js';
import { inboundOf, MESSAGE_FORM_LIMIT } from './sso-routes.js';

export interface SloDeps extends AnswerDeps {
  config: Config;
}

/** How long the browser has to go round the SPs of a logout. */
const LOGOUT_LIFETIME_MS = 10 * 60 * 1000;

/** A logout going round the session's SPs through the browser, kept sealed in the store; the RelayState is its handle. */
interface LogoutPropagation {
  initiator: { spId: string; inResponseTo: string; relayState?: string };
  /** The SPs still to be told through the browser. */
  remaining: SamlParticipant[];
  /** Whether an SP could not be told (no endpoint), or answered with another status than Success. */
  partial: boolean;
}

const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';

/** Ends the SAML participations of member sessions ended elsewhere: each SP is told over the back channel. */
export async function endSamlSessions(ended: EndedSessions, deps: BackChannelDeps): Promise<void> {
  for (const participant of await deps.services.saml.sessions.ofEnded(ended)) await tellOverBackChannel(participant, deps);
}

/**
 * Single Logout started by an SP (a signed LogoutRequest over HTTP-Redirect or HTTP-POST): the member sessions
 * it names end as DeleteUserSession ends them (the OpenID sessions and every other SP with them); the other SPs
 * are told through the browser, one after the other, or over SOAP when they have no browser endpoint; then the
 * SP that asked gets its LogoutResponse.
 */
export function createSloRoutes(deps: SloDeps): Router {
  const { config, services, logger, pages, urls, metadataOf } = deps;
  const router = express.Router();

  const refused = (req: Request, res: Response, reason: string, sp?: SamlSp) => {
    deps.metrics?.samlLogout('refused');
    logger.info('saml logout', { outcome: 'refused', ...(sp ? { sp: sp.name } : {}), reason, requestId: requestIdOf(req) });
    res.status(400).type('html').send(pages.render(req, res, 'message', messageView('Signing out could not continue', `The site you came from sent a sign-out this service cannot take (${reason}).`)));
  };
  const send = (req: Request, res: Response, message: FrontChannelMessage) => {
    if (message.binding === 'redirect') return res.redirect(303, message.url);
    return postToSp(req, res, pages, message.url, message.fields);
  };

  /** Tells the next SP through the browser, or answers the SP that asked once every one was told. */
  const goOn = async (req: Request, res: Response, handle: string, propagation: LogoutPropagation): Promise<void> => {
    const key = await services.saml.keys.signing();
    for (let next = propagation.remaining.shift(); next !== undefined; next = propagation.remaining.shift()) {
      const sp = await services.saml.sps.findById(next.spId);
      const endpoint = sp ? frontChannelEndpoint(metadataOf(sp), 'request') : undefined;
      if (!sp || !endpoint) continue;
      await services.saml.requests.update(handle, propagation);
      deps.metrics?.samlLogout('front-channel');
      logger.info('saml logout', { outcome: 'front-channel', sp: sp.name, member: next.memberId, requestId: requestIdOf(req) });
      return send(req, res, logoutRequest(urls.entityId, key, { entityId: sp.entityId, ...endpoint }, next, handle).message);
    }
    await services.saml.requests.consume(handle);
    const initiator = await services.saml.sps.findById(propagation.initiator.spId);
    const endpoint = initiator ? frontChannelEndpoint(metadataOf(initiator), 'response') : undefined;
    if (!initiator || !endpoint) return refused(req, res, 'a service provider without a logout endpoint');
    const { inResponseTo, relayState } = propagation.initiator;
    return send(req, res, logoutResponse(urls.entityId, key, { entityId: initiator.entityId, ...endpoint }, { inResponseTo, relayState, partial: propagation.partial }));
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
    const initiator = { spId: sp.id, inResponseTo: request.id, ...(relayState === undefined ? {} : { relayState }) };
    const propagation: LogoutPropagation = { initiator, remaining: [], partial: false };
    const opened = await services.saml.requests.open({ spId: sp.id, requestId: request.id, kind: 'logout', payload: propagation, lifetimeMs: LOGOUT_LIFETIME_MS });
    if (opened === 'replayed') return refused(req, res, 'a request ID used before (a replay)', sp);
    const participations = await named(sp, request);
    const sessions = [...new Set(participations.map((participant) => participant.memberSessionId))];
    for (const sessionId of sessions) {
      for (const other of await services.saml.sessions.ofSession(sessionId)) {
        if (other.spId === sp.id) continue;
        const otherSp = await services.saml.sps.findById(other.spId);
        const metadata = otherSp ? metadataOf(otherSp) : undefined;
        if (metadata && frontChannelEndpoint(metadata, 'request')) propagation.remaining.push(other);
        else if (!metadata || soapEndpoint(metadata) === undefined) propagation.partial = true;
        // Those told here leave now; those with only a SOAP endpoint are told by the session's end (endSamlSessions).
        if (metadata && frontChannelEndpoint(metadata, 'request')) await services.saml.sessions.leave(sessionId, other.spId);
      }
      await services.saml.sessions.leave(sessionId, sp.id);
      await services.sessions.end(sessionId);
    }
    const browser = await services.oidc.sessions.signedIn(cookieValues(req, config.signin.cookieName), sessionCookieDomain(req, config));
    if (browser === null || sessions.includes(browser.sessionId)) {
      res.clearCookie(config.signin.cookieName, loginCookieOptions(config.signin));
      if (config.signin.tokenCookieName) res.clearCookie(config.signin.tokenCookieName, loginCookieOptions(config.signin));
    }
    const member = participations[0]?.memberId;
    deps.metrics?.samlLogout('signed-out');
    logger.info('saml logout', { outcome: sessions.length > 0 ? 'signed-out' : 'no-session', sp: sp.name, ...(member ? { member } : {}), sessions: sessions.length, requestId: requestIdOf(req) });
    return goOn(req, res, opened.handle, propagation);
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
    if (message.statusCode !== SUCCESS) propagation.partial = true;
    return goOn(req, res, read.relayState, propagation);
  };

  router.get(SAML_PATHS.slo, slo);
  router.post(SAML_PATHS.slo, bodyParser.urlencoded({ extended: false, limit: MESSAGE_FORM_LIMIT }), slo);
  return router;
}
