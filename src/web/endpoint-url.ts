import type { IncomingMessage } from 'node:http';
import { isIPv6 } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Config } from '../config/config.js';

/** The file name of the endpoint; it stays fixed whatever the service is called, as clients have it hard-coded. */
export const ENDPOINT_FILE = 'Authentication.asmx';

// Strict on purpose: the result is written into the WSDL, the disco and the help page.
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::(\d{1,5}))?$/;
const PATH_PREFIX = /^(?:\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)*\/?$/;

/**
 * The URL the client reached the endpoint at: config.publicUrl when set; otherwise the scheme of the
 * connection and the Host header (the socket's address when it is missing or invalid), with
 * X-Forwarded-Proto/Host/Prefix taking precedence only on a connection from a trusted proxy (TRUST_PROXY).
 */
export function endpointUrl(req: IncomingMessage, config: Config): string {
  if (config.publicUrl !== undefined) return `${config.publicUrl}/${ENDPOINT_FILE}`;
  const forwarded = config.trustProxy.trusts(req.socket.remoteAddress) ? forwardedParts(req) : undefined;
  const scheme = forwarded?.scheme ?? connectionScheme(req);
  const host = forwarded?.host ?? validHost(req.headers.host) ?? socketHost(req);
  const prefix = forwarded?.prefix ?? '';
  return `${scheme}://${host}${prefix}${config.basePath}/${ENDPOINT_FILE}`;
}

/**
 * The root the client reached the service at, where the paths outside BASE_PATH are (the SCIM root at
 * `{root}/scim/v2`): the endpoint's URL without BASE_PATH and the endpoint's file, so that PUBLIC_URL and a
 * trusted proxy's prefix apply as they do to the endpoint. A PUBLIC_URL that does not end in BASE_PATH names no
 * such root: its origin then.
 */
export function siteRootUrl(req: IncomingMessage, config: Config): string {
  const endpoint = endpointUrl(req, config);
  const tail = `${config.basePath}/${ENDPOINT_FILE}`;
  return endpoint.endsWith(tail) ? endpoint.slice(0, -tail.length) : new URL(endpoint).origin;
}

/**
 * The domain a session begun by this request is for, on the sign-in page or through AuthenticateUser alike:
 * COOKIE_DOMAIN when set, else the host the service was reached at.
 */
export function sessionCookieDomain(req: IncomingMessage, config: Config): string {
  return config.signin.cookieDomain ?? new URL(endpointUrl(req, config)).hostname;
}

/** The scheme the request came by: X-Forwarded-Proto on a connection from a trusted proxy, else the connection's. */
export function requestScheme(req: IncomingMessage, config: Pick<Config, 'trustProxy'>): 'http' | 'https' {
  const forwarded = config.trustProxy.trusts(req.socket.remoteAddress) ? forwardedParts(req).scheme : undefined;
  return forwarded ?? connectionScheme(req);
}

const connectionScheme = (req: IncomingMessage) => ((req.socket as Partial<TLSSocket>).encrypted === true ? 'https' : 'http');

/**
 * The host name a request names, lower-cased and without its port: X-Forwarded-Host on a connection from a
 * trusted proxy, else a valid Host header; undefined when neither names one.
 */
export function requestHost(req: IncomingMessage, config: Config): string | undefined {
  const forwarded = config.trustProxy.trusts(req.socket.remoteAddress) ? forwardedParts(req).host : undefined;
  const host = forwarded ?? validHost(req.headers.host);
  return host?.replace(/:\d+$/, '');
}

function forwardedParts(req: IncomingMessage): { scheme?: 'http' | 'https'; host?: string; prefix?: string } {
  const proto = firstValue(req.headers['x-forwarded-proto'])?.toLowerCase();
  const prefix = firstValue(req.headers['x-forwarded-prefix']);
  return {
    scheme: proto === 'http' || proto === 'https' ? proto : undefined,
    host: validHost(firstValue(req.headers['x-forwarded-host'])),
    prefix: prefix !== undefined && PATH_PREFIX.test(prefix) ? prefix.replace(/\/+$/, '') : undefined,
  };
}

/** Proxies append to X-Forwarded-* lists, so the first entry is the one the client sent. */
function firstValue(header: string | string[] | undefined): string | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.split(',')[0]?.trim();
  return value === '' ? undefined : value;
}

function validHost(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const match = HOST.exec(value);
  if (match === null || Number(match[1] ?? 0) > 65535 || !URL.canParse(`http://${value}`)) return undefined;
  return value.toLowerCase();
}

function socketHost(req: IncomingMessage): string {
  const address = req.socket.localAddress?.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '') ?? 'localhost';
  const host = isIPv6(address) ? `[${address}]` : address;
  return req.socket.localPort === undefined ? host : `${host}:${req.socket.localPort}`;
}
