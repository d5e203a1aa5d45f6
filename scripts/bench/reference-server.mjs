#!/usr/bin/env node
// @ts-check
/**
 * The benchmark's ceiling: a minimal server on raw node:http that answers AuthenticateToken and
 * AuthenticateCookie over SOAP 1.1, SOAP 1.2, HTTP GET and HTTP POST with the same ASMX bytes as the service
 * (Content-Type, Cache-Control, Content-Length and body), for one seeded caller and either one member and
 * session held in constants or the at-scale data set (scripts/bench/data-set.mjs), whose members and sessions
 * it computes from the token's or cookie's index. No framework, no store, no logging, no request id: what is
 * left is what Node itself costs.
 *
 * It is not a second implementation of the service: it knows only the happy path and a few refusals, and
 * nothing of ASMX's routing rules, charsets, SOAPAction checks, headers or faults beyond what the benchmark
 * sends. scripts/bench/run.mjs and scale.mjs start it as a child process (fork) with its settings in
 * BENCH_REFERENCE (JSON, see ReferenceConfig) and learn the port from an IPC message { port }. Its
 * signed-in result text is also what the floor server (floor-server.mjs) answers.
 */
import { SaxesParser } from 'saxes';
import { listenAsChild } from './child-server.mjs';
import { cookieAt, memberAt, memberIndexOf, sessionIndexOf, tokenAt } from './data-set.mjs';

/** @typedef {{ id: string, email: string, firstName: string, lastName: string }} ReferenceMember */
/** @typedef {{ member: ReferenceMember, token: string, cookie: string, domain: string }} ReferenceSession */

/**
 * @typedef {object} ReferenceConfig
 * @property {number} port 0 for any free port
 * @property {string} namespace the service namespace (SOAP_NAMESPACE), ending with "/"
 * @property {'ibridge' | 'json' | 'plain'} resultFormat
 * @property {string} password the caller's security password
 * @property {{ one: ReferenceSession } | { dataSet: import('./data-set.mjs').DataSet }} sessions the one
 *   session (its domain as the partner sends it), or the data set's
 */

/** @typedef {'AuthenticateToken' | 'AuthenticateCookie'} Operation */

const SOAP11_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
const SOAP12_NS = 'http://www.w3.org/2003/05/soap-envelope';
const XML_CT = 'text/xml; charset=utf-8';
const SOAP12_CT = 'application/soap+xml; charset=utf-8';
const TEXT_CT = 'text/plain; charset=utf-8';
const SCHEMA_NAMESPACES = 'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"';
/** @type {Record<Operation, string[]>} */
const PARAMETERS = {
  AuthenticateToken: ['securityPassword', 'token'],
  AuthenticateCookie: ['securityPassword', 'loginCookie', 'cookieDomain'],
};
/** @type {Record<Operation, { number: number, description: string }>} */
const NOT_SIGNED_IN = {
  AuthenticateToken: { number: 1001, description: 'Invalid token: no live session has this token' },
  AuthenticateCookie: { number: 1002, description: 'Invalid login cookie: no live session token was issued for this cookie and domain' },
};
const INVALID_PASSWORD = 'Invalid security password';
const IBRIDGE_DECLARATION = '<?xml version="1.0" encoding="UTF-16"?>';

/** @type {Record<string, string>} */
const ENTITIES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\t': '&#x9;', '\n': '&#xA;', '\r': '&#xD;' };
/** Element text as ASMX escapes it. @param {string} text */
export const escapeText = (text) => text.replace(/[&<>]/g, (c) => ENTITIES[c] ?? c);
/** @param {string} text */
const escapeAttribute = (text) => text.replace(/[&<>"\t\n\r]/g, (c) => ENTITIES[c] ?? c);
/** @param {string} domain */
const normalizeDomain = (domain) => domain.trim().replace(/^\.+/, '').replace(/\.$/, '').toLowerCase();

/**
 * Finds sessions by token or login cookie: the one in the settings, or any of the data set's.
 * @param {ReferenceConfig['sessions']} sessions
 * @returns {{ byToken: (token: string | undefined) => ReferenceSession | null, byCookie: (cookie: string | undefined) => ReferenceSession | null }}
 */
function sessionLookup(sessions) {
  if ('one' in sessions) {
    const one = { ...sessions.one, domain: normalizeDomain(sessions.one.domain) };
    return { byToken: (token) => (token === one.token ? one : null), byCookie: (cookie) => (cookie === one.cookie ? one : null) };
  }
  const { dataSet } = sessions;
  const domain = normalizeDomain(dataSet.domain);
  /** @param {number} index @returns {ReferenceSession | null} */
  const at = (index) => (index === -1 ? null : { member: memberAt(memberIndexOf(dataSet, index)), token: tokenAt(dataSet, index), cookie: cookieAt(dataSet, index), domain });
  return {
    byToken: (token) => at(sessionIndexOf(dataSet.tokenPrefix, dataSet.sessions, token)),
    byCookie: (cookie) => at(sessionIndexOf(dataSet.cookiePrefix, dataSet.sessions, cookie)),
  };
}

/**
 * A signed-in member's result text in the given format; it depends only on the session (the floor server
 * answers every call with it).
 * @param {ReferenceConfig['resultFormat']} resultFormat
 * @param {ReferenceSession} session
 * @returns {string}
 */
export function signedInResult(resultFormat, session) {
  const m = session.member;
  const fullName = [m.firstName, m.lastName].filter(Boolean).join(' ');
  if (resultFormat === 'plain') return m.id;
  if (resultFormat === 'json') {
    return JSON.stringify({
      status: 'Success',
      message: '',
      contactid: m.id,
      pa_token: session.token,
      emailaddress1: m.email,
      firstname: m.firstName,
      lastname: m.lastName,
      fullname: fullName,
    });
  }
  const attributes = [
    ['ID', m.id],
    ['TOKEN', session.token],
    ['EMAIL', m.email],
    ['FIRSTNAME', m.firstName],
    ['LASTNAME', m.lastName],
    ['FULL_NAME', fullName],
    ['USER_COOKIE', `.ASPXAUTH=${session.cookie}`],
  ];
  return `${IBRIDGE_DECLARATION}<iBridge><User ${attributes.map(([name, value]) => `${name}="${escapeAttribute(String(value))}"`).join(' ')} /></iBridge>`;
}

/**
 * The answer for one call. A signed-in member's result text depends only on the session (ibridge, json and
 * plain alike), so it is rendered once per session object: once in all for the one session.
 * @param {ReferenceConfig} config
 */
export function createReference(config) {
  const sessions = sessionLookup(config.sessions);

  /** @param {Operation} operation @returns {string} */
  const renderNotSignedIn = (operation) => {
    if (config.resultFormat === 'plain') return '';
    const { number, description } = NOT_SIGNED_IN[operation];
    if (config.resultFormat === 'json') return JSON.stringify({ status: 'Failure', message: description });
    return `${IBRIDGE_DECLARATION}<iBridge><Errors><Error Number="${number}" Description="${escapeAttribute(description)}" /></Errors></iBridge>`;
  };
  /** @type {Record<Operation, string>} */
  const notSignedIn = { AuthenticateToken: renderNotSignedIn('AuthenticateToken'), AuthenticateCookie: renderNotSignedIn('AuthenticateCookie') };
  /** @type {WeakMap<ReferenceSession, string>} */
  const rendered = new WeakMap();

  /**
   * @param {Operation} operation
   * @param {(name: string) => string | undefined} read
   * @returns {string | null} the result text, or null for a wrong security password
   */
  const invoke = (operation, read) => {
    if (read('securityPassword') !== config.password) return null;
    const session =
      operation === 'AuthenticateToken'
        ? sessions.byToken(read('token'))
        : sessions.byCookie(read('loginCookie'));
    if (session === null || (operation === 'AuthenticateCookie' && normalizeDomain(read('cookieDomain') ?? '') !== session.domain)) return notSignedIn[operation];
    let result = rendered.get(session);
    if (result === undefined) {
      result = signedInResult(config.resultFormat, session);
      rendered.set(session, result);
    }
    return result;
  };

  const ns = escapeAttribute(config.namespace);
  /** @param {string} result */
  const stringElement = (result) =>
    `<?xml version="1.0" encoding="utf-8"?>\n${result === '' ? `<string xmlns="${ns}" />` : `<string xmlns="${ns}">${escapeText(result)}</string>`}`;
  /** @param {'1.1' | '1.2'} version @param {string} body */
  const envelope = (version, body) =>
    `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${version === '1.1' ? SOAP11_NS : SOAP12_NS}" ${SCHEMA_NAMESPACES}><soap:Body>${body}</soap:Body></soap:Envelope>`;
  /** @param {Operation} operation @param {string} result */
  const soapResult = (operation, result) =>
    `<${operation}Response xmlns="${ns}">${result === '' ? `<${operation}Result />` : `<${operation}Result>${escapeText(result)}</${operation}Result>`}</${operation}Response>`;
  /** @param {'1.1' | '1.2'} version @param {string} text */
  const serverFault = (version, text) =>
    version === '1.1'
      ? `<soap:Fault><faultcode>soap:Server</faultcode><faultstring>${escapeText(text)}</faultstring><detail /></soap:Fault>`
      : `<soap:Fault><soap:Code><soap:Value>soap:Receiver</soap:Value></soap:Code><soap:Reason><soap:Text xml:lang="en">${escapeText(text)}</soap:Text></soap:Reason><soap:Detail /></soap:Fault>`;

  /**
   * @param {string} xml
   * @returns {{ version: '1.1' | '1.2', operation: Operation | null, parameters: Map<string, string> } | null}
   */
  const readEnvelope = (xml) => {
    const parser = new SaxesParser({ xmlns: true });
    /** @type {'1.1' | '1.2' | null} */
    let version = null;
    /** @type {Operation | null} */
    let operation = null;
    /** @type {Map<string, string>} */
    const parameters = new Map();
    let depth = 0;
    let inBody = false;
    /** @type {string | null} */
    let parameter = null;
    let text = '';
    parser.on('opentag', (tag) => {
      depth += 1;
      if (depth === 1) {
        version = tag.uri === SOAP11_NS ? '1.1' : tag.uri === SOAP12_NS ? '1.2' : null;
      } else if (depth === 2) {
        inBody = tag.local === 'Body' && tag.uri === (version === '1.1' ? SOAP11_NS : SOAP12_NS);
      } else if (depth === 3 && inBody && operation === null) {
        if (tag.uri === config.namespace && (tag.local === 'AuthenticateToken' || tag.local === 'AuthenticateCookie')) operation = tag.local;
      } else if (depth === 4 && operation !== null && tag.uri === config.namespace) {
        parameter = tag.local;
        text = '';
      }
    });
    parser.on('text', (t) => {
      if (parameter !== null) text += t;
    });
    parser.on('closetag', () => {
      if (depth === 4 && parameter !== null) {
        if (!parameters.has(parameter)) parameters.set(parameter, text);
        parameter = null;
      }
      depth -= 1;
    });
    parser.on('error', (error) => {
      throw error;
    });
    try {
      parser.write(xml).close();
    } catch {
      return null;
    }
    return version === null ? null : { version, operation, parameters };
  };

  /**
   * @param {import('node:http').ServerResponse} res
   * @param {number} status
   * @param {string} contentType
   * @param {string} body
   * @param {string} [cacheControl]
   */
  const send = (res, status, contentType, body, cacheControl = 'private, max-age=0') => {
    const bytes = Buffer.from(body, 'utf8');
    res.writeHead(status, { 'Content-Type': contentType, 'Cache-Control': cacheControl, 'Content-Length': bytes.length });
    res.end(bytes);
  };

  /** @param {URLSearchParams} params @returns {(name: string) => string | undefined} */
  const formReader = (params) => {
    /** @type {Map<string, string>} */
    const byName = new Map();
    for (const [key, value] of params) {
      const lower = key.toLowerCase();
      const before = byName.get(lower);
      byName.set(lower, before === undefined ? value : `${before},${value}`);
    }
    return (name) => byName.get(name.toLowerCase());
  };

  /**
   * @param {import('node:http').ServerResponse} res
   * @param {Operation} operation
   * @param {URLSearchParams} params
   */
  const answerHttp = (res, operation, params) => {
    const read = formReader(params);
    for (const name of PARAMETERS[operation]) {
      if (read(name) === undefined) return send(res, 500, TEXT_CT, `Missing parameter: ${name}.\n`, 'private');
    }
    const result = invoke(operation, read);
    if (result === null) return send(res, 500, TEXT_CT, `${INVALID_PASSWORD}\n`);
    send(res, 200, XML_CT, stringElement(result));
  };

  /** @param {import('node:http').ServerResponse} res @param {string} body */
  const answerSoap = (res, body) => {
    const reading = readEnvelope(body);
    if (reading === null || reading.operation === null) return send(res, 400, XML_CT, '', 'private');
    const { version, operation, parameters } = reading;
    const contentType = version === '1.1' ? XML_CT : SOAP12_CT;
    const result = invoke(operation, (name) => parameters.get(name));
    if (result === null) return send(res, 500, contentType, envelope(version, serverFault(version, `Server was unable to process request. ---> ${INVALID_PASSWORD}`)));
    send(res, 200, contentType, envelope(version, soapResult(operation, result)));
  };

  const endpoint = '/authentication.asmx';
  /** @type {import('node:http').RequestListener} */
  return (req, res) => {
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    const lowerPath = path.toLowerCase();
    /** @type {Operation | null} */
    let operation = null;
    if (lowerPath.startsWith(`${endpoint}/`)) {
      const name = path.slice(endpoint.length + 1);
      operation = name === 'AuthenticateToken' || name === 'AuthenticateCookie' ? name : null;
      if (operation === null) return send(res, 500, TEXT_CT, `${name} Web Service method name is not valid.\n`, 'private');
    } else if (lowerPath !== endpoint) {
      return send(res, 404, 'text/html; charset=utf-8', '', 'private');
    }
    if (req.method === 'GET' && operation !== null) {
      return answerHttp(res, operation, new URLSearchParams(queryAt === -1 ? '' : url.slice(queryAt + 1)));
    }
    if (req.method !== 'POST') return send(res, 500, TEXT_CT, 'Request format is unrecognized.\n', 'private');
    /** @type {Buffer[]} */
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (operation !== null) answerHttp(res, operation, new URLSearchParams(body));
      else answerSoap(res, body);
    });
  };
}

// Run as a child process: settings from BENCH_REFERENCE, the port reported over IPC.
if (process.env.BENCH_REFERENCE) {
  /** @type {ReferenceConfig} */
  const config = JSON.parse(process.env.BENCH_REFERENCE);
  listenAsChild(createReference(config), config.port, 'reference server');
}
