/**
 * The SOAP namespaces and envelopes the tests write, in one place: the namespace table, the operation element
 * a call carries, and the request envelope around it, as partner code writes them by hand. Tests that send
 * hostile or malformed documents build those themselves (on the same table); the golden transcripts keep their
 * recorded bytes.
 */

/** The envelope namespace of each SOAP version. */
export const SOAP_NS = {
  '1.1': 'http://schemas.xmlsoap.org/soap/envelope/',
  '1.2': 'http://www.w3.org/2003/05/soap-envelope',
} as const;

export type SoapVersion = keyof typeof SOAP_NS;

/** The xsi and xsd declarations ASMX's (and .NET clients') envelopes carry. */
export const XSI_XSD = 'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"';

/** The prefix .NET's generated clients write each version's envelope with. */
const SOAP_PREFIX: Record<SoapVersion, string> = { '1.1': 'soap', '1.2': 'soap12' };

/** Text content as .NET's XmlWriter escapes it: &, < and >; quotes stay. */
export const xmlText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Text for an attribute value or element alike: xmlText, and the double quote. */
export const escapeXml = (text: string) => xmlText(text).replace(/"/g, '&quot;');

/** An operation's element in the service namespace, one child per parameter in the given order, text escaped. */
export function operationElement(namespace: string, operation: string, params: Record<string, string>): string {
  const children = Object.entries(params)
    .map(([name, value]) => `<${name}>${escapeXml(value)}</${name}>`)
    .join('');
  return `<${operation} xmlns="${namespace}">${children}</${operation}>`;
}

interface EnvelopeOptions {
  /** The envelope's prefix; the version's usual one (SOAP_PREFIX) by default. */
  prefix?: string;
  /** The Header element's content; no Header when left out. */
  header?: string;
  /** The XML declaration before the envelope (on by default). */
  declaration?: boolean;
}

/**
 * A request envelope of the version around `body` (the Body's content, as markup):
 * <?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="…"><soap:Body>…</soap:Body></soap:Envelope>.
 */
export function soapEnvelope(version: SoapVersion, body: string, options: EnvelopeOptions = {}): string {
  const prefix = options.prefix ?? SOAP_PREFIX[version];
  const declaration = options.declaration === false ? '' : '<?xml version="1.0" encoding="utf-8"?>';
  const header = options.header === undefined ? '' : `<${prefix}:Header>${options.header}</${prefix}:Header>`;
  return `${declaration}<${prefix}:Envelope xmlns:${prefix}="${SOAP_NS[version]}">${header}<${prefix}:Body>${body}</${prefix}:Body></${prefix}:Envelope>`;
}
