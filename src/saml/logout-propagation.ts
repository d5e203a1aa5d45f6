import type { Request, Response } from 'express';
import type { SamlParticipant } from '../service/saml/index.js';
import { requestIdOf } from '../web/request-id.js';
import type { LogoutResponseMsg } from './inbound/messages.js';
import { logoutRequest, logoutResponse, type FrontChannelMessage } from './logout-messages.js';
import { messageView } from './pages.js';
import { postToSp, type AnswerDeps } from './sign-in-answer.js';
import { frontChannelEndpoint, soapEndpoint, type FrontChannelEndpoint } from './slo-endpoints.js';
import type { SpMetadata } from './sp-metadata.js';

/** How long the browser has to go round the SPs of a logout. */
export const LOGOUT_LIFETIME_MS = 10 * 60 * 1000;

/**
 * A logout going round a member's SPs through the browser, kept sealed in the store (services.saml.requests,
 * kind 'logout'); the RelayState of each LogoutRequest is its handle.
 */
export interface LogoutPropagation {
  /**
   * Where the browser goes once every SP was told: the SP whose LogoutRequest started it gets its LogoutResponse,
   * or a sign-out elsewhere (the sign-in page, the account page, OpenID end-session) goes on where it was going.
   */
  end: { spId: string; inResponseTo: string; relayState?: string } | { next: string };
  /** The SPs still to be told. */
  remaining: SamlParticipant[];
  /** The LogoutRequest out now: the SP it went to and its ID, which that SP's LogoutResponse must answer. */
  asked?: { spId: string; requestId: string };
  /** Whether an SP could not be told, or answered with another status than Success. */
  partial: boolean;
}

const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';

/**
 * Where an SP is told that a member session it takes part in ended, through the browser, or undefined when it
 * is not told that way. One rule whatever ended the session, so that the back channel (the services' session
 * events, which come on their own time) and the browser never both claim an SP: an SP whose metadata has a SOAP
 * SingleLogoutService is told over SOAP, the others through the browser at their HTTP-Redirect or HTTP-POST one.
 */
export function browserLogoutEndpoint(metadata: SpMetadata): FrontChannelEndpoint | undefined {
  return soapEndpoint(metadata) === undefined ? frontChannelEndpoint(metadata, 'request') : undefined;
}

/** Which participations the browser tells: those of SPs told through it (the others are the back channel's). */
export async function toldThroughBrowser(participants: SamlParticipant[], deps: AnswerDeps): Promise<SamlParticipant[]> {
  const told: SamlParticipant[] = [];
  for (const participant of participants) {
    const sp = await deps.services.saml.sps.findById(participant.spId);
    if (sp && browserLogoutEndpoint(deps.metadataOf(sp))) told.push(participant);
  }
  return told;
}

/** Whether a LogoutResponse answers the LogoutRequest the propagation sent: from that SP, to that request's ID (SAML core 3.2.2). */
export function answersAsked(propagation: LogoutPropagation, spId: string, response: LogoutResponseMsg): boolean {
  const { asked } = propagation;
  return asked !== undefined && asked.spId === spId && response.inResponseTo === asked.requestId;
}

/** Records a LogoutResponse that answers the request out: the next SP may be told. */
export function answered(propagation: LogoutPropagation, response: LogoutResponseMsg): LogoutPropagation {
  const { asked: _answered, ...rest } = propagation;
  return { ...rest, partial: propagation.partial || response.statusCode !== SUCCESS };
}

const send = (req: Request, res: Response, deps: AnswerDeps, message: FrontChannelMessage) => {
  if (message.binding === 'redirect') return res.redirect(303, message.url);
  return postToSp(req, res, deps.pages, message.url, message.fields);
};

/**
 * Tells the next SP through the browser (a signed LogoutRequest, its RelayState the handle), or, once every one
 * was told, ends the propagation: the LogoutResponse to the SP that started it, or on to where the sign-out was going.
 */
export async function goOn(req: Request, res: Response, deps: AnswerDeps, handle: string, propagation: LogoutPropagation): Promise<void> {
  const { services, logger, urls, metadataOf } = deps;
  const key = await services.saml.keys.signing();
  for (let next = propagation.remaining.shift(); next !== undefined; next = propagation.remaining.shift()) {
    const sp = await services.saml.sps.findById(next.spId);
    const endpoint = sp ? browserLogoutEndpoint(metadataOf(sp)) : undefined;
    if (!sp || !endpoint) {
      propagation.partial = true;
      continue;
    }
    const made = logoutRequest(urls.entityId, key, { entityId: sp.entityId, ...endpoint }, next, handle);
    await services.saml.requests.update(handle, { ...propagation, asked: { spId: sp.id, requestId: made.id } });
    deps.metrics?.samlLogout('front-channel');
    logger.info('saml logout', { outcome: 'front-channel', sp: sp.name, member: next.memberId, requestId: requestIdOf(req) });
    return send(req, res, deps, made.message);
  }
  await services.saml.requests.consume(handle);
  const { end } = propagation;
  if ('next' in end) return res.redirect(303, end.next);
  const initiator = await services.saml.sps.findById(end.spId);
  const endpoint = initiator ? frontChannelEndpoint(metadataOf(initiator), 'response') : undefined;
  if (!initiator || !endpoint) {
    deps.metrics?.samlLogout('refused');
    logger.info('saml logout', { outcome: 'refused', reason: 'a service provider without a logout endpoint', requestId: requestIdOf(req) });
    return void res.status(400).type('html').send(deps.pages.render(req, res, 'message', messageView('Signing out could not continue', 'You have been signed out here, but the site you came from cannot be told.')));
  }
  const { inResponseTo, relayState } = end;
  return send(req, res, deps, logoutResponse(urls.entityId, key, { entityId: initiator.entityId, ...endpoint }, { inResponseTo, relayState, partial: propagation.partial }));
}
