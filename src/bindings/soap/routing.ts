import type { IncomingHttpHeaders } from 'node:http';
import contentType from 'content-type';
import type { OperationName } from '../../service/wsdl-types.js';
import type { EnvelopeReading } from './envelope-reader.js';
import type { SoapOperations } from './operations.js';
import { ENVELOPE_NS, SERVER_UNABLE, versionOfEnvelope, type FaultRole, type SoapVersion } from './protocol.js';

/** A request ASMX would refuse before invoking anything, as the wire shape it answers with. */
export type ProtocolRefusal =
  | { kind: 'empty'; status: 400 | 415; version: SoapVersion }
  | { kind: 'fault'; version: SoapVersion; role: FaultRole; text: string; detail: boolean; routed: boolean };

export type Route =
  | { ok: true; version: SoapVersion; operation: OperationName; parameters: Map<string, string | null> }
  | { ok: false; refusal: ProtocolRefusal };

const refuse = (refusal: ProtocolRefusal): Route => ({ ok: false, refusal });
/** `routed`: an operation was chosen before the fault, which changes only ASMX's Cache-Control. */
const fault = (version: SoapVersion, role: FaultRole, text: string, routed = false, detail = true): Route =>
  refuse({ kind: 'fault', version, role, text, detail, routed });

export interface RequestShape {
  mediaType: string;
  /** The SOAP 1.2 action parameter of the Content-Type. */
  action: string | undefined;
  charset: string | undefined;
}

/** Null when there is no usable Content-Type. */
export function requestShape(headers: IncomingHttpHeaders): RequestShape | null {
  const header = headers['content-type'];
  if (!header) return null;
  try {
    const parsed = contentType.parse(header);
    return { mediaType: parsed.type, action: parsed.parameters.action, charset: parsed.parameters.charset };
  } catch {
    return null;
  }
}

function decodeAction(raw: string): string {
  const unquoted = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
  try {
    return decodeURIComponent(unquoted.replace(/\+/g, ' '));
  } catch {
    return unquoted;
  }
}

/**
 * ASMX's routing, after .NET's SoapServerProtocol: the version is guessed from the headers (no SOAPAction or
 * a SOAP 1.2 content type means 1.2) and corrected by the envelope; SOAP 1.1 routes on SOAPAction alone,
 * SOAP 1.2 on the action parameter and then on the body element. The envelope's version answers.
 */
export function routeSoapRequest(shape: RequestShape, soapAction: string | undefined, reading: EnvelopeReading, operations: SoapOperations): Route {
  const guessed: SoapVersion = soapAction === undefined || shape.mediaType === 'application/soap+xml' ? '1.2' : '1.1';
  const envelope = reading.root?.local === 'Envelope' ? versionOfEnvelope(reading.root.ns) : null;
  const version = envelope ?? guessed;

  let operation: OperationName | undefined;
  if (guessed === '1.1') {
    const action = decodeAction(soapAction ?? '');
    operation = operations.byAction(action);
    if (!operation) return fault(version, 'client', `Server did not recognize the value of HTTP Header SOAPAction: ${action}.`);
  } else {
    const action = shape.action === undefined ? undefined : decodeAction(shape.action);
    operation = action ? operations.byAction(action) : undefined;
    if (!operation) {
      const structural = routingStructureError(reading);
      if (structural) return fault(guessed, 'server', SERVER_UNABLE + structural);
      operation = reading.operation ? operations.byElement(reading.operation.local, reading.operation.ns) : undefined;
      if (!operation) {
        const text = action
          ? `Unable to handle request. The action '${action}' was not recognized.`
          : 'Unable to handle request without a valid action parameter. Please supply a valid soap action.';
        return fault(version, 'client', text);
      }
    }
  }

  const mediaTypeFits = shape.mediaType === 'text/xml' || (version === '1.2' && shape.mediaType === 'application/soap+xml');
  if (!mediaTypeFits) return refuse({ kind: 'empty', status: 415, version });
  if (reading.routingError !== null || reading.readingError) return refuse({ kind: 'empty', status: 400, version });
  if (!envelope) {
    if (reading.root?.local === 'Envelope') {
      const text = `Possible SOAP version mismatch: Envelope namespace ${reading.root.ns} was unexpected. Expecting ${ENVELOPE_NS[version]}.`;
      return fault(version, 'versionMismatch', text, true);
    }
    return fault(version, 'server', SERVER_UNABLE + 'Request format is invalid: Missing required soap:Envelope element.', true);
  }
  if (!reading.hasBody) return fault(version, 'server', SERVER_UNABLE + 'Request format is invalid: Missing required soap:Body element.', true);
  const header = reading.mustUnderstand[0];
  // ASMX sends no detail element with a MustUnderstand fault.
  if (header !== undefined) return fault(version, 'mustUnderstand', `SOAP header ${header} was not understood.`, true, false);
  const parameters = bindParameters(reading, operation, operations.namespace);
  // XmlSerializer cannot read a string parameter that holds elements: an XML reading error.
  if (parameters === null) return refuse({ kind: 'empty', status: 400, version });
  return { ok: true, version, operation, parameters };
}

/** What stops routing on the body element from even finding it. */
function routingStructureError(reading: EnvelopeReading): string | null {
  if (reading.routingError !== null) return reading.routingError;
  if (reading.root?.local !== 'Envelope') return 'Request format is invalid: Missing required soap:Envelope element.';
  if (!reading.hasBody) return 'Request format is invalid: Missing required soap:Body element.';
  return null;
}

/**
 * Parameters as ASMX's generated reader binds them: only inside the operation's own element, only
 * elements in the service namespace, first occurrence wins, anything else is ignored; unbound means null.
 */
function bindParameters(reading: EnvelopeReading, operation: OperationName, namespace: string): Map<string, string | null> | null {
  const bound = new Map<string, string | null>();
  const element = reading.operation;
  if (!element || element.local !== operation || element.ns !== namespace) return bound;
  for (const parameter of reading.parameters) {
    if (parameter.ns !== namespace || bound.has(parameter.local)) continue;
    if (parameter.hasElementChildren) return null;
    bound.set(parameter.local, parameter.value);
  }
  return bound;
}
