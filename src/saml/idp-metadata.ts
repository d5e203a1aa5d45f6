import samlify from 'samlify';
import { NAME_ID_FORMATS } from './name-id.js';
import type { IdpUrls } from './paths.js';

const { IdentityProvider, Utility, Constants } = samlify;

/**
 * The identity provider's metadata (samlify writes it): its entity ID, every published signing certificate (the
 * current one, and the next one `saml-keys rotate` published before it signs), single sign-on and single logout
 * over HTTP-Redirect and HTTP-POST, and the NameID formats it offers. Whether an SP must sign its requests is
 * that SP's setting, so the metadata does not ask it of all.
 */
export function idpMetadata(urls: IdpUrls, certificatesPem: readonly string[]): string {
  const { binding } = Constants.namespace;
  const endpoints = (location: string) => [
    { Binding: binding.redirect, Location: location },
    { Binding: binding.post, Location: location },
  ];
  return IdentityProvider({
    entityID: urls.entityId,
    signingCert: certificatesPem.map((pem) => Utility.normalizeCerString(pem)),
    wantAuthnRequestsSigned: false,
    nameIDFormat: Object.values(NAME_ID_FORMATS),
    singleSignOnService: endpoints(urls.sso),
    singleLogoutService: endpoints(urls.slo),
  }).getMetadata();
}
