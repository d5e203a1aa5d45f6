import type { Logger } from '../log/logger.js';
import type { Services } from '../service/index.js';
import type { SamlParticipant } from '../service/saml/index.js';
import type { SamlMetrics } from './sign-in-answer.js';
import { logoutRequestXmlSigned } from './logout-messages.js';
import type { IdpUrls } from './paths.js';
import { soapEndpoint } from './slo-endpoints.js';
import type { SpMetadataOf } from './registered-sp.js';

/** An SP that does not answer within this is given up on: the member session has ended here whatever it says. */
const SOAP_TIMEOUT_MS = 5_000;

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
 * Tells an SP over the SOAP back channel that the member session it takes part in ended, with a signed
 * LogoutRequest naming the NameID and SessionIndex it was given; it leaves the session either way. An SP
 * without a SOAP logout endpoint is not reached this way (logged `unreachable`): its participation is left for
 * the browser, which tells it when the browser signed out (src/saml/logout-propagation.ts), else goes with the
 * session. The log names the SP and the member, never the message or the endpoint.
 */
export async function tellOverBackChannel(participant: SamlParticipant, deps: BackChannelDeps): Promise<void> {
  const { services, logger, urls } = deps;
  const sp = await services.saml.sps.findById(participant.spId);
  const location = sp ? soapEndpoint(deps.metadataOf(sp)) : undefined;
  if (!sp || location === undefined) {
    deps.metrics?.samlLogout('unreachable');
    logger.info('saml logout', { outcome: 'unreachable', through: 'back-channel', sp: sp?.name ?? participant.spId, member: participant.memberId });
    return;
  }
  await services.saml.sessions.leave(participant.memberSessionId, participant.spId);
  const key = await services.saml.keys.signing();
  const request = logoutRequestXmlSigned(urls.entityId, key, { entityId: sp.entityId, location }, participant);
  let outcome: 'delivered' | 'failed';
  let reason: string | undefined;
  try {
    const answer = await fetch(location, {
      method: 'POST',
      headers: { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: 'http://www.oasis-open.org/committees/security' },
      body: envelope(request),
      signal: AbortSignal.timeout(SOAP_TIMEOUT_MS),
      redirect: 'error',
    });
    await answer.body?.cancel();
    outcome = answer.ok ? 'delivered' : 'failed';
    if (!answer.ok) reason = `status ${answer.status}`;
  } catch (error) {
    outcome = 'failed';
    reason = error instanceof Error ? error.name : 'error';
  }
  deps.metrics?.samlLogout(outcome);
  logger.info('saml logout', { outcome, through: 'back-channel', sp: sp.name, member: participant.memberId, ...(reason ? { reason } : {}) });
}
