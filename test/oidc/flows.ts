/**
 * The OpenID provider end to end, with openid-client as the relying party and the member's browser driving the
 * sign-in page over HTTP; one suite, run on each store.
 */
import * as oidcClient from 'openid-client';
import { clientsOfSession } from '../../src/oidc/session-clients.js';
import { soap12AuthenticateToken } from '../helpers/asmx-calls.js';
import { asmxRequest, resultText } from '../helpers/asmx-request.js';
import { setCookie } from '../helpers/cookies.js';
import { scrape } from '../helpers/metrics.js';
import { formOf, PageClient, type Page } from '../helpers/page-client.js';
import { REFERENCE } from '../helpers/reference-data.js';
import { FlowClock } from '../helpers/flow-clock.js';
import { servicesOver } from '../helpers/test-services.js';
import type { TestApp } from '../helpers/test-app.js';
import { waitUntil } from '../helpers/wait.js';
import {
  authorizationRequest,
  callbackUrl,
  follow,
  logoutReceiver,
  PASSWORD,
  POST_LOGOUT_URI,
  REDIRECT_URI,
  register,
  relyingParty,
  signInThrough,
  startOidcApp,
  verifiedJwt,
  type Authorization,
  type LogoutReceiver,
} from './relying-party.js';


export function oidcFlows(store: 'sqlite' | 'postgres'): void {
  let app: TestApp;
  const clock = new FlowClock();
  let receiver: LogoutReceiver | undefined;

  const start = async () => {
    clock.skew = 0;
    app = await startOidcApp({ store, clock: clock.now, env: { OPERATIONS: 'AuthenticateToken,DeleteUserSession' } });
  };
  afterEach(async () => {
    await app.close();
    await receiver?.close();
    receiver = undefined;
  });

  const enrol = () => clock.enrol(app);

  /**
   * Signs ada in through a client (`name`) and exchanges the code: the tokens, the browser, the relying party. A
   * browser given may be signed in already.
   */
  const signedIn = async (options: { code?: () => string; backchannel?: boolean; name?: string; browser?: PageClient } = {}) => {
    if (options.backchannel) receiver = await logoutReceiver();
    const issued = await register(app, { firstParty: true, ...(receiver ? { backchannelLogoutUri: receiver.url } : {}) }, options.name);
    const config = await relyingParty(app, issued);
    oidcClient.enableNonRepudiationChecks(config);
    const request = await authorizationRequest(config);
    const browser = options.browser ?? new PageClient(app.baseUrl);
    const back = await signInThrough(browser, app, request.url, options.code);
    const tokens = await oidcClient.authorizationCodeGrant(config, callbackUrl(back), {
      pkceCodeVerifier: request.verifier,
      expectedState: request.state,
      expectedNonce: request.nonce,
    });
    return { issued, config, browser, tokens };
  };

  /** The member session of the browser's login cookie, with its token. */
  const memberSession = async (browser: PageClient) => {
    const check = await app.services.sessions.checkCookie(browser.loginCookie ?? '', '127.0.0.1');
    if (!check.ok) throw new Error(`no member session: ${check.reason}`);
    return check;
  };

  describe(`on ${store}`, () => {
    it('is off until a client is registered: discovery and the JWKS are not found, then describe the issuer', async () => {
      await start();
      expect((await fetch(`${app.baseUrl}/.well-known/openid-configuration`)).status).toBe(404);
      expect((await fetch(`${app.baseUrl}/oidc/jwks`)).status).toBe(404);
      await register(app);
      const discovery = (await (await fetch(`${app.baseUrl}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
      expect(discovery).toMatchObject({
        issuer: app.baseUrl,
        authorization_endpoint: `${app.baseUrl}/oidc/auth`,
        token_endpoint: `${app.baseUrl}/oidc/token`,
        jwks_uri: `${app.baseUrl}/oidc/jwks`,
        userinfo_endpoint: `${app.baseUrl}/oidc/me`,
        end_session_endpoint: `${app.baseUrl}/oidc/session/end`,
        pushed_authorization_request_endpoint: `${app.baseUrl}/oidc/request`,
        code_challenge_methods_supported: ['S256'],
        response_types_supported: ['code'],
        backchannel_logout_supported: true,
        id_token_signing_alg_values_supported: ['RS256'],
      });
      expect(discovery['scopes_supported']).toEqual(expect.arrayContaining(['openid', 'profile', 'email', 'membership']));
      const { keys } = (await (await fetch(`${app.baseUrl}/oidc/jwks`)).json()) as { keys: Array<Record<string, unknown>> };
      expect(keys).toEqual([expect.objectContaining({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: expect.any(String) })]);
      expect(keys[0]).not.toHaveProperty('d');
    });

    it('signs a member in through the sign-in page and a code, with PKCE; the ID token is signed with a published key; AuthenticateToken answers the same member', async () => {
      await start();
      const code = await enrol();
      const { config, browser, tokens } = await signedIn({ code });
      const idToken = tokens.id_token ?? '';
      expect(await verifiedJwt(app, idToken)).toMatchObject({
        iss: app.baseUrl,
        sub: REFERENCE.memberId,
        amr: ['pwd', 'otp'],
        acr: 'http://schemas.openid.net/pape/policies/2007/06/multi-factor',
        auth_time: expect.any(Number),
      });
      expect(await oidcClient.fetchUserInfo(config, tokens.access_token, REFERENCE.memberId)).toEqual({
        sub: REFERENCE.memberId,
        name: 'Ada Lovelace',
        given_name: 'Ada',
        family_name: 'Lovelace',
        email: 'ada@example.org',
        is_member: true,
        roles: [{ id: 'r1', name: 'Board' }],
      });
      const { token } = await memberSession(browser);
      expect(await soap12AuthenticateToken(app.baseUrl, token)).toBe(REFERENCE.memberId);
      // The page's sign-in after its code, then the client's, naming it.
      const events = await app.services.events.list({ memberId: REFERENCE.memberId });
      expect(events.find((event) => event.type === 'signin-succeeded')).toMatchObject({ outcome: 'code', clientAddress: expect.any(String) });
      const oidcSignIn = events.find((event) => event.type === 'oidc-signin');
      expect(oidcSignIn).toMatchObject({ outcome: 'signed-in', via: expect.stringMatching(/\S/), requestId: expect.any(String) });
      // The session says it was opened for the client, and that it reached it (the staff console's member page).
      const opened = (await app.services.sessions.list({ memberId: REFERENCE.memberId })).find((session) => session.through !== undefined);
      expect(opened?.through).toEqual({ kind: 'oidc-client', name: oidcSignIn?.via });
      expect(await clientsOfSession(app.services, opened?.id ?? '')).toEqual([oidcSignIn?.via]);
    });

    it('takes a pushed authorization request (PAR) at the endpoint discovery names, from the client authenticated, and signs the member in with it', async () => {
      await start();
      const issued = await register(app, { firstParty: true });
      const config = await relyingParty(app, issued);
      const verifier = oidcClient.randomPKCECodeVerifier();
      const nonce = oidcClient.randomNonce();
      const parameters = { redirect_uri: REDIRECT_URI, scope: 'openid', code_challenge: await oidcClient.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', nonce };
      const wrongSecret = await oidcClient.discovery(new URL(app.baseUrl), issued.client.id, undefined, oidcClient.ClientSecretBasic('not-the-secret'), {
        execute: [oidcClient.allowInsecureRequests],
      });
      await expect(oidcClient.buildAuthorizationUrlWithPAR(wrongSecret, parameters)).rejects.toMatchObject({ status: 401 });
      const url = await oidcClient.buildAuthorizationUrlWithPAR(config, parameters);
      expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
      const back = await signInThrough(new PageClient(app.baseUrl), app, url);
      const tokens = await oidcClient.authorizationCodeGrant(config, callbackUrl(back), { pkceCodeVerifier: verifier, expectedNonce: nonce });
      expect(tokens.claims()?.sub).toBe(REFERENCE.memberId);
      // A request_uri is used once.
      const again = await follow(new PageClient(app.baseUrl), app, await new PageClient(app.baseUrl).get(url.pathname + url.search));
      expect(again.status).toBe(400);
      expect(app.logLines.filter((line) => line.message === 'oidc refused').map((line) => [line.route, line.error])).toEqual([
        ['pushed_authorization_request', 'invalid_client'],
        ['authorization', 'invalid_request_uri'],
      ]);
    });

    it('does not ask a member signed in on the sign-in page again, and says the password alone signed them in', async () => {
      await start();
      const browser = new PageClient(app.baseUrl);
      expect((await browser.signIn('ada', PASSWORD)).status).toBe(303);
      const issued = await register(app, { firstParty: true });
      const config = await relyingParty(app, issued);
      const request = await authorizationRequest(config, 'openid');
      const back = await follow(browser, app, await browser.get(request.url.pathname + request.url.search));
      const tokens = await oidcClient.authorizationCodeGrant(config, callbackUrl(back), { pkceCodeVerifier: request.verifier, expectedState: request.state, expectedNonce: request.nonce });
      const claims = tokens.claims();
      expect(claims).toMatchObject({ sub: REFERENCE.memberId, amr: ['pwd'] });
      expect(claims).not.toHaveProperty('acr');
      expect(claims).not.toHaveProperty('email');
    });

    it('asks a signed-in member to sign in again for prompt=login, second factor included: AuthenticateToken answers the new session, the replaced one ends, the OpenID session follows', async () => {
      await start();
      const code = await enrol();
      const first = await signedIn({ code });
      const { browser, config } = first;
      const replaced = await memberSession(browser);
      const request = await authorizationRequest(config, 'openid', { prompt: 'login' });
      const login = await follow(browser, app, await browser.get(request.url.pathname + request.url.search));
      expect(login.status).toBe(200);
      expect(login.text).toContain('name="password"');
      expect(login.text).toContain('asks you to sign in again');
      const step = await browser.submit(login, { login: 'ada', password: PASSWORD });
      expect(step.text).toContain('name="code"');
      const back = await follow(browser, app, await browser.submit(step, { code: code() }));
      const tokens = await oidcClient.authorizationCodeGrant(config, callbackUrl(back), { pkceCodeVerifier: request.verifier, expectedState: request.state, expectedNonce: request.nonce });
      expect(tokens.claims()).toMatchObject({ sub: REFERENCE.memberId, amr: ['pwd', 'otp'], acr: 'http://schemas.openid.net/pape/policies/2007/06/multi-factor' });
      expect(tokens.claims()?.auth_time).toBeGreaterThan(first.tokens.claims()?.auth_time ?? Infinity);
      const current = await memberSession(browser);
      expect(current.found.session.id).not.toBe(replaced.found.session.id);
      expect(await soap12AuthenticateToken(app.baseUrl, current.token)).toBe(REFERENCE.memberId);
      expect(await soap12AuthenticateToken(app.baseUrl, replaced.token)).toBe('');
      // The first sign-in's OpenID session goes on in the new member session, and ends with it.
      const refreshed = await oidcClient.refreshTokenGrant(config, first.tokens.refresh_token ?? '');
      expect((await browser.get('/Logout')).status).toBe(303);
      await expect(oidcClient.refreshTokenGrant(config, refreshed.refresh_token ?? '')).rejects.toMatchObject({ error: 'invalid_grant' });
    });

    it('asks for a sign-in once for prompt=login when nobody is signed in, and again when max_age is older than the sign-in on the page', async () => {
      await start();
      const config = await relyingParty(app, await register(app, { firstParty: true }));
      const exchange = async (request: Authorization, back: Page, maxAge: number) =>
        (await oidcClient.authorizationCodeGrant(config, callbackUrl(back), { pkceCodeVerifier: request.verifier, expectedState: request.state, expectedNonce: request.nonce, maxAge })).claims();
      const prompted = await authorizationRequest(config, 'openid', { prompt: 'login' });
      expect(await exchange(prompted, await signInThrough(new PageClient(app.baseUrl), app, prompted.url), 60)).toMatchObject({ sub: REFERENCE.memberId });
      const browser = new PageClient(app.baseUrl);
      clock.skew = -120_000;
      expect((await browser.signIn('ada', PASSWORD)).status).toBe(303);
      clock.skew = 0;
      const replaced = await memberSession(browser);
      const recent = await authorizationRequest(config, 'openid', { max_age: '300' });
      const signedInAt = (await exchange(recent, await follow(browser, app, await browser.get(recent.url.pathname + recent.url.search)), 300))?.auth_time;
      expect(signedInAt).toBe(Math.floor(replaced.found.session.createdAt / 1000));
      const older = await authorizationRequest(config, 'openid', { max_age: '60' });
      const claims = await exchange(older, await signInThrough(browser, app, older.url), 60);
      expect(claims?.auth_time).toBeGreaterThan(signedInAt ?? Infinity);
      expect(await soap12AuthenticateToken(app.baseUrl, replaced.token)).toBe('');
    });

    it('takes another member signing in at prompt=login: the first member\'s OpenID session and member session end, the browser keeps the new one', async () => {
      await start();
      await app.services.members.add({ id: 'member-43', username: 'grace', email: 'grace@example.org', firstName: 'Grace', lastName: 'Hopper' });
      await app.services.members.setPassword('member-43', PASSWORD);
      const ada = await signedIn({ backchannel: true });
      const { browser, config } = ada;
      const replaced = await memberSession(browser);
      const request = await authorizationRequest(config, 'openid', { prompt: 'login' });
      const login = await follow(browser, app, await browser.get(request.url.pathname + request.url.search));
      // The provider ends ada's OpenID session through its self-posting form, then comes back to the request.
      const logout = await follow(browser, app, await browser.submit(login, { login: 'grace', password: PASSWORD }));
      const { action, hidden } = formOf(logout.text);
      expect(hidden).toMatchObject({ logout: 'yes' });
      const back = await follow(browser, app, await browser.post(new URL(action).pathname, hidden));
      const tokens = await oidcClient.authorizationCodeGrant(config, callbackUrl(back), { pkceCodeVerifier: request.verifier, expectedState: request.state, expectedNonce: request.nonce });
      expect(tokens.claims()?.sub).toBe('member-43');
      const current = await memberSession(browser);
      expect(await soap12AuthenticateToken(app.baseUrl, current.token)).toBe('member-43');
      expect(await soap12AuthenticateToken(app.baseUrl, replaced.token)).toBe('');
      await expect(oidcClient.refreshTokenGrant(config, ada.tokens.refresh_token ?? '')).rejects.toMatchObject({ error: 'invalid_grant' });
      await waitUntil(() => receiver?.tokens.length === 1, 'the logout token');
      expect(await verifiedJwt(app, receiver?.tokens[0] ?? '')).toMatchObject({ sub: REFERENCE.memberId, sid: ada.tokens.claims()?.['sid'] });
      expect(await oidcClient.refreshTokenGrant(config, tokens.refresh_token ?? '')).toMatchObject({ access_token: expect.any(String) });
    });

    it('rotates refresh tokens, and a rotated one used again revokes the grant', async () => {
      await start();
      const { config, tokens } = await signedIn();
      const first = tokens.refresh_token ?? '';
      const second = await oidcClient.refreshTokenGrant(config, first);
      expect(second.refresh_token).toBeTruthy();
      expect(second.refresh_token).not.toBe(first);
      await expect(oidcClient.refreshTokenGrant(config, first)).rejects.toMatchObject({ error: 'invalid_grant' });
      await expect(oidcClient.refreshTokenGrant(config, second.refresh_token ?? '')).rejects.toMatchObject({ error: 'invalid_grant' });
      await expect(oidcClient.fetchUserInfo(config, second.access_token, REFERENCE.memberId)).rejects.toMatchObject({ status: 401 });
    });

    it('introspects and revokes tokens for a confidential client', async () => {
      await start();
      const { config, tokens } = await signedIn();
      expect(await oidcClient.tokenIntrospection(config, tokens.access_token)).toMatchObject({ active: true, sub: REFERENCE.memberId, client_id: config.clientMetadata().client_id });
      await oidcClient.tokenRevocation(config, tokens.refresh_token ?? '');
      expect(await oidcClient.tokenIntrospection(config, tokens.refresh_token ?? '')).toEqual({ active: false });
      await expect(oidcClient.refreshTokenGrant(config, tokens.refresh_token ?? '')).rejects.toMatchObject({ error: 'invalid_grant' });
    });

    it('asks the member to consent for a client of another organisation, in the sign-in pages\' layout', async () => {
      await start();
      const issued = await register(app, { firstParty: false });
      const config = await relyingParty(app, issued);
      const denied = await authorizationRequest(config);
      const browser = new PageClient(app.baseUrl);
      const consent = await signInThrough(browser, app, denied.url);
      expect(consent.status).toBe(200);
      expect(consent.text).toContain('<h1>Share your details with portal?</h1>');
      expect(consent.headers['content-security-policy']).toContain("default-src 'none'");
      const refused = callbackUrl(await follow(browser, app, await browser.post(formOf(consent.text).action, { decision: 'deny' })));
      expect(refused.searchParams.get('error')).toBe('access_denied');
      expect(refused.searchParams.get('state')).toBe(denied.state);
      expect(await app.services.events.list({ memberId: REFERENCE.memberId, type: 'oidc-signin' })).toEqual([
        expect.objectContaining({ via: 'portal', outcome: 'refused', reason: 'consent-denied', clientAddress: expect.any(String), requestId: expect.any(String) }),
        expect.objectContaining({ via: 'portal', outcome: 'signed-in' }),
      ]);
      const allowed = await authorizationRequest(config);
      const page = await follow(browser, app, await browser.get(allowed.url.pathname + allowed.url.search));
      expect(page.text).toContain('<h1>Share your details with portal?</h1>');
      const back = await follow(browser, app, await browser.post(formOf(page.text).action, { decision: 'allow' }));
      const tokens = await oidcClient.authorizationCodeGrant(config, callbackUrl(back), { pkceCodeVerifier: allowed.verifier, expectedState: allowed.state, expectedNonce: allowed.nonce });
      expect(tokens.claims()?.sub).toBe(REFERENCE.memberId);
    });

    it('ends the member session and clears the login cookie at the end-session endpoint, back to the client', async () => {
      await start();
      const { config, browser, tokens } = await signedIn();
      const { token } = await memberSession(browser);
      const end = oidcClient.buildEndSessionUrl(config, { id_token_hint: tokens.id_token ?? '', post_logout_redirect_uri: POST_LOGOUT_URI, state: 'bye' });
      const confirm = await browser.get(end.pathname + end.search);
      expect(confirm.status).toBe(200);
      expect(confirm.text).toContain('<h1>Sign out</h1>');
      const done = await browser.submit(confirm, {});
      expect(done.status).toBe(303);
      expect(done.headers.location).toBe(`${POST_LOGOUT_URI}?state=bye`);
      expect(setCookie(done, '.ASPXAUTH')).toMatch(/Expires=Thu, 01 Jan 1970/);
      expect(await soap12AuthenticateToken(app.baseUrl, token)).toBe('');
      await expect(oidcClient.refreshTokenGrant(config, tokens.refresh_token ?? '')).rejects.toMatchObject({ error: 'invalid_grant' });
    });

    it('after DeleteUserSession, tells the client through its back-channel logout URI and refuses its refresh token', async () => {
      await start();
      const { config, browser, tokens, issued } = await signedIn({ backchannel: true });
      const { token } = await memberSession(browser);
      expect(await deleteUserSession(app.baseUrl, token)).toBe(REFERENCE.memberId);
      await expect(oidcClient.refreshTokenGrant(config, tokens.refresh_token ?? '')).rejects.toMatchObject({ error: 'invalid_grant' });
      await waitUntil(() => receiver?.tokens.length === 1, 'the logout token');
      const idClaims = tokens.claims();
      expect(await verifiedJwt(app, receiver?.tokens[0] ?? '')).toMatchObject({
        iss: app.baseUrl,
        aud: issued.client.id,
        sub: REFERENCE.memberId,
        sid: idClaims?.['sid'],
        events: { 'http://schemas.openid.net/event/backchannel-logout': {} },
      });
    });

    it('ends the OpenID session when the member signs out on the sign-in page, tries a failed back-channel delivery again, and counts it', async () => {
      await start();
      const { config, browser, tokens } = await signedIn({ backchannel: true });
      receiver?.statuses.push(500);
      expect((await browser.get('/Logout')).status).toBe(303);
      await expect(oidcClient.refreshTokenGrant(config, tokens.refresh_token ?? '')).rejects.toMatchObject({ error: 'invalid_grant' });
      const lines = () => app.logLines.filter((line) => line.message === 'oidc back-channel logout');
      await waitUntil(() => lines().some((line) => line.outcome === 'delivered'), 'the logout token, the second time');
      expect(receiver?.tokens).toHaveLength(1);
      expect(lines().map((line) => [line.outcome, line.attempt])).toEqual([
        ['retried', 1],
        ['delivered', 2],
      ]);
      expect(lines()[0]).toMatchObject({ reason: 'status 500' });
      const metrics = await scrape(app.baseUrl);
      expect(metrics).toContain('oidc_backchannel_logouts_total{outcome="retried"} 1');
      expect(metrics).toContain('oidc_backchannel_logouts_total{outcome="delivered"} 1');
    });

    it('ends the OpenID sessions of the other sessions when the member changes the password, and of all with "sign out everywhere"', async () => {
      await start();
      const first = await signedIn();
      const second = new PageClient(app.baseUrl);
      expect((await second.signIn('ada', PASSWORD)).status).toBe(303);
      const { session: keep, member } = (await memberSession(second)).found;
      expect(await app.services.account.changePassword(member, PASSWORD, 'another horse battery staple', keep, '127.0.0.1')).toMatchObject({ ok: true });
      await expect(oidcClient.refreshTokenGrant(first.config, first.tokens.refresh_token ?? '')).rejects.toMatchObject({ error: 'invalid_grant' });
      const again = await signedIn({ name: 'forum', browser: second });
      await app.services.sessions.revokeAllOf(REFERENCE.memberId);
      await expect(oidcClient.refreshTokenGrant(again.config, again.tokens.refresh_token ?? '')).rejects.toMatchObject({ error: 'invalid_grant' });
    });

    it('ends the OpenID session, when next used, of a member session ended elsewhere (the admin CLI, another instance)', async () => {
      await start();
      const { config, browser, tokens } = await signedIn();
      const { found } = await memberSession(browser);
      await servicesOver(app.store).sessions.revoke(found.session.id);
      // Within CACHE_TTL_MS, as AuthenticateToken would.
      await waitUntil(
        () => oidcClient.fetchUserInfo(config, tokens.access_token, REFERENCE.memberId).then(() => false, () => true),
        'the access token to be refused',
      );
      await expect(oidcClient.refreshTokenGrant(config, tokens.refresh_token ?? '')).rejects.toMatchObject({ error: 'invalid_grant' });
    });

    it('signs with a new key after a rotation and keeps publishing the old one for the tokens it signed; each is stored sealed', async () => {
      await start();
      const before = await signedIn();
      const oldKid = header(before.tokens.id_token ?? '').kid;
      const rotated = await app.services.oidc.keys.rotate();
      await waitUntil(async () => (await publishedKids(app)).length === 2, 'both keys published');
      expect(await publishedKids(app)).toEqual([rotated.kid, oldKid]);
      expect(await verifiedJwt(app, before.tokens.id_token ?? '')).toMatchObject({ sub: REFERENCE.memberId });
      // Each private key is stored sealed under the server key.
      const stored = await app.store.listOidcKeys();
      for (const { kid, d } of await app.services.oidc.keys.signingKeys(60_000)) {
        expect(d).toEqual(expect.any(String));
        expect(stored.find((row) => row.kid === kid)?.privateJwkSealed).not.toContain(d);
      }
      // A relying party of its own: the one above keeps the JWKS it fetched, without the new key.
      const refreshed = await oidcClient.refreshTokenGrant(await relyingParty(app, before.issued), before.tokens.refresh_token ?? '');
      expect(header(refreshed.id_token ?? '').kid).toBe(rotated.kid);
    });
  });
}

function header(jwt: string): { kid?: string } {
  return JSON.parse(Buffer.from(jwt.split('.')[0] ?? '', 'base64url').toString('utf8')) as { kid?: string };
}

async function publishedKids(app: TestApp): Promise<string[]> {
  const { keys } = (await (await fetch(`${app.baseUrl}/oidc/jwks`)).json()) as { keys: Array<{ kid: string }> };
  return keys.map((key) => key.kid);
}

/** DeleteUserSession over SOAP 1.1, as a partner site signs a member out; the plain result: the member's id. */
async function deleteUserSession(baseUrl: string, token: string): Promise<string> {
  const { path, element, ...init } = asmxRequest(REFERENCE.namespace, 'soap11', 'DeleteUserSession', { securityPassword: REFERENCE.password, token });
  const response = await fetch(`${baseUrl}${path}`, init);
  return resultText(await response.text(), element) ?? '';
}
