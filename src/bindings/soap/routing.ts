import type { IncomingHttpHeaders } from 'node:http';
import contentType from 'content-type';
import type { OperationName } from '../../service/wsdl-types.js';
import type { SoapOperations } from './operations.js';
import type { AsmxError, ErrorOf } from '../asmx-errors.js';
import type { EnvelopeReading } from './envelope-reader.js';
import { ENVELOPE_NS, versionOfEnvelope, type SoapVersion } from './protocol.js';

/**
 * A request ASMX refuses before invoking anything: the error, the SOAP version it is answered in, and the
 * operation chosen before it was refused, if one was (for the call log and metrics; a fault after it is sent as
 * a result, never cached).
 */
export interface Refusal {
  error: AsmxError<ErrorOf<'soap'>>;
  version: SoapVersion;
  operation: OperationName | undefined;
}

export type Route =
  | { ok: true; version: SoapVersion; operation: OperationName; parameters: Map<string, string | null> }
  | { ok: false; refusal: Refusal };

const refuse = (version: SoapVersion, code: ErrorOf<'soap'>, args: string[] = [], operation?: OperationName): Route => ({
  ok: false,
  refusal: { error: { code, args }, version, operation },
});

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

/** The version the headers suggest: no SOAPAction or a SOAP 1.2 content type means 1.2. */
function guessedVersion(shape: RequestShape | null, soapAction: string | undefined): SoapVersion {
  return soapAction === undefined || shape?.mediaType === 'application/soap+xml' ? '1.2' : '1.1';
}

/**
 * The version the headers suggest and the operation they name (SOAPAction for 1.1, the action parameter for 1.2),
 * as routeSoapRequest reads them before the body: what a request refused before its body was read, or without a
 * Content-Type, was a call of. Undefined when they name no operation.
 */
export function headerRoute(shape: RequestShape | null, soapAction: string | undefined, operations: SoapOperations): { version: SoapVersion; operation: OperationName } | undefined {
  const version = guessedVersion(shape, soapAction);
  const action = version === '1.1' ? soapAction : shape?.action;
  const operation = action === undefined ? undefined : operations.byAction(decodeAction(action));
  return operation === undefined ? undefined : { version, operation };
}

/**
 * ASMX's routing, after .NET's SoapServerProtocol: the version is guessed from the headers and corrected by the
 * envelope; SOAP 1.1 routes on SOAPAction alone, SOAP 1.2 on the action parameter and then on the body element.
 * The envelope's version answers.
 */
export function routeSoapRequest(shape: RequestShape, soapAction: string | undefined, reading: EnvelopeReading, operations: SoapOperations): Route {
  const guessed = guessedVersion(shape, soapAction);
  const envelope = reading.root?.local === 'Envelope' ? versionOfEnvelope(reading.root.ns) : null;
  const version = envelope ?? guessed;

  let operation: OperationName | undefined;
  if (guessed === '1.1') {
    const action = decodeAction(soapAction ?? '');
    operation = operations.byAction(action);
    if (!operation) return refuse(version, 'SOAPACTION_UNRECOGNIZED', [action]);
  } else {
    const action = shape.action === undefined ? undefined : decodeAction(shape.action);
    operation = action ? operations.byAction(action) : undefined;
    if (!operation) {
      // Malformed XML after the envelope's start is ASMX's malformed document in the envelope's version.
      if (reading.routingError !== null && envelope) return refuse(envelope, 'MALFORMED_XML');
      const structural = routingStructureError(reading);
      if (structural) return refuse(guessed, structural.code, structural.args);
      operation = reading.operation ? operations.byElement(reading.operation.local, reading.operation.ns) : undefined;
      if (!operation) return action ? refuse(version, 'ACTION_UNRECOGNIZED', [action]) : refuse(version, 'ACTION_REQUIRED');
    }
  }

  const mediaTypeFits = shape.mediaType === 'text/xml' || (version === '1.2' && shape.mediaType === 'application/soap+xml');
  if (!mediaTypeFits) return refuse(version, 'UNSUPPORTED_MEDIA_TYPE', [], operation);
  if (reading.routingError !== null || reading.readingError) return refuse(version, 'MALFORMED_XML', [], operation);
  if (!envelope) {
    if (reading.root?.local === 'Envelope') return refuse(version, 'VERSION_MISMATCH', [reading.root.ns, ENVELOPE_NS[version]], operation);
    return refuse(version, 'ENVELOPE_MISSING', [], operation);
  }
  if (!reading.hasBody) return refuse(version, 'BODY_MISSING', [], operation);
  const header = reading.mustUnderstand[0];
  if (header !== undefined) return refuse(version, 'MUST_UNDERSTAND', [header], operation);
  const parameters = bindParameters(reading, operation, operations.namespace);
  // XmlSerializer cannot read a string parameter that holds elements: an XML reading error.
  if (parameters === null) return refuse(version, 'MALFORMED_XML', [], operation);
  return { ok: true, version, operation, parameters };
}

/** What stops routing on the body element from even finding it. */
function routingStructureError(reading: EnvelopeReading): AsmxError<ErrorOf<'soap'>> & { args: string[] } | null {
  if (reading.routingError !== null) return { code: 'XML_ERROR', args: [reading.routingError] };
  if (reading.root?.local !== 'Envelope') return { code: 'ENVELOPE_MISSING', args: [] };
  if (!reading.hasBody) return { code: 'BODY_MISSING', args: [] };
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
