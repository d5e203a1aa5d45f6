import { selfSignedKey } from '../../src/service/saml/certificate.js';

const POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';

/** One certificate serves as the SP's signing and encryption certificate: the tests that register an SP read, they do not use them. */
const certificate = (await selfSignedKey('sp.example.org', Date.now())).certificatePem.replace(/-----[A-Z ]+-----|\s/g, '');

/** An SP's metadata; `signed`: its AuthnRequestsSigned; `encryption`: whether it has an encryption certificate. */
export function spMetadata(entityId: string, options: { signed?: boolean; encryption?: boolean } = {}): string {
  const key = (use: string) => `<md:KeyDescriptor use="${use}"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${certificate}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`;
  return `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${entityId}">
  <md:SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol" AuthnRequestsSigned="${options.signed ?? false}">
    ${key('signing')}${options.encryption === false ? '' : key('encryption')}
    <md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:SOAP" Location="https://events.example.org/slo/soap"/>
    <md:AssertionConsumerService Binding="${POST}" Location="https://events.example.org/acs" index="0" isDefault="true"/>
  </md:SPSSODescriptor>
</md:EntityDescriptor>`;
}
