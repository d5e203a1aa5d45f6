import type { SpMetadata } from './sp-metadata.js';

const BINDING_URIS = {
  redirect: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect',
  post: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
  soap: 'urn:oasis:names:tc:SAML:2.0:bindings:SOAP',
} as const;

/** An SP's logout endpoint the browser can be sent to. */
export interface FrontChannelEndpoint {
  binding: 'redirect' | 'post';
  location: string;
}

/**
 * The SP's single logout endpoint over the browser, HTTP-Redirect before HTTP-POST: for a request its Location,
 * for a response its ResponseLocation when it has one (SAML metadata 2.2.2).
 */
export function frontChannelEndpoint(metadata: SpMetadata, use: 'request' | 'response'): FrontChannelEndpoint | undefined {
  for (const binding of ['redirect', 'post'] as const) {
    const service = metadata.singleLogoutServices.find((endpoint) => endpoint.binding === BINDING_URIS[binding]);
    if (service) return { binding, location: use === 'response' ? (service.responseLocation ?? service.location) : service.location };
  }
  return undefined;
}

/** The SP's single logout endpoint over SOAP, for the back channel. */
export function soapEndpoint(metadata: SpMetadata): string | undefined {
  return metadata.singleLogoutServices.find((endpoint) => endpoint.binding === BINDING_URIS.soap)?.location;
}
