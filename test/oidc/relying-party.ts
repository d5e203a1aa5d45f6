/**
 * A relying party (openid-client) and a member's browser (PageClient) against a running service whose
 * OpenID provider is on: PUBLIC_URL is the service's own address, known before it starts.
 */
import { createPublicKey, verify, type JsonWebKey } from 'node:crypto';
import { createServer } from 'node:http';
import * as oidcClient from 'openid-client';
import type { Environment } from '../../src/config/config.js';
import type { Clock } from '../../src/service/clock.js';
import type { IssuedOidcClient, OidcClientInput } from '../../src/service/oidc/index.js';
import { PageClient, type Page } from '../helpers/page-client.js';
import { freePort } from '../helpers/ports.js';
import { REFERENCE } from '../helpers/reference-data.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

export const REDIRECT_URI = 'https://rp.example.org/callback';
export const POST_LOGOUT_URI = 'https://rp.example.org/signed-out';
export const PASSWORD = 'correct horse battery staple';

/** The service with the OpenID provider's issuer at its own address (`port`, a free one unless given); ada (REFERENCE.memberId) has PASSWORD. */
export async function startOidcApp(
  options: { env?: Environment; store?: NonNullable<Parameters<typeof startTestApp>[0]>['store']; clock?: Clock; port?: number; secretKey?: Buffer } = {},
): Promise<TestApp> {
  const port = options.port ?? (await freePort());
  const app = await startTestApp({ ...options, port, env: { PUBLIC_URL: `http://127.0.0.1:${port}`, ...options.env } });
  await app.services.members.setPassword(REFERENCE.memberId, PASSWORD);
  await app.services.members.update(REFERENCE.memberId, { attributes: { isMember: true, roles: [{ id: 'r1', name: 'Board' }] } });
  return app;
}

/** Registers a client as oidc-clients add does. */
export async function register(app: TestApp, input: Partial<OidcClientInput> = {}, name = 'portal'): Promise<IssuedOidcClient> {
  return app.services.oidc.clients.add(name, { redirectUris: [REDIRECT_URI], postLogoutRedirectUris: [POST_LOGOUT_URI], ...input });
}

/** The relying party's view of the provider, from discovery, authenticating as the client does. */
export function relyingParty(app: TestApp, issued: IssuedOidcClient): Promise<oidcClient.Configuration> {
  const auth = issued.secret === null ? oidcClient.None() : oidcClient.ClientSecretBasic(issued.secret);
  return oidcClient.discovery(new URL(app.baseUrl), issued.client.id, undefined, auth, { execute: [oidcClient.allowInsecureRequests] });
}

export interface Authorization {
  url: URL;
  verifier: string;
  state: string;
  nonce: string;
}

export async function authorizationRequest(config: oidcClient.Configuration, scope = 'openid profile email membership', extra: Record<string, string> = {}): Promise<Authorization> {
  const verifier = oidcClient.randomPKCECodeVerifier();
  const state = oidcClient.randomState();
  const nonce = oidcClient.randomNonce();
  const url = oidcClient.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope,
    code_challenge: await oidcClient.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...extra,
  });
  return { url, verifier, state, nonce };
}

/**
 * Follows the service's redirects from `page` as a browser does, until one leaves the service (the client's
 * redirect URI) or a page is shown; returns that last response.
 */
export async function follow(browser: PageClient, app: TestApp, page: Page): Promise<Page> {
  let current = page;
  for (let hops = 0; hops < 10 && current.status >= 300 && current.status < 400; hops += 1) {
    const location = new URL(current.headers.location ?? '', app.baseUrl);
    if (location.origin !== new URL(app.baseUrl).origin) return current;
    current = await browser.get(location.pathname + location.search);
  }
  return current;
}

/** The URL the browser was sent back to the client with. */
export function callbackUrl(page: Page): URL {
  if (page.status !== 303 && page.status !== 302) throw new Error(`no redirect to the client (${page.status}):\n${page.text}`);
  return new URL(page.headers.location ?? '');
}

/** Opens the authorization URL in the browser and signs in on the sign-in page; `code` answers a code step. */
export async function signInThrough(browser: PageClient, app: TestApp, url: URL, code?: () => string): Promise<Page> {
  const login = await follow(browser, app, await browser.get(url.pathname + url.search));
  if (login.status !== 200 || !login.text.includes('name="password"')) return login;
  let page = await browser.submit(login, { login: 'ada', password: PASSWORD });
  if (code && page.status === 200) page = await browser.submit(page, { code: code() });
  return follow(browser, app, page);
}

/** A client's back-channel logout endpoint: the logout tokens it was posted, answering each with `status`. */
export interface LogoutReceiver {
  url: string;
  tokens: string[];
  /** What the next posts are answered with (200 unless set). */
  statuses: number[];
  close(): Promise<void>;
}

export async function logoutReceiver(): Promise<LogoutReceiver> {
  const tokens: string[] = [];
  const statuses: number[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const status = statuses.shift() ?? 200;
      if (status === 200) tokens.push(new URLSearchParams(body).get('logout_token') ?? '');
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/backchannel-logout`,
    tokens,
    statuses,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A JWT's payload once its RS256 signature checks out against the provider's published keys (its kid's). */
export async function verifiedJwt(app: TestApp, jwt: string): Promise<Record<string, unknown>> {
  const [header = '', payload = '', signature = ''] = jwt.split('.');
  const { kid, alg } = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { kid?: string; alg?: string };
  const { keys } = (await (await fetch(`${app.baseUrl}/oidc/jwks`)).json()) as { keys: Array<JsonWebKey & { kid: string }> };
  const jwk = keys.find((key) => key.kid === kid);
  if (!jwk || alg !== 'RS256') throw new Error(`no published key ${kid} for ${alg}`);
  const valid = verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), createPublicKey({ key: jwk, format: 'jwk' }), Buffer.from(signature, 'base64url'));
  if (!valid) throw new Error('the signature does not check out');
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
}
