import { CONTENT_TYPE } from '../asmx-response.js';

export type SoapVersion = '1.1' | '1.2';

export const ENVELOPE_NS: Record<SoapVersion, string> = {
  '1.1': 'http://schemas.xmlsoap.org/soap/envelope/',
  '1.2': 'http://www.w3.org/2003/05/soap-envelope',
};

export const SOAP_CONTENT_TYPE: Record<SoapVersion, string> = {
  '1.1': CONTENT_TYPE.xml,
  '1.2': CONTENT_TYPE.soap12,
};

/** The fault codes by role, as each version spells them. */
export const FAULT_CODE = {
  server: { '1.1': 'soap:Server', '1.2': 'soap:Receiver' },
  client: { '1.1': 'soap:Client', '1.2': 'soap:Sender' },
  mustUnderstand: { '1.1': 'soap:MustUnderstand', '1.2': 'soap:MustUnderstand' },
  versionMismatch: { '1.1': 'soap:VersionMismatch', '1.2': 'soap:VersionMismatch' },
} as const satisfies Record<string, Record<SoapVersion, string>>;

export type FaultRole = keyof typeof FAULT_CODE;

export function versionOfEnvelope(namespace: string | undefined): SoapVersion | null {
  if (namespace === ENVELOPE_NS['1.1']) return '1.1';
  if (namespace === ENVELOPE_NS['1.2']) return '1.2';
  return null;
}

/** ASMX prefixes faults on the server side with this, remote view (customErrors on). */
export const SERVER_UNABLE = 'Server was unable to process request. ---> ';
