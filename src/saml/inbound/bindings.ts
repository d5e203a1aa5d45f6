import { inflateRawSync } from 'node:zlib';
import { MESSAGE_BOUNDS } from '../xml-guard.js';
import { refuse } from './refusal.js';

/** The query parameter or form field that carries the message: a request, or a response to the IdP's request. */
export type MessageParameter = 'SAMLRequest' | 'SAMLResponse';

/** A message as its binding carried it, decoded to its XML but not yet read. */
export interface CarriedMessage {
  parameter: MessageParameter;
  xml: string;
  relayState?: string;
  /** An HTTP-Redirect signature: over the query's octets, not the XML. */
  querySignature?: QuerySignature;
}

export interface QuerySignature {
  sigAlg: string;
  signature: Buffer;
  /** `SAMLRequest=…&RelayState=…&SigAlg=…` exactly as the query carried them (SAML bindings 3.4.4.1). */
  signedOctets: string;
}

/**
 * The bindings spec bounds RelayState at 80 bytes, but service providers (Shibboleth among them) send longer
 * ones; a kilobyte holds what they send and stays small enough to keep in a pending request and echo back.
 */
export const MAX_RELAY_STATE_BYTES = 1024;

/** A UTF-8 document of MESSAGE_BOUNDS.maxLength UTF-16 code units takes at most three bytes for each. */
const MAX_MESSAGE_BYTES = 3 * MESSAGE_BOUNDS.maxLength;
/** Base64 of MAX_MESSAGE_BYTES (four characters for three bytes), with room for a form's line breaks. */
const MAX_ENCODED_LENGTH = 6 * MESSAGE_BOUNDS.maxLength;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Strict base64 (a form may wrap it in lines): Buffer.from alone skips what is not base64 and reads the rest. */
function base64(value: string, what: string): Buffer {
  if (value.length > MAX_ENCODED_LENGTH) refuse('encoding', `${what} longer than ${MAX_ENCODED_LENGTH} characters`);
  const compact = value.replace(/[\r\n\t ]/g, '');
  if (compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) refuse('encoding', `${what} is not base64`);
  return Buffer.from(compact, 'base64');
}

function text(bytes: Buffer, what: string): string {
  try {
    return utf8.decode(bytes);
  } catch {
    return refuse('encoding', `${what} is not UTF-8`);
  }
}

/** Raw DEFLATE (the HTTP-Redirect encoding), stopped as soon as it grows past the bound: an inflate bomb costs no more. */
function inflate(bytes: Buffer, what: string): Buffer {
  try {
    return inflateRawSync(bytes, { maxOutputLength: MAX_MESSAGE_BYTES });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') return refuse('encoding', `${what} inflates past ${MAX_MESSAGE_BYTES} bytes`);
    return refuse('encoding', `${what} is not raw DEFLATE`);
  }
}

function relayStateWithin(relayState: string | undefined): string | undefined {
  if (relayState !== undefined && Buffer.byteLength(relayState) > MAX_RELAY_STATE_BYTES) {
    refuse('relay-state', `RelayState longer than ${MAX_RELAY_STATE_BYTES} bytes`);
  }
  return relayState;
}

function messageParameter(has: (name: MessageParameter) => boolean): MessageParameter {
  const carried = (['SAMLRequest', 'SAMLResponse'] as const).filter(has);
  if (carried.length !== 1) refuse('encoding', carried.length === 0 ? 'neither SAMLRequest nor SAMLResponse' : 'both SAMLRequest and SAMLResponse');
  return carried[0]!;
}

/** An XML document begins with `<`, after a byte order mark or white space; a DEFLATE stream may not. */
const XML_START = /^(?:\xEF\xBB\xBF)?[\t\n\r ]*</;

/**
 * The HTTP-POST binding: the message base64-encoded in a form field. The binding does not DEFLATE it, but
 * node-saml (passport-saml) does by default, so a form field that is not XML is inflated as the Redirect
 * binding's is, within the same bound. A body parser gives a field sent twice as an array, whatever the type says.
 */
export function fromPostForm(fields: Record<string, string>): CarriedMessage {
  const field = (name: string): string | undefined => {
    const value: unknown = Object.hasOwn(fields, name) ? fields[name] : undefined;
    if (value !== undefined && typeof value !== 'string') refuse('encoding', `${name} given twice`);
    return value;
  };
  const parameter = messageParameter((name) => field(name) !== undefined);
  const bytes = base64(field(parameter)!, parameter);
  const xml = text(XML_START.test(bytes.subarray(0, 64).toString('latin1')) ? bytes : inflate(bytes, parameter), parameter);
  return { parameter, xml, relayState: relayStateWithin(field('RelayState')) };
}

/** The parameters the HTTP-Redirect binding defines; others may be present, and nothing covers them. */
const REDIRECT_PARAMETERS = new Set(['SAMLRequest', 'SAMLResponse', 'RelayState', 'SigAlg', 'Signature']);

interface RawParameter {
  /** `name=value` as the query carried it. */
  raw: string;
  value: string;
}

function formDecoded(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return refuse('encoding', 'a query parameter that is not URL-encoded UTF-8');
  }
}

/** The binding's parameters, each once, with the octets it was sent as (the signature covers those, not their decoding). */
function redirectParameters(rawQuery: string): Map<string, RawParameter> {
  const parameters = new Map<string, RawParameter>();
  for (const raw of rawQuery.split('&')) {
    const equals = raw.indexOf('=');
    const name = formDecoded(equals === -1 ? raw : raw.slice(0, equals));
    if (!REDIRECT_PARAMETERS.has(name)) continue;
    if (parameters.has(name)) refuse('encoding', `${name} given twice`);
    parameters.set(name, { raw, value: formDecoded(equals === -1 ? '' : raw.slice(equals + 1)) });
  }
  return parameters;
}

/**
 * The HTTP-Redirect binding: the message DEFLATEd and base64-encoded in the query, its signature (if any) over
 * the query's own octets. rawQuery is the query as the browser sent it, after the `?`.
 */
export function fromRedirectQuery(rawQuery: string): CarriedMessage {
  const parameters = redirectParameters(rawQuery);
  const parameter = messageParameter((name) => parameters.has(name));
  const message = parameters.get(parameter)!;
  const xml = text(inflate(base64(message.value, parameter), parameter), parameter);
  const relayState = parameters.get('RelayState');
  const carried: CarriedMessage = { parameter, xml, relayState: relayStateWithin(relayState?.value) };
  const sigAlg = parameters.get('SigAlg');
  const signature = parameters.get('Signature');
  if (sigAlg === undefined && signature === undefined) return carried;
  if (sigAlg === undefined || signature === undefined) refuse('signature', sigAlg === undefined ? 'a Signature without SigAlg' : 'a SigAlg without Signature');
  const signedOctets = [message, relayState, sigAlg].flatMap((p) => (p === undefined ? [] : [p.raw])).join('&');
  return { ...carried, querySignature: { sigAlg: sigAlg.value, signature: base64(signature.value, 'Signature'), signedOctets } };
}
