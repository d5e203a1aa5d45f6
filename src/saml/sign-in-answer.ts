import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Logger } from '../log/logger.js';
import type { Services } from '../service/index.js';
import type { SamlSp } from '../service/saml/index.js';
import type { MemberSignIn } from '../service/oidc/index.js';
import { requestIdOf } from '../web/request-id.js';
import { attributeValues } from './attribute-values.js';
import { MULTI_FACTOR_CONTEXT, PASSWORD_CONTEXT } from './authn-context.js';
import type { PendingSignIn } from './authn-request.js';
import { loginResponse, STATUS, statusResponse, type ResponseAddress } from './login-response.js';
import { NAME_ID_FORMATS, nameIdOf } from './name-id.js';
import { postView, type SamlPages } from './pages.js';
import type { IdpUrls } from './paths.js';
import type { SpMetadataOf } from './registered-sp.js';
import type { SpMetadata } from './sp-metadata.js';

/** How a sign-in through an SP went, as counted. */
export type SamlSignInOutcome = 'signed-in' | 'refused' | 'no-passive';

/** How a logout step went, as counted (src/saml/slo-routes.ts, src/saml/back-channel.ts). */
export type SamlLogoutOutcome = 'signed-out' | 'front-channel' | 'delivered' | 'retried' | 'failed' | 'no-back-channel' | 'refused';

/** Where the identity provider's events are counted; the app hands in src/ops/metrics.ts's. */
export interface SamlMetrics {
  samlSignIn(outcome: SamlSignInOutcome): void;
  samlLogout(outcome: SamlLogoutOutcome): void;
}

export interface AnswerDeps {
  services: Services;
  logger: Logger;
  pages: SamlPages;
  urls: IdpUrls;
  metrics?: SamlMetrics | undefined;
  metadataOf: SpMetadataOf;
}

const newSessionIndex = () => `_${randomBytes(20).toString('hex')}`;

/** Posts a SAML message to an SP's endpoint through the browser (the HTTP-POST binding). */
export function postToSp(req: Request, res: Response, pages: SamlPages, action: string, fields: Record<string, string>): void {
  res.status(200).type('html').send(pages.render(req, res, 'saml-post', postView(action, fields)));
}

const withRelayState = (fields: Record<string, string>, relayState: string | undefined) => (relayState === undefined ? fields : { ...fields, RelayState: relayState });

/** Answers a request with a status and no assertion (NoPassive, InvalidNameIDPolicy...), at its ACS. */
export async function answerStatus(
  req: Request,
  res: Response,
  deps: AnswerDeps,
  sp: SamlSp,
  answer: { acsUrl: string; inResponseTo?: string | undefined; relayState?: string | undefined; status: { top: string; second?: string | undefined }; reason: string },
): Promise<void> {
  const key = await deps.services.saml.keys.signing();
  const address: ResponseAddress = { issuer: deps.urls.entityId, destination: answer.acsUrl, inResponseTo: answer.inResponseTo, now: Date.now() };
  const outcome = answer.status.second === STATUS.noPassive ? 'no-passive' : 'refused';
  deps.metrics?.samlSignIn(outcome);
  deps.logger.info('saml sign-in', { outcome, sp: sp.name, reason: answer.reason, requestId: requestIdOf(req) });
  deps.services.events.record({ type: 'saml-signin', via: sp.name, requestId: requestIdOf(req), outcome, reason: answer.reason });
  postToSp(req, res, deps.pages, answer.acsUrl, withRelayState({ SAMLResponse: statusResponse(address, answer.status, key) }, answer.relayState));
}

/**
 * Signs the member in to the SP: the assertion names the member as the SP's settings (or its request) say, in
 * the same NameID and SessionIndex as before when the SP already takes part in this member session, carries the
 * mapped attributes, and is signed and encrypted as the settings say. The SP joins the member session, so that
 * single logout reaches it.
 */
export async function answerSignIn(req: Request, res: Response, deps: AnswerDeps, sp: SamlSp, metadata: SpMetadata, pending: PendingSignIn, signedIn: MemberSignIn): Promise<void> {
  const { services } = deps;
  // A sign-in with a second factor's code was made with the password too: it meets a request for either class. A
  // passkey's is multi-factor (the device, and the PIN or biometric it verified), and meets a request for the
  // password's class too, which it is stronger than: SPs ask for that one by default (node-saml, exactly).
  const achieved = signedIn.secondFactor || signedIn.passkey ? [MULTI_FACTOR_CONTEXT, PASSWORD_CONTEXT] : [PASSWORD_CONTEXT];
  const context = pending.authnContexts === undefined ? achieved[0] : achieved.find((reached) => pending.authnContexts?.includes(reached));
  const refuse = (second: string, reason: string) =>
    answerStatus(req, res, deps, sp, { acsUrl: pending.acsUrl, inResponseTo: pending.inResponseTo, relayState: pending.relayState, status: { top: STATUS.responder, second }, reason });
  if (context === undefined) return refuse(STATUS.noAuthnContext, 'an authentication context not given');
  const format = NAME_ID_FORMATS[pending.nameIdFormat];
  const before = (await services.saml.sessions.ofSession(signedIn.sessionId)).find((participant) => participant.spId === sp.id && participant.nameIdFormat === format);
  const nameId = before?.nameId ?? nameIdOf(signedIn.member, pending.nameIdFormat);
  if (nameId === null) return refuse(STATUS.invalidNameIdPolicy, 'a NameID format the member has no value for');
  const sessionIndex = before?.sessionIndex ?? newSessionIndex();
  await services.saml.sessions.join({ memberSessionId: signedIn.sessionId, memberId: signedIn.member.id, spId: sp.id, nameId, nameIdFormat: format, sessionIndex, createdAt: Date.now() });
  const { settings } = sp;
  const key = await services.saml.keys.signing();
  const SAMLResponse = await loginResponse(
    { issuer: deps.urls.entityId, destination: pending.acsUrl, inResponseTo: pending.inResponseTo, now: Date.now() },
    {
      audience: sp.entityId,
      nameId,
      nameIdFormat: format,
      sessionIndex,
      authnInstant: signedIn.signedInAt,
      authnContextClassRef: context,
      attributes: attributeValues(signedIn.member, settings.attributes),
    },
    { key, signResponse: settings.signResponse, signAssertion: settings.signAssertion, encryptFor: settings.encryptAssertion ? metadata.encryptionCertificates[0] : undefined },
  );
  deps.metrics?.samlSignIn('signed-in');
  deps.logger.info('saml sign-in', { outcome: 'signed-in', sp: sp.name, member: signedIn.member.id, requestId: requestIdOf(req) });
  services.events.record({ type: 'saml-signin', memberId: signedIn.member.id, via: sp.name, requestId: requestIdOf(req), outcome: 'signed-in' });
  postToSp(req, res, deps.pages, pending.acsUrl, withRelayState({ SAMLResponse }, pending.relayState));
}
