/**
 * What the provider refuses, as OpenID Connect and OAuth say it must: an unknown client or a redirect URI not
 * registered exactly (an error page, never a redirect), a public client without PKCE, a code used twice (and
 * the grant it made), a wrong client secret, a removed client's tokens, an id_token_hint that is not the
 * provider's. What the admin registered is taken as registered, on loopback and private addresses too. None of
 * the secrets, tokens or codes reaches the log.
 */
import * as oidcClient from 'openid-client';
import { PageClient } from '../helpers/page-client.js';
import { REFERENCE } from '../helpers/reference-data.js';
import type { TestApp } from '../helpers/test-app.js';
import { authorizationRequest, callbackUrl, follow, PASSWORD, REDIRECT_URI, register, relyingParty, signInThrough, startOidcApp } from './relying-party.js';

let app: TestApp;
beforeEach(async () => {
  app = await startOidcApp();
});
afterEach(() => app.close());

/** Opens an authorization URL in a browser signed in on the sign-in page; the service's last answer. */
async function authorize(url: URL) {
  const browser = new PageClient(app.baseUrl);
  await browser.signIn('ada', PASSWORD);
  return follow(browser, app, await browser.get(url.pathname + url.search));
}

it('shows an error page, and sends nobody anywhere, for an unknown client or a redirect URI not registered exactly', async () => {
  const issued = await register(app);
  const config = await relyingParty(app, issued);
  const unknown = new URL((await authorizationRequest(config)).url);
  unknown.searchParams.set('client_id', 'no-such-client');
  const elsewhere = new URL((await authorizationRequest(config)).url);
  elsewhere.searchParams.set('redirect_uri', `${REDIRECT_URI}/../evil`);
  const prefix = new URL((await authorizationRequest(config)).url);
  prefix.searchParams.set('redirect_uri', `${REDIRECT_URI}x`);
  for (const url of [unknown, elsewhere, prefix]) {
    const page = await authorize(url);
    expect(page.status).toBe(400);
    expect(page.headers.location).toBeUndefined();
    expect(page.text).toContain('Signing in could not continue');
  }
  expect(app.logLines.filter((line) => line.message === 'oidc refused').map((line) => line.error)).toEqual(['invalid_client', 'invalid_redirect_uri', 'invalid_redirect_uri']);
});

it('takes redirect and post-logout redirect URIs on loopback and private addresses as registered', async () => {
  const uris = ['http://localhost:8080/callback', 'http://192.168.1.10/callback', 'http://[::1]:9000/callback', 'http://intranet/callback'];
  const issued = await register(app, { redirectUris: uris, postLogoutRedirectUris: ['http://10.0.0.5/signed-out'], public: true, firstParty: true });
  const config = await relyingParty(app, issued);
  let idToken = '';
  for (const uri of uris) {
    const request = await authorizationRequest(config, 'openid', { redirect_uri: uri });
    const back = callbackUrl(await authorize(request.url));
    expect(`${back.origin}${back.pathname}`).toBe(uri);
    const tokens = await oidcClient.authorizationCodeGrant(config, back, { pkceCodeVerifier: request.verifier, expectedState: request.state, expectedNonce: request.nonce });
    idToken = tokens.id_token ?? '';
  }
  const endSession = (uri: string) => {
    const end = oidcClient.buildEndSessionUrl(config, { id_token_hint: idToken, post_logout_redirect_uri: uri });
    return new PageClient(app.baseUrl).get(end.pathname + end.search);
  };
  expect((await endSession('http://10.0.0.5/signed-out')).status).toBe(200);
  expect((await endSession('http://10.0.0.6/signed-out')).status).toBe(400);
});

it('requires PKCE with S256 of a public client, takes none but S256, and introspects nothing for it', async () => {
  const issued = await register(app, { public: true, firstParty: true });
  expect(issued.secret).toBeNull();
  const config = await relyingParty(app, issued);
  const without = new URL((await authorizationRequest(config)).url);
  without.searchParams.delete('code_challenge');
  without.searchParams.delete('code_challenge_method');
  const plain = new URL((await authorizationRequest(config)).url);
  plain.searchParams.set('code_challenge_method', 'plain');
  for (const url of [without, plain]) {
    const back = callbackUrl(await authorize(url));
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('code')).toBeNull();
  }
  const request = await authorizationRequest(config);
  const tokens = await oidcClient.authorizationCodeGrant(config, callbackUrl(await authorize(request.url)), {
    pkceCodeVerifier: request.verifier,
    expectedState: request.state,
    expectedNonce: request.nonce,
  });
  expect(tokens.claims()?.sub).toBe(REFERENCE.memberId);
  // Introspection is for confidential clients: a public one learns nothing, even of its own token.
  expect(await oidcClient.tokenIntrospection(config, tokens.access_token)).toEqual({ active: false });
});

it('refuses a code used twice, or with the wrong verifier, and revokes what the first use gave', async () => {
  const config = await relyingParty(app, await register(app, { firstParty: true }));
  const request = await authorizationRequest(config);
  const back = callbackUrl(await authorize(request.url));
  const checks = { pkceCodeVerifier: request.verifier, expectedState: request.state, expectedNonce: request.nonce };
  const tokens = await oidcClient.authorizationCodeGrant(config, back, checks);
  await expect(oidcClient.authorizationCodeGrant(config, back, checks)).rejects.toMatchObject({ error: 'invalid_grant' });
  await expect(oidcClient.fetchUserInfo(config, tokens.access_token, REFERENCE.memberId)).rejects.toMatchObject({ status: 401 });
  const other = await authorizationRequest(config);
  const wrong = callbackUrl(await authorize(other.url));
  await expect(oidcClient.authorizationCodeGrant(config, wrong, { ...checks, expectedState: other.state, expectedNonce: other.nonce })).rejects.toMatchObject({ error: 'invalid_grant' });
});

it('refuses a wrong client secret, by either method, and takes the right one by either', async () => {
  const issued = await register(app, { firstParty: true });
  for (const auth of [oidcClient.ClientSecretBasic('not-the-secret'), oidcClient.ClientSecretPost(`${issued.secret ?? ''}x`)]) {
    const config = await oidcClient.discovery(new URL(app.baseUrl), issued.client.id, undefined, auth, { execute: [oidcClient.allowInsecureRequests] });
    await expect(oidcClient.tokenIntrospection(config, 'anything')).rejects.toMatchObject({ status: 401 });
  }
  expect(app.logLines.filter((line) => line.message === 'oidc refused').map((line) => [line.error, line.description])).toEqual([
    ['invalid_client', 'client authentication failed'],
    ['invalid_client', 'client authentication failed'],
  ]);
  const post = await oidcClient.discovery(new URL(app.baseUrl), issued.client.id, undefined, oidcClient.ClientSecretPost(issued.secret ?? ''), { execute: [oidcClient.allowInsecureRequests] });
  expect(await oidcClient.tokenIntrospection(post, 'anything')).toEqual({ active: false });
});

it("refuses a removed client's tokens and secret", async () => {
  const issued = await register(app, { firstParty: true });
  await register(app, {}, 'another');
  const config = await relyingParty(app, issued);
  const request = await authorizationRequest(config);
  const tokens = await oidcClient.authorizationCodeGrant(config, callbackUrl(await authorize(request.url)), { pkceCodeVerifier: request.verifier, expectedState: request.state, expectedNonce: request.nonce });
  await app.services.oidc.clients.remove('portal');
  await expect(oidcClient.fetchUserInfo(config, tokens.access_token, REFERENCE.memberId)).rejects.toMatchObject({ status: 401 });
  await expect(oidcClient.refreshTokenGrant(config, tokens.refresh_token ?? '')).rejects.toMatchObject({ status: 401 });
});

it('refuses an id_token_hint it did not sign at the end-session endpoint, and ends nothing', async () => {
  const issued = await register(app, { firstParty: true });
  const config = await relyingParty(app, issued);
  const request = await authorizationRequest(config);
  const browser = new PageClient(app.baseUrl);
  const back = await signInThrough(browser, app, request.url);
  const tokens = await oidcClient.authorizationCodeGrant(config, callbackUrl(back), { pkceCodeVerifier: request.verifier, expectedState: request.state, expectedNonce: request.nonce });
  const [header, payload] = (tokens.id_token ?? '').split('.');
  const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
  const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url')}.${'A'.repeat(342)}`;
  const end = oidcClient.buildEndSessionUrl(config, { id_token_hint: forged, post_logout_redirect_uri: REDIRECT_URI });
  const page = await browser.get(end.pathname + end.search);
  expect(page.status).toBe(400);
  expect(page.headers.location).toBeUndefined();
  expect((await app.services.sessions.checkCookie(browser.loginCookie ?? '', '127.0.0.1')).ok).toBe(true);
});

it('writes no secret, token or code to the log', async () => {
  const issued = await register(app, { firstParty: true });
  const config = await relyingParty(app, issued);
  const request = await authorizationRequest(config);
  const browser = new PageClient(app.baseUrl);
  const back = callbackUrl(await signInThrough(browser, app, request.url));
  const checks = { pkceCodeVerifier: request.verifier, expectedState: request.state, expectedNonce: request.nonce };
  const tokens = await oidcClient.authorizationCodeGrant(config, back, checks);
  const refreshed = await oidcClient.refreshTokenGrant(config, tokens.refresh_token ?? '');
  await oidcClient.fetchUserInfo(config, refreshed.access_token, REFERENCE.memberId);
  await expect(oidcClient.refreshTokenGrant(config, tokens.refresh_token ?? '')).rejects.toMatchObject({ error: 'invalid_grant' });
  await expect(oidcClient.authorizationCodeGrant(config, back, checks)).rejects.toMatchObject({ error: 'invalid_grant' });
  const end = oidcClient.buildEndSessionUrl(config, { id_token_hint: refreshed.id_token ?? '' });
  await browser.submit(await browser.get(end.pathname + end.search), {});
  const secrets = [
    issued.secret ?? '',
    back.searchParams.get('code') ?? '',
    request.verifier,
    tokens.access_token,
    tokens.refresh_token ?? '',
    tokens.id_token ?? '',
    refreshed.access_token,
    refreshed.refresh_token ?? '',
    browser.loginCookie ?? '',
    PASSWORD,
    ...[...browser.cookies.values()],
  ].filter((secret) => secret.length >= 16);
  expect(secrets.length).toBeGreaterThanOrEqual(10);
  const log = JSON.stringify(app.logLines);
  expect(app.logLines.some((line) => line.message === 'oidc refused')).toBe(true);
  for (const secret of secrets) expect(log).not.toContain(secret);
});
