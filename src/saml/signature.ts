import samlify from 'samlify';

const { SamlLib, Utility, Constants } = samlify;

/** The identity provider's signing key: a PKCS#8 PEM private key and its certificate's PEM. */
export interface SigningKey {
  privateKeyPem: string;
  certificatePem: string;
}

/** RSA-SHA256 (and SHA-256 digests) for everything signed here. */
export const SIGNATURE_ALGORITHM = Constants.algorithms.signature.RSA_SHA256;

/**
 * An enveloped XML signature (samlify's, over xml-crypto) on the element `elementXPath` selects, placed right
 * after that element's Issuer as the schema wants it. The signature references the element by its ID.
 */
export function signElement(xmlText: string, key: SigningKey, element: { xpath: string; issuerXPath: string; whole?: boolean }): string {
  return SamlLib.constructSAMLSignature({
    rawSamlMessage: xmlText,
    ...(element.whole ? { isMessageSigned: true } : { referenceTagXPath: element.xpath }),
    privateKey: key.privateKeyPem,
    signingCert: Utility.normalizeCerString(key.certificatePem),
    signatureAlgorithm: SIGNATURE_ALGORITHM,
    isBase64Output: false,
    signatureConfig: { prefix: 'ds', location: { reference: element.issuerXPath, action: 'after' } },
  });
}

/** The root element of a message (LogoutRequest, Response...): signed whole, the signature after its Issuer. */
export function signRoot(xmlText: string, key: SigningKey, rootName: string): string {
  const root = `/*[local-name(.)='${rootName}']`;
  return signElement(xmlText, key, { xpath: root, issuerXPath: `${root}/*[local-name(.)='Issuer']`, whole: true });
}
