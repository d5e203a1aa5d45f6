/**
 * Strict-Transport-Security on every response to a request that came over HTTPS: through a trusted proxy that
 * says so, or on a TLS connection; never over plain HTTP or on an untrusted peer's say-so; none with
 * HSTS_MAX_AGE=0. On every family of routes: the ASMX endpoint and its refusals (ALLOWED_HOSTS' too), the pages, SCIM, the OpenID
 * provider, the probes and the 404.
 */
import type { IncomingMessage } from 'node:http';
import { loadConfig, type Environment } from '../../src/config/config.js';
import { strictTransportSecurity } from '../../src/web/strict-transport.js';
import { REFERENCE } from '../helpers/reference-data.js';
import type { TestApp } from '../helpers/test-app.js';
import { register, startOidcApp } from '../oidc/relying-party.js';

const YEAR = 'max-age=31536000';

let app: TestApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** The Strict-Transport-Security header of a response from each family of routes, by name. */
async function headersOfEveryRoute(env: Environment, forwarded: Record<string, string>): Promise<Record<string, string | null>> {
  app = await startOidcApp({ env: { METRICS_ENABLED: 'true', ALLOWED_HOSTS: '127.0.0.1', ...env } });
  await register(app, { firstParty: true });
  const scim = await app.services.provisioners.add('entra');
  const base = app.baseUrl;
  const asmx = `${base}/Authentication.asmx`;
  const soap = `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><AuthenticateToken xmlns="${REFERENCE.namespace}"><securityPassword>${REFERENCE.password}</securityPassword><token>x</token></AuthenticateToken></soap:Body></soap:Envelope>`;
  const requests: Record<string, [string, RequestInit?]> = {
    wsdl: [`${asmx}?wsdl`],
    soap: [asmx, { method: 'POST', headers: { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: `"${REFERENCE.namespace}AuthenticateToken"` }, body: soap }],
    sidecar: [`${asmx}/AuthenticateToken?securityPassword=${REFERENCE.password}&token=x`],
    asmxRefusal: [asmx, { method: 'PUT' }],
    // Refused for its host when a trusted proxy names it.
    otherHost: [`${asmx}?wsdl`, { headers: { 'X-Forwarded-Host': 'elsewhere.example' } }],
    signIn: [`${base}/Login`],
    scim: [`${base}/scim/v2/Users`, { headers: { Authorization: `Bearer ${scim?.token ?? ''}` } }],
    discovery: [`${base}/.well-known/openid-configuration`],
    authorization: [`${base}/oidc/auth?client_id=nobody`],
    healthz: [`${base}/healthz`],
    readyz: [`${base}/readyz`],
    metrics: [`${base}/metrics`],
    notFound: [`${base}/nothing-here`],
  };
  const found: Record<string, string | null> = {};
  for (const [name, [url, init = {}]] of Object.entries(requests)) {
    const response = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), ...forwarded } });
    expect([name, response.status < 500]).toEqual([name, true]);
    found[name] = response.headers.get('strict-transport-security');
  }
  return found;
}

const every = (value: string | null, names: Record<string, unknown>) => Object.fromEntries(Object.keys(names).map((name) => [name, value]));

it('sends it on every route to a request a trusted proxy says came over HTTPS', async () => {
  const found = await headersOfEveryRoute({ TRUST_PROXY: '127.0.0.1' }, { 'X-Forwarded-Proto': 'https' });
  expect(found).toEqual(every(YEAR, found));
});

it('sends none over plain HTTP, none on the say-so of a proxy not trusted, and none with HSTS_MAX_AGE=0', async () => {
  for (const [env, forwarded] of [
    [{ TRUST_PROXY: '127.0.0.1' }, { 'X-Forwarded-Proto': 'http' }],
    [{ TRUST_PROXY: '127.0.0.1' }, {}],
    [{}, { 'X-Forwarded-Proto': 'https' }],
    [{ TRUST_PROXY: '10.0.0.5' }, { 'X-Forwarded-Proto': 'https' }],
    [{ TRUST_PROXY: '127.0.0.1', HSTS_MAX_AGE: '0' }, { 'X-Forwarded-Proto': 'https' }],
  ] as const) {
    const found = await headersOfEveryRoute(env, forwarded);
    expect([env, found]).toEqual([env, every(null, found)]);
    await app?.close();
    app = undefined;
  }
});

it('sends it for a TLS connection, with HSTS_MAX_AGE as given in seconds or as a duration', () => {
  const tls = { socket: { encrypted: true, remoteAddress: '192.0.2.1' }, headers: {} } as unknown as IncomingMessage;
  const plain = { socket: { remoteAddress: '192.0.2.1' }, headers: { 'x-forwarded-proto': 'https' } } as unknown as IncomingMessage;
  expect(strictTransportSecurity(loadConfig({}))(tls)).toBe(YEAR);
  expect(strictTransportSecurity(loadConfig({}))(plain)).toBeUndefined();
  expect(strictTransportSecurity(loadConfig({ HSTS_MAX_AGE: '600' }))(tls)).toBe('max-age=600');
  expect(strictTransportSecurity(loadConfig({ HSTS_MAX_AGE: '730d' }))(tls)).toBe('max-age=63072000');
  expect(strictTransportSecurity(loadConfig({ HSTS_MAX_AGE: '0' }))(tls)).toBeUndefined();
  for (const wrong of ['-1', 'a year', '1y', '1.5']) expect(() => loadConfig({ HSTS_MAX_AGE: wrong })).toThrow(/HSTS_MAX_AGE: must be 0 \(off\) or a duration/);
});
