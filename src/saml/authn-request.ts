import type { SamlNameIdFormat, SamlSp } from '../service/saml/index.js';
import { acceptableContexts } from './authn-context.js';
import type { AuthnRequestMsg } from './inbound/messages.js';
import { STATUS } from './login-response.js';
import { nameIdFormatOf } from './name-id.js';
import type { SpMetadata } from './sp-metadata.js';

export const HTTP_POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';

/** How far an SP's clock may be from ours, for the IssueInstant of its requests. */
export const CLOCK_SKEW_MS = 3 * 60 * 1000;
/** How long an AuthnRequest is good for, the member's sign-in included: its ID is kept as long, against replays. */
export const AUTHN_REQUEST_LIFETIME_MS = 15 * 60 * 1000;

/** A sign-in to an SP waiting for the member: where its Response goes and what it answers. Sealed in the store. */
export interface PendingSignIn {
  acsUrl: string;
  /** The AuthnRequest's ID; none for an IdP-initiated sign-in. */
  inResponseTo?: string;
  nameIdFormat: SamlNameIdFormat;
  relayState?: string;
  forceAuthn: boolean;
  /** IsPassive: answered without a page, NoPassive when the member is not signed in. */
  isPassive?: boolean;
  /** The AuthnContext classes that meet the SP's RequestedAuthnContext (src/saml/authn-context.ts), when it asked. */
  authnContexts?: string[];
  /** The member session the browser had when it was sent to the sign-in page (null: none). */
  sessionBefore?: string | null;
}

/** Why a request is not answered: on an error page (nothing may be posted anywhere), or by a status to the ACS. */
export type AuthnRefusal = { page: string } | { status: { top: string; second?: string }; acsUrl: string; reason: string };

/** The ACS a request names (by URL or index) or the SP's default, which must be one of its metadata's over HTTP-POST. */
function consumerService(request: AuthnRequestMsg, metadata: SpMetadata): string | { page: string } {
  const posts = metadata.assertionConsumerServices.filter((service) => service.binding === HTTP_POST);
  if (request.protocolBinding !== undefined && request.protocolBinding !== HTTP_POST) return { page: 'a response binding other than HTTP-POST' };
  if (request.assertionConsumerServiceUrl !== undefined) {
    const found = posts.find((service) => service.location === request.assertionConsumerServiceUrl);
    return found?.location ?? { page: 'an AssertionConsumerServiceURL that is not in the service provider\'s metadata' };
  }
  if (request.assertionConsumerServiceIndex !== undefined) {
    const found = posts.find((service) => service.index === request.assertionConsumerServiceIndex);
    return found?.location ?? { page: 'an AssertionConsumerServiceIndex that is not in the service provider\'s metadata' };
  }
  return defaultConsumerService(metadata) ?? { page: 'a service provider without an HTTP-POST assertion consumer service' };
}

/** The SP's default ACS over HTTP-POST: the one marked default, else the first (SAML metadata 2.2.3). */
export function defaultConsumerService(metadata: SpMetadata): string | undefined {
  const posts = metadata.assertionConsumerServices.filter((service) => service.binding === HTTP_POST);
  return (posts.find((service) => service.isDefault) ?? posts[0])?.location;
}

/**
 * What an AuthnRequest, read and verified (src/saml/inbound/), asks of the identity provider, once checked
 * against the SP's metadata and the profile: sent to this IdP (Destination, which a signed request must carry:
 * SAML bindings 3.4.5.2, 3.5.5.2), recent, its ACS registered, its NameID format and an AuthnContext it asks
 * for offered. A request this IdP cannot meet is answered with the status the profile names.
 */
export function acceptAuthnRequest(
  request: AuthnRequestMsg,
  sp: SamlSp,
  metadata: SpMetadata,
  context: { ssoUrl: string; now: number; relayState?: string | undefined; signed: boolean },
): { ok: true; pending: PendingSignIn } | { ok: false; refusal: AuthnRefusal } {
  if (request.destination !== undefined && request.destination !== context.ssoUrl) return { ok: false, refusal: { page: 'a Destination other than this identity provider' } };
  if (request.destination === undefined && context.signed) return { ok: false, refusal: { page: 'a signed request without a Destination' } };
  if (request.issueInstant < context.now - AUTHN_REQUEST_LIFETIME_MS || request.issueInstant > context.now + CLOCK_SKEW_MS) {
    return { ok: false, refusal: { page: 'an IssueInstant too old or in the future: the request expired' } };
  }
  const acsUrl = consumerService(request, metadata);
  if (typeof acsUrl !== 'string') return { ok: false, refusal: acsUrl };
  const asked = nameIdFormatOf(request.nameIdPolicy?.format);
  if (asked === undefined) {
    return { ok: false, refusal: { status: { top: STATUS.requester, second: STATUS.invalidNameIdPolicy }, acsUrl, reason: 'a NameID format not offered' } };
  }
  const classes = request.requestedAuthnContext === undefined ? undefined : acceptableContexts(request.requestedAuthnContext);
  if (classes?.length === 0) {
    return { ok: false, refusal: { status: { top: STATUS.responder, second: STATUS.noAuthnContext }, acsUrl, reason: 'an authentication context not offered' } };
  }
  const pending: PendingSignIn = {
    acsUrl,
    inResponseTo: request.id,
    nameIdFormat: asked === 'unspecified' ? sp.settings.nameIdFormat : asked,
    forceAuthn: request.forceAuthn,
    ...(request.isPassive ? { isPassive: true } : {}),
    ...(classes === undefined ? {} : { authnContexts: classes }),
    ...(context.relayState === undefined ? {} : { relayState: context.relayState }),
  };
  return { ok: true, pending };
}
