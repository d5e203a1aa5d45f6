import { escapeXmlText } from '../../web/xml-text.js';
import { ENVELOPE_NS, FAULT_CODE, type FaultRole, type SoapVersion } from './protocol.js';

/** ASMX declares these after the soap prefix; node-soap is set to declare the same. */
export const SCHEMA_NAMESPACES = 'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"';

export function envelope(version: SoapVersion, body: string): string {
  return `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${ENVELOPE_NS[version]}" ${SCHEMA_NAMESPACES}><soap:Body>${body}</soap:Body></soap:Envelope>`;
}

/** A fault element exactly as ASMX writes it for each SOAP version. */
export function faultXml(version: SoapVersion, role: FaultRole, text: string, withDetail: boolean): string {
  const code = FAULT_CODE[role][version];
  const escaped = escapeXmlText(text);
  if (version === '1.1') {
    return `<soap:Fault><faultcode>${code}</faultcode><faultstring>${escaped}</faultstring>${withDetail ? '<detail />' : ''}</soap:Fault>`;
  }
  return `<soap:Fault><soap:Code><soap:Value>${code}</soap:Value></soap:Code><soap:Reason><soap:Text xml:lang="en">${escaped}</soap:Text></soap:Reason>${withDetail ? '<soap:Detail />' : ''}</soap:Fault>`;
}
