// @ts-check
/**
 * The eight requests the benchmark sends: SOAP 1.1, SOAP 1.2, HTTP GET and HTTP POST, each for
 * AuthenticateToken and AuthenticateCookie, shaped as the clients in test/golden/transcripts send them
 * (a .NET-style envelope with the XML declaration and indentation; a form-encoded body or query string).
 */
import { NAMESPACE } from './service.mjs';

/** @typedef {'soap11' | 'soap12' | 'httpget' | 'httppost'} Binding */
/** @typedef {'AuthenticateToken' | 'AuthenticateCookie'} Operation */

/**
 * @typedef {object} BenchRequest
 * @property {'GET' | 'POST'} method
 * @property {string} path
 * @property {Record<string, string>} headers
 * @property {string} [body]
 */

/**
 * @typedef {object} BenchCase
 * @property {string} name e.g. "SOAP 1.1 AuthenticateToken"
 * @property {Binding} binding
 * @property {Operation} operation
 * @property {(values: CallValues) => BenchRequest} request
 */

/** What a call carries: the seed's values, or those of one call of the at-scale traffic. */
/** @typedef {{ password: string, token: string, cookie: string, domain: string }} CallValues */

/** @type {Record<Binding, string>} */
export const BINDING_LABEL = { soap11: 'SOAP 1.1', soap12: 'SOAP 1.2', httpget: 'HTTP GET', httppost: 'HTTP POST' };

/** @param {string} text */
const xmlText = (text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** @param {Operation} operation @param {CallValues} values @returns {Array<[string, string]>} */
function parameters(operation, values) {
  return operation === 'AuthenticateToken'
    ? [
        ['securityPassword', values.password],
        ['token', values.token],
      ]
    : [
        ['securityPassword', values.password],
        ['loginCookie', values.cookie],
        ['cookieDomain', values.domain],
      ];
}

/** @param {'soap' | 'soap12'} prefix @param {string} envelopeNs @param {Operation} operation @param {Array<[string, string]>} params */
function soapEnvelope(prefix, envelopeNs, operation, params) {
  const fields = params.map(([name, value]) => `      <${name}>${xmlText(value)}</${name}>`).join('\n');
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    `<${prefix}:Envelope xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:${prefix}="${envelopeNs}">`,
    `  <${prefix}:Body>`,
    `    <${operation} xmlns="${NAMESPACE}">`,
    fields,
    `    </${operation}>`,
    `  </${prefix}:Body>`,
    `</${prefix}:Envelope>`,
    '',
  ].join('\n');
}

/** @param {Binding} binding @param {Operation} operation @returns {BenchCase} */
function benchCase(binding, operation) {
  return {
    name: `${BINDING_LABEL[binding]} ${operation}`,
    binding,
    operation,
    request: (values) => {
      /** @type {BenchRequest} */
      let request;
      const params = parameters(operation, values);
      const form = new URLSearchParams(params).toString();
      switch (binding) {
        case 'soap11':
          request = {
            method: 'POST',
            path: '/Authentication.asmx',
            headers: { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: `"${NAMESPACE}${operation}"` },
            body: soapEnvelope('soap', 'http://schemas.xmlsoap.org/soap/envelope/', operation, params),
          };
          break;
        case 'soap12':
          request = {
            method: 'POST',
            path: '/Authentication.asmx',
            headers: { 'Content-Type': 'application/soap+xml; charset=utf-8' },
            body: soapEnvelope('soap12', 'http://www.w3.org/2003/05/soap-envelope', operation, params),
          };
          break;
        case 'httpget':
          request = { method: 'GET', path: `/Authentication.asmx/${operation}?${form}`, headers: {} };
          break;
        case 'httppost':
          request = {
            method: 'POST',
            path: `/Authentication.asmx/${operation}`,
            headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
            body: form,
          };
          break;
      }
      return request;
    },
  };
}

/** @type {BenchCase[]} */
export const CASES = /** @type {Binding[]} */ (['soap11', 'soap12', 'httpget', 'httppost']).flatMap((binding) =>
  /** @type {Operation[]} */ (['AuthenticateToken', 'AuthenticateCookie']).map((operation) => benchCase(binding, operation)),
);

/**
 * The sign-in mix: HTTP POST AuthenticateUser, each call a sign-in with the seeded member's password (a session
 * issued), with a wrong password or with a login nobody has, in SIGNIN_MIX's proportions, in a fixed cycle. Every
 * call records an event (signin-succeeded or signin-failed) when events are on; each one costs an argon2id
 * verification, as a real sign-in does, a success also the new session's write, a failure the throttle's.
 */
export const SIGNIN_MIX = {
  name: 'HTTP POST AuthenticateUser, sign-in mix',
  /** Out of every ten calls. */
  cycle: /** @type {const} */ (['right', 'right', 'wrong', 'right', 'unknown', 'right', 'right', 'wrong', 'right', 'right']),
  /**
   * AuthenticateUser offered (it is not by default); every wrong password is the member's, from 127.0.0.1: the
   * sign-in throttle must count them without locking the bench out.
   */
  serviceEnv: {
    OPERATIONS: 'AuthenticateCookie,AuthenticateToken,AuthenticateUser',
    SIGNIN_MAX_FAILURES_PER_ACCOUNT: '1000',
    SIGNIN_MAX_FAILURES_PER_ADDRESS: '100000',
    SIGNIN_FAILURE_WINDOW: '60',
  },
  /**
   * @param {{ password: string, member: { username: string }, memberPassword: string }} seed
   * @param {'right' | 'wrong' | 'unknown'} kind
   * @returns {BenchRequest}
   */
  request: (seed, kind) => ({
    method: 'POST',
    path: '/Authentication.asmx/AuthenticateUser',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams([
      ['securityPassword', seed.password],
      ['username', kind === 'unknown' ? 'nobody-here' : seed.member.username],
      ['password', kind === 'wrong' ? `${seed.memberPassword}-wrong` : seed.memberPassword],
      ['authenticationToken', ''],
    ]).toString(),
  }),
  /**
   * The next call's request, round the cycle.
   * @param {Parameters<typeof SIGNIN_MIX.request>[0]} seed
   */
  traffic(seed) {
    const requests = this.cycle.map((kind) => this.request(seed, kind));
    let next = 0;
    return () => /** @type {BenchRequest} */ (requests[next++ % requests.length]);
  },
};

/**
 * What each binding should reach (embedded store, 32 connections): a multiple of its floor's throughput (the
 * design card's stack answering a constant: node-soap for SOAP, a bare Express route for HTTP) and, for HTTP, a
 * share of the reference's.
 * @type {Record<Binding, { floor: number, reference?: number }>}
 */
export const TARGETS = {
  soap11: { floor: 1 },
  soap12: { floor: 1 },
  httpget: { floor: 1.3, reference: 0.5 },
  httppost: { floor: 1.3, reference: 0.5 },
};
/** The service's p99 latency should stay under this multiple of the floor's. */
export const TARGET_P99_OF_FLOOR = 2;
