import type { Logger } from '../log/logger.js';
import type { Services } from '../service/index.js';
import type { SamlParticipant } from '../service/saml/index.js';
import { BodyTooLong, boundedText } from '../web/bounded-body.js';
import { LOGOUT_RETRY_DELAYS_MS } from '../web/retry-delays.js';
import { readSoapLogoutResponse } from './inbound/soap-answer.js';
import { logoutRequestXmlSigned } from './logout-messages.js';
import type { IdpUrls } from './paths.js';
import type { SpMetadataOf } from './registered-sp.js';
import type { SamlMetrics } from './sign-in-answer.js';
import { soapEndpoint } from './slo-endpoints.js';
import { MESSAGE_BOUNDS } from './xml-guard.js';

/** An SP that does not answer within this is given up on for this attempt. */
const SOAP_TIMEOUT_MS = 5_000;

const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';

export interface BackChannelDeps {
  services: Services;
  logger: Logger;
  urls: IdpUrls;
  metrics?: SamlMetrics | undefined;
  metadataOf: SpMetadataOf;
}

/** A LogoutRequest in a SOAP 1.1 envelope, as the SAML SOAP binding carries it. */
function envelope(request: string): string {
  return `<soap11:Envelope xmlns:soap11="http://schemas.xmlsoap.org/soap/envelope/"><soap11:Body>${request}</soap11:Body></soap11:Envelope>`;
}

/**
 * Posts the LogoutRequest and reads the SP's answer: delivered only when it is a LogoutResponse from that SP,
 * to that request, with a Success status; otherwise why not (never the message, the answer or the endpoint).
 */
async function post(location: string, request: { id: string; xml: string }, spEntityId: string): Promise<string | undefined> {
  let text: string;
  try {
    const answer = await fetch(location, {
      method: 'POST',
      headers: { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: 'http://www.oasis-open.org/committees/security' },
      body: envelope(request.xml),
      signal: AbortSignal.timeout(SOAP_TIMEOUT_MS),
      redirect: 'error',
    });
    if (!answer.ok) {
      await answer.body?.cancel();
      return `status ${answer.status}`;
    }
    text = await boundedText(answer, MESSAGE_BOUNDS.maxLength);
  } catch (error) {
    if (error instanceof BodyTooLong) return `an answer ${error.message}`;
    return error instanceof Error ? error.name : 'error';
  }
  const read = readSoapLogoutResponse(text);
  if (!read.ok) return `an answer refused: ${read.reason}`;
  const { response } = read;
  if (response.issuer !== spEntityId) return 'a LogoutResponse from another issuer';
  if (response.inResponseTo !== request.id) return 'a LogoutResponse to another request';
  if (response.statusCode !== SUCCESS) return 'a LogoutResponse without a Success status';
  return undefined;
}

/**
 * Tells an SP over the SOAP back channel that the member session it takes part in ended, with a signed
 * LogoutRequest naming the NameID and SessionIndex it was given, and reads its LogoutResponse; a failed attempt
 * is tried again after each of LOGOUT_RETRY_DELAYS_MS (off the path of whatever ended the session), each logged
 * and counted. The SP leaves the session either way. An SP without a SOAP logout endpoint is not reached this way
 * (logged `no-back-channel`): its participation is left for the browser, which tells it when the browser signed out
 * (src/saml/logout-propagation.ts), else goes with the session. The log names the SP and the member, never the
 * message or the endpoint.
 */
export async function tellOverBackChannel(participant: SamlParticipant, deps: BackChannelDeps): Promise<void> {
  const { services, logger, urls } = deps;
  const sp = await services.saml.sps.findById(participant.spId);
  const location = sp ? soapEndpoint(deps.metadataOf(sp)) : undefined;
  if (!sp || location === undefined) {
    deps.metrics?.samlLogout('no-back-channel');
    logger.info('saml logout', { outcome: 'no-back-channel', sp: sp?.name ?? participant.spId, member: participant.memberId });
    return;
  }
  await services.saml.sessions.leave(participant.memberSessionId, participant.spId);
  const key = await services.saml.keys.signing();
  const request = logoutRequestXmlSigned(urls.entityId, key, { entityId: sp.entityId, location }, participant);
  const attempt = async (number: number): Promise<void> => {
    const reason = await post(location, request, sp.entityId);
    const delay = reason === undefined ? undefined : LOGOUT_RETRY_DELAYS_MS[number - 1];
    const outcome = reason === undefined ? 'delivered' : delay === undefined ? 'failed' : 'retried';
    deps.metrics?.samlLogout(outcome);
    const line = { outcome, through: 'back-channel', sp: sp.name, member: participant.memberId, attempt: number, ...(reason ? { reason } : {}) };
    if (reason === undefined) logger.info('saml logout', line);
    else logger.warn('saml logout', line);
    if (delay === undefined) return;
    setTimeout(() => {
      attempt(number + 1).catch((error: unknown) => logger.error('saml session end failed', { error: error instanceof Error ? error.message : String(error) }));
    }, delay).unref();
  };
  await attempt(1);
}
