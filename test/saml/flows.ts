/**
 * The SAML identity provider end to end, with @node-saml/node-saml as the service providers and the member's
 * browser driving the sign-in page over HTTP; one suite, run on each store.
 */
import { inflateRawSync } from 'node:zlib';
import type { Profile } from '@node-saml/node-saml';
import { soap12AuthenticateToken } from '../helpers/asmx-calls.js';
import { asmxRequest, resultText } from '../helpers/asmx-request.js';
import { sample, scrape } from '../helpers/metrics.js';
import { formOf, PageClient, type Page } from '../helpers/page-client.js';
import { REFERENCE } from '../helpers/reference-data.js';
import { FlowClock } from '../helpers/flow-clock.js';
import type { TestApp } from '../helpers/test-app.js';
import { waitUntil } from '../helpers/wait.js';
import * as oidcClient from 'openid-client';
import { authorizationRequest, callbackUrl, follow, PASSWORD, POST_LOGOUT_URI, register, relyingParty, signInThrough, startOidcApp } from '../oidc/relying-party.js';
import { registerSp, soapLogoutRequest, soapReceiver, type ServiceProvider, type SoapReceiver } from './service-provider.js';
import { postForm, signXml } from './sp-messages.js';

const PERSISTENT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent';
const EMAIL = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
const TRANSIENT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient';
const PASSWORD_CONTEXT = 'urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport';
const MFA_CONTEXT = 'https://refeds.org/profile/mfa';

export function samlFlows(store: 'sqlite' | 'postgres'): void {
  let app: TestApp;
  const clock = new FlowClock();
  let receiver: SoapReceiver | undefined;

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

  /** Opens a path of the service in the browser and follows it to the page shown (the sign-in form, or a post to the SP). */
  const open = async (browser: PageClient, path: string) => follow(browser, app, await browser.get(path));

  /** Signs in on the sign-in page shown, with the code when asked; returns the page the service ends on. */
  const signInOn = async (browser: PageClient, login: Page, code?: () => string) => {
    expect(login.text).toContain('name="password"');
    let page = await browser.submit(login, { login: 'ada', password: PASSWORD });
    if (code && page.status === 200) page = await browser.submit(page, { code: code() });
    return follow(browser, app, page);
  };

  /** The SP's AuthnRequest over HTTP-Redirect, as a path of the service. */
  const redirectRequest = async (sp: ServiceProvider, relayState = 'relay-1') => {
    const url = new URL(await sp.saml.getAuthorizeUrlAsync(relayState, undefined, {}));
    return url.pathname + url.search;
  };

  /** The page that posts to the SP's ACS: its fields, once checked to go there. */
  const postedToAcs = (sp: ServiceProvider, page: Page) => {
    expect(page.status).toBe(200);
    const form = formOf(page.text);
    expect(form.action).toBe(sp.acsUrl);
    return form.hidden;
  };

  /** The member session of the browser's login cookie, with its token. */
  const memberSession = async (browser: PageClient) => {
    const check = await app.services.sessions.checkCookie(browser.loginCookie ?? '', '127.0.0.1');
    if (!check.ok) throw new Error(`no member session: ${check.reason}`);
    return check;
  };

  /** Signs the browser, signed in already, in to each SP: a Response posted to its ACS. */
  const signedInTo = async (browser: PageClient, ...sps: ServiceProvider[]) => {
    for (const sp of sps) postedToAcs(sp, await open(browser, await redirectRequest(sp)));
  };

  /** The LogoutRequest the browser is made to post to the SP, once checked by the SP: its profile and the RelayState that goes back. */
  const toldThroughBrowser = async (sp: ServiceProvider, page: Page) => {
    const told = formOf(page.text);
    expect(told.action).toBe(sp.sloUrl);
    const request = await sp.saml.validatePostRequestAsync(told.hidden);
    expect(request).toMatchObject({ loggedOut: true, profile: { nameID: REFERENCE.memberId } });
    if (!request.profile) throw new Error('no profile');
    return { profile: request.profile, relayState: told.hidden['RelayState'] ?? '' };
  };

  /** The SP's LogoutResponse over HTTP-Redirect, as a path of the service. */
  const logoutResponsePath = async (sp: ServiceProvider, profile: Profile, relayState: string) => {
    const url = new URL(await sp.saml.getLogoutResponseUrlAsync(profile, relayState, {}, true));
    return url.pathname + url.search;
  };

  describe(`on ${store}`, () => {
    it('is off until an SP is registered: the metadata is not found, then names the entity, its certificate, endpoints and formats', async () => {
      await start();
      expect((await fetch(`${app.baseUrl}/saml/metadata`)).status).toBe(404);
      expect((await fetch(`${app.baseUrl}/saml/sso`)).status).toBe(404);
      await registerSp(app, 'portal');
      const response = await fetch(`${app.baseUrl}/saml/metadata`);
      expect(response.status).toBe(200);
      const metadata = await response.text();
      expect(metadata).toContain(`entityID="${app.baseUrl}/saml/metadata"`);
      const certificate = (await app.services.saml.keys.signing()).certificatePem.replace(/-----[A-Z ]+-----|\s/g, '');
      expect(metadata.replace(/\s/g, '')).toContain(certificate);
      for (const binding of ['HTTP-Redirect', 'HTTP-POST']) {
        expect(metadata).toContain(`<SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:${binding}" Location="${app.baseUrl}/saml/sso">`);
        expect(metadata).toContain(`<SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:${binding}" Location="${app.baseUrl}/saml/slo">`);
      }
      for (const format of [PERSISTENT, EMAIL, TRANSIENT]) expect(metadata).toContain(`<NameIDFormat>${format}</NameIDFormat>`);
    });

    it('signs a member in over HTTP-Redirect through the sign-in page and a TOTP code; the SP decrypts and verifies; AuthenticateToken answers the same member', async () => {
      await start();
      const code = await enrol();
      // Without a RequestedAuthnContext (node-saml asks for PasswordProtectedTransport by default), the assertion says how the member signed in.
      const sp = await registerSp(app, 'Events Portal', { saml: { disableRequestedAuthnContext: true } });
      const browser = new PageClient(app.baseUrl);
      const login = await open(browser, await redirectRequest(sp));
      expect(login.text).toContain('Events Portal');
      const fields = postedToAcs(sp, await signInOn(browser, login, code));
      expect(fields['RelayState']).toBe('relay-1');
      expect(Buffer.from(fields['SAMLResponse'] ?? '', 'base64').toString()).toContain('EncryptedAssertion');
      const { profile } = await sp.saml.validatePostResponseAsync({ SAMLResponse: fields['SAMLResponse'] ?? '' });
      expect(profile).toMatchObject({
        issuer: `${app.baseUrl}/saml/metadata`,
        nameID: REFERENCE.memberId,
        nameIDFormat: PERSISTENT,
        'urn:oid:0.9.2342.19200300.100.1.3': 'ada@example.org',
        'urn:oid:2.5.4.42': 'Ada',
        'urn:oid:2.5.4.4': 'Lovelace',
        memberId: REFERENCE.memberId,
        isMember: 'true',
        roles: 'Board',
      });
      expect(profile?.getAssertionXml?.()).toContain(MFA_CONTEXT);
      const { token } = await memberSession(browser);
      expect(await soap12AuthenticateToken(app.baseUrl, token)).toBe(REFERENCE.memberId);
      expect(app.logLines).toContainEqual(expect.objectContaining({ message: 'saml sign-in', outcome: 'signed-in', sp: 'Events Portal', member: REFERENCE.memberId }));
      // The session says it was opened for the SP (the staff console's member page).
      expect((await app.services.sessions.list({ memberId: REFERENCE.memberId })).map((session) => session.through)).toContainEqual({ kind: 'saml-sp', name: 'Events Portal' });
      const log = JSON.stringify(app.logLines);
      expect(log).not.toContain(fields['SAMLResponse']?.slice(0, 40));
      expect(log).not.toContain('relay-1');
      expect(sample(await scrape(app.baseUrl), 'saml_signins_total{outcome="signed_in"}')).toBe(1);
      expect(await app.services.events.list({ memberId: REFERENCE.memberId, type: 'saml-signin' })).toEqual([
        expect.objectContaining({ via: 'Events Portal', outcome: 'signed-in', requestId: expect.any(String) }),
      ]);
    });

    it('takes an AuthnRequest over HTTP-POST from a member signed in already: no page, the password context', async () => {
      await start();
      const sp = await registerSp(app, 'portal', { saml: { authnRequestBinding: 'HTTP-POST' } });
      const browser = new PageClient(app.baseUrl);
      await browser.signIn('ada', PASSWORD);
      // node-saml closes its inputs with ` />`, which the page client's reader does not take.
      const form = formOf((await sp.saml.getAuthorizeFormAsync('relay-post', undefined, {})).replace(/" \/>/g, '">'));
      expect(form.action).toBe(`${app.baseUrl}/saml/sso`);
      // Posted cross-site, the request carries no SameSite=Lax cookie: the service decides it at its own address.
      const posted = await browser.post('/saml/sso', form.hidden);
      expect(posted.status).toBe(303);
      const fields = postedToAcs(sp, await follow(browser, app, posted));
      expect(fields['RelayState']).toBe('relay-post');
      const { profile } = await sp.saml.validatePostResponseAsync({ SAMLResponse: fields['SAMLResponse'] ?? '' });
      expect(profile?.nameID).toBe(REFERENCE.memberId);
      expect(profile?.getAssertionXml?.()).toContain(PASSWORD_CONTEXT);
    });

    it('asserts the multi-factor context for a member session a passkey opened, and the password one to an SP that asks exactly for it', async () => {
      await start();
      const browser = new PageClient(app.baseUrl);
      await browser.signIn('ada', PASSWORD);
      // The passkey's ceremony is test/browser/passkeys.test.ts's: here the store records the session as a passkey's.
      await app.store.recordPasskeySession((await memberSession(browser)).found.session.id, 'cGFzc2tleQ');
      const asserted = async (name: string, saml: object) => {
        const sp = await registerSp(app, name, { saml: { authnRequestBinding: 'HTTP-POST', ...saml } });
        const form = formOf((await sp.saml.getAuthorizeFormAsync('relay-post', undefined, {})).replace(/" \/>/g, '">'));
        const fields = postedToAcs(sp, await follow(browser, app, await browser.post('/saml/sso', form.hidden)));
        const { profile } = await sp.saml.validatePostResponseAsync({ SAMLResponse: fields['SAMLResponse'] ?? '' });
        return profile?.getAssertionXml?.() ?? '';
      };
      const unasked = await asserted('portal', { disableRequestedAuthnContext: true });
      expect(unasked).toContain(MFA_CONTEXT);
      expect(unasked).not.toContain(PASSWORD_CONTEXT);
      expect(await asserted('forum', {})).toContain(PASSWORD_CONTEXT);
    });

    it("signs in at the identity provider's initiative, after the sign-in page, to the SP named", async () => {
      await start();
      const sp = await registerSp(app, 'learning', { encrypt: false });
      const browser = new PageClient(app.baseUrl);
      expect((await open(browser, '/saml/sso/init?sp=nowhere')).status).toBe(404);
      const login = await open(browser, '/saml/sso/init?sp=learning&RelayState=%2Fcourses');
      expect(login.text).toContain('learning');
      const fields = postedToAcs(sp, await signInOn(browser, login));
      expect(fields['RelayState']).toBe('/courses');
      const idpInitiated = await registerSpClient(sp);
      const { profile } = await idpInitiated.validatePostResponseAsync({ SAMLResponse: fields['SAMLResponse'] ?? '' });
      expect(profile?.nameID).toBe(REFERENCE.memberId);
      // Signed in now: straight to the SP.
      postedToAcs(sp, await open(browser, '/saml/sso/init?sp=learning'));
    });

    it('gives each NameID format: emailAddress and transient on request or by setting; the attributes as mapped (Cvent)', async () => {
      await start();
      const browser = new PageClient(app.baseUrl);
      await browser.signIn('ada', PASSWORD);
      const asked = await registerSp(app, 'asks', { saml: { identifierFormat: EMAIL } });
      const byEmail = postedToAcs(asked, await open(browser, await redirectRequest(asked)));
      expect((await asked.saml.validatePostResponseAsync({ SAMLResponse: byEmail['SAMLResponse'] ?? '' })).profile).toMatchObject({ nameID: 'ada@example.org', nameIDFormat: EMAIL });

      const transient = await registerSp(app, 'transient', { saml: { identifierFormat: TRANSIENT } });
      const first = (await transient.saml.validatePostResponseAsync({ SAMLResponse: postedToAcs(transient, await open(browser, await redirectRequest(transient)))['SAMLResponse'] ?? '' })).profile;
      expect(first?.nameIDFormat).toBe(TRANSIENT);
      expect(first?.nameID).not.toContain(REFERENCE.memberId);

      const cvent = await registerSp(app, 'cvent', {
        settings: {
          nameIdFormat: 'emailAddress',
          attributes: [
            { name: 'first_name', nameFormat: 'basic', field: 'firstName' },
            { name: 'last_name', nameFormat: 'basic', field: 'lastName' },
            { name: 'email_address', nameFormat: 'basic', field: 'email' },
          ],
        },
      });
      const mapped = (await cvent.saml.validatePostResponseAsync({ SAMLResponse: postedToAcs(cvent, await open(browser, await redirectRequest(cvent)))['SAMLResponse'] ?? '' })).profile;
      expect(mapped).toMatchObject({ nameID: 'ada@example.org', nameIDFormat: EMAIL, first_name: 'Ada', last_name: 'Lovelace', email_address: 'ada@example.org' });
      expect(mapped?.['memberId']).toBeUndefined();
    });

    it('answers IsPassive without a page (NoPassive when not signed in) and asks again on ForceAuthn', async () => {
      await start();
      const passive = await registerSp(app, 'passive', { saml: { passive: true } });
      const browser = new PageClient(app.baseUrl);
      const noPassive = postedToAcs(passive, await open(browser, await redirectRequest(passive)));
      expect(await passive.saml.validatePostResponseAsync({ SAMLResponse: noPassive['SAMLResponse'] ?? '' })).toEqual({ profile: null, loggedOut: false });

      await browser.signIn('ada', PASSWORD);
      const before = await memberSession(browser);
      receiver = await soapReceiver('other');
      const other = await registerSp(app, 'other', { soapLogout: receiver.url });
      await signedInTo(browser, other);
      const forced = await registerSp(app, 'forced', { saml: { forceAuthn: true } });
      const login = await open(browser, await redirectRequest(forced));
      expect(login.text).toContain('name="password"');
      const fields = postedToAcs(forced, await signInOn(browser, login));
      expect((await forced.saml.validatePostResponseAsync({ SAMLResponse: fields['SAMLResponse'] ?? '' })).profile?.nameID).toBe(REFERENCE.memberId);
      expect((await memberSession(browser)).found.session.id).not.toBe(before.found.session.id);
      // The session signed in again in place of ends, and its other SP is told.
      expect(await soap12AuthenticateToken(app.baseUrl, before.token)).toBe('');
      await waitUntil(() => receiver?.envelopes.length === 1, 'the SOAP LogoutRequest of the replaced session');
      expect(await other.saml.validatePostRequestAsync({ SAMLRequest: soapLogoutRequest(receiver.envelopes[0] ?? '') })).toMatchObject({ loggedOut: true });
    });

    it('refuses an ACS URL not in the metadata and a replayed request with a page, posting nothing', async () => {
      await start();
      const sp = await registerSp(app, 'portal');
      const browser = new PageClient(app.baseUrl);
      await browser.signIn('ada', PASSWORD);
      const { SAML } = await import('@node-saml/node-saml');
      const forged = new SAML({ ...sp.saml.options, callbackUrl: 'http://127.0.0.1:9/elsewhere/acs' });
      const unregistered = new URL(await forged.getAuthorizeUrlAsync('', undefined, {}));
      const refused = await open(browser, unregistered.pathname + unregistered.search);
      expect(refused.status).toBe(400);
      expect(refused.text).not.toContain('SAMLResponse');
      expect(app.logLines).toContainEqual(expect.objectContaining({ message: 'saml sign-in', outcome: 'refused', reason: "an AssertionConsumerServiceURL that is not in the service provider's metadata" }));
      const path = await redirectRequest(sp);
      postedToAcs(sp, await open(browser, path));
      const replayed = await open(browser, path);
      expect(replayed.status).toBe(400);
      expect(replayed.text).not.toContain('SAMLResponse');
      expect(app.logLines).toContainEqual(expect.objectContaining({ message: 'saml sign-in', outcome: 'refused', reason: 'a request ID used before (a replay)' }));
    });

    it('ends every session on an SP\'s LogoutRequest: the other SP is told through the browser, then the SP gets its LogoutResponse', async () => {
      await start();
      const first = await registerSp(app, 'first');
      const second = await registerSp(app, 'second');
      const browser = new PageClient(app.baseUrl);
      await browser.signIn('ada', PASSWORD);
      const { token } = await memberSession(browser);
      const profile = (await first.saml.validatePostResponseAsync({ SAMLResponse: postedToAcs(first, await open(browser, await redirectRequest(first)))['SAMLResponse'] ?? '' })).profile;
      postedToAcs(second, await open(browser, await redirectRequest(second)));
      if (!profile) throw new Error('no profile');
      // Unsigned, it would let anyone who knows a member's id end their sessions: refused, the session kept.
      const { SAML } = await import('@node-saml/node-saml');
      const { privateKey: _signing, ...unsigning } = first.saml.options;
      const unsigned = new URL(await new SAML(unsigning).getLogoutUrlAsync(profile, '', {}));
      expect(unsigned.searchParams.has('Signature')).toBe(false);
      expect((await open(browser, unsigned.pathname + unsigned.search)).status).toBe(400);
      expect(await soap12AuthenticateToken(app.baseUrl, token)).toBe(REFERENCE.memberId);
      const logout = new URL(await first.saml.getLogoutUrlAsync(profile, 'after-logout', {}));
      const toSecond = await open(browser, logout.pathname + logout.search);
      const told = formOf(toSecond.text);
      expect(told.action).toBe(second.sloUrl);
      const request = await second.saml.validatePostRequestAsync(told.hidden);
      expect(request).toMatchObject({ loggedOut: true, profile: { nameID: REFERENCE.memberId } });
      expect(await soap12AuthenticateToken(app.baseUrl, token)).toBe('');
      // The member's sign-out, at the SP that asked.
      expect(await app.services.events.list({ memberId: REFERENCE.memberId, type: 'signed-out' })).toEqual([
        expect.objectContaining({ via: 'first', outcome: 'saml-logout', actor: { kind: 'member', id: REFERENCE.memberId }, requestId: expect.any(String) }),
      ]);
      const answer = new URL(await second.saml.getLogoutResponseUrlAsync(request.profile, told.hidden['RelayState'] ?? '', {}, true));
      const back = await open(browser, answer.pathname + answer.search);
      const response = formOf(back.text);
      expect(response.action).toBe(first.sloUrl);
      expect(response.hidden['RelayState']).toBe('after-logout');
      // node-saml reads a posted message's InResponseTo from a Response only: the logout's is checked in its own step.
      expect(await (await registerSpClient(first)).validatePostResponseAsync(response.hidden)).toMatchObject({ loggedOut: true });
      expect(browser.loginCookie).toBeUndefined();
    });

    it("ends the session on an SP's LogoutRequest over HTTP-POST, its enveloped signature made with xml-crypto; the SP gets its LogoutResponse", async () => {
      await start();
      const sp = await registerSp(app, 'portal');
      const browser = new PageClient(app.baseUrl);
      await browser.signIn('ada', PASSWORD);
      const { token } = await memberSession(browser);
      const profile = (await sp.saml.validatePostResponseAsync({ SAMLResponse: postedToAcs(sp, await open(browser, await redirectRequest(sp)))['SAMLResponse'] ?? '' })).profile;
      if (!profile) throw new Error('no profile');
      // node-saml writes LogoutRequests for HTTP-Redirect only: its own, posted with an enveloped signature.
      const url = new URL(await sp.saml.getLogoutUrlAsync(profile, '', {}));
      const xml = inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest') ?? '', 'base64')).toString();
      const back = await follow(browser, app, await browser.post('/saml/slo', postForm(signXml(xml, sp.keys), { relayState: 'after-post-logout' })));
      const response = formOf(back.text);
      expect(response.action).toBe(sp.sloUrl);
      expect(response.hidden['RelayState']).toBe('after-post-logout');
      expect(await (await registerSpClient(sp)).validatePostResponseAsync(response.hidden)).toMatchObject({ loggedOut: true });
      expect(await soap12AuthenticateToken(app.baseUrl, token)).toBe('');
      expect(browser.loginCookie).toBeUndefined();
      expect(app.logLines).toContainEqual(expect.objectContaining({ message: 'saml logout', outcome: 'signed-out', sp: 'portal', member: REFERENCE.memberId }));
    });

    it('takes a member signing out on the sign-in page round the SPs only the browser can tell, the SOAP one told over SOAP; only the answer of the SP asked goes on', async () => {
      await start();
      receiver = await soapReceiver('library');
      const community = await registerSp(app, 'community');
      const library = await registerSp(app, 'library', { soapLogout: receiver.url });
      const browser = new PageClient(app.baseUrl);
      await browser.signIn('ada', PASSWORD);
      const { token } = await memberSession(browser);
      await signedInTo(browser, community, library);
      const { profile, relayState } = await toldThroughBrowser(community, await open(browser, '/Logout?ReturnUrl=%2Fsigned-out'));
      expect(browser.loginCookie).toBeUndefined();
      expect(await soap12AuthenticateToken(app.baseUrl, token)).toBe('');
      await waitUntil(() => receiver?.envelopes.length === 1, 'the SOAP LogoutRequest');
      expect(await library.saml.validatePostRequestAsync({ SAMLRequest: soapLogoutRequest(receiver.envelopes[0] ?? '') })).toMatchObject({ loggedOut: true });
      // An answer from an SP that was not asked, or to another request, does not move the sign-out on.
      expect((await browser.get(await logoutResponsePath(library, profile, relayState))).status).toBe(400);
      expect((await browser.get(await logoutResponsePath(community, { ...profile, ID: '_another-request' }, relayState))).status).toBe(400);
      expect(app.logLines).toContainEqual(expect.objectContaining({ message: 'saml logout', outcome: 'refused', sp: 'library', reason: 'a LogoutResponse that answers no LogoutRequest sent to its issuer' }));
      const back = await browser.get(await logoutResponsePath(community, profile, relayState));
      expect(back.status).toBe(303);
      expect(back.headers.location).toBe('/signed-out');
      expect(app.logLines).toContainEqual(expect.objectContaining({ message: 'saml logout', outcome: 'front-channel', sp: 'community', member: REFERENCE.memberId }));
      expect(receiver.envelopes).toHaveLength(1);
      // Told once: the sign-out is over, and the SP's answer cannot be played again.
      expect((await browser.get(await logoutResponsePath(community, profile, relayState))).status).toBe(400);
    });

    it.each([
      ['ending the other sessions', '/Account/sessions/end-others', {}, 'sessions-ended'],
      ['changing the password', '/Account/password', { currentPassword: PASSWORD, newPassword: 'another horse battery staple' }, 'password-changed'],
    ])('takes the member round the SPs of the sessions ended on the account page by %s, back to the page', async (_what, action, fields, done) => {
      await start();
      const community = await registerSp(app, 'community');
      const elsewhere = new PageClient(app.baseUrl);
      await elsewhere.signIn('ada', PASSWORD);
      await signedInTo(elsewhere, community);
      const here = new PageClient(app.baseUrl);
      await here.signIn('ada', PASSWORD);
      const { profile, relayState } = await toldThroughBrowser(community, await follow(here, app, await here.act(action, fields)));
      expect(await app.services.sessions.checkCookie(elsewhere.loginCookie ?? '', '127.0.0.1')).toMatchObject({ ok: false });
      const back = await here.get(await logoutResponsePath(community, profile, relayState));
      expect(back.headers.location).toBe(`/Account?done=${done}`);
      expect((await memberSession(here)).ok).toBe(true);
    });

    it('takes a member signing out at the OpenID end-session endpoint round the SPs only the browser can tell, then back to the client', async () => {
      await start();
      const community = await registerSp(app, 'community');
      const issued = await register(app, { firstParty: true });
      const config = await relyingParty(app, issued);
      const browser = new PageClient(app.baseUrl);
      const authorization = await authorizationRequest(config);
      const tokens = await oidcClient.authorizationCodeGrant(config, callbackUrl(await signInThrough(browser, app, authorization.url)), {
        pkceCodeVerifier: authorization.verifier,
        expectedState: authorization.state,
        expectedNonce: authorization.nonce,
      });
      await signedInTo(browser, community);
      const end = oidcClient.buildEndSessionUrl(config, { id_token_hint: tokens.id_token ?? '', post_logout_redirect_uri: POST_LOGOUT_URI, state: 'bye' });
      const confirm = await browser.get(end.pathname + end.search);
      const { profile, relayState } = await toldThroughBrowser(community, await follow(browser, app, await browser.submit(confirm, {})));
      const back = await browser.get(await logoutResponsePath(community, profile, relayState));
      expect(back.headers.location).toBe(`${POST_LOGOUT_URI}?state=bye`);
    });

    it('tells an SP over SOAP when DeleteUserSession ends the session, again after an answer to another request; a new AuthnRequest then asks for the password', async () => {
      await start();
      // The first answer is a LogoutResponse, Success, but to another request: not a delivery, tried again a second later.
      receiver = await soapReceiver('portal', [{ inResponseTo: '_another-request' }]);
      const sp = await registerSp(app, 'portal', { soapLogout: receiver.url });
      const browser = new PageClient(app.baseUrl);
      await browser.signIn('ada', PASSWORD);
      const { token } = await memberSession(browser);
      postedToAcs(sp, await open(browser, await redirectRequest(sp)));
      expect(await deleteUserSession(app.baseUrl, token)).toBe(REFERENCE.memberId);
      const lines = () => app.logLines.filter((line) => line.message === 'saml logout' && line.through === 'back-channel');
      await waitUntil(() => lines().some((line) => line.outcome === 'delivered'), 'the SOAP LogoutRequest, the second time');
      expect(receiver.envelopes).toHaveLength(2);
      const told = await sp.saml.validatePostRequestAsync({ SAMLRequest: soapLogoutRequest(receiver.envelopes[1] ?? '') });
      expect(told).toMatchObject({ loggedOut: true, profile: { nameID: REFERENCE.memberId } });
      expect(lines().map((line) => [line.outcome, line.attempt, line.reason])).toEqual([
        ['retried', 1, 'a LogoutResponse to another request'],
        ['delivered', 2, undefined],
      ]);
      expect(lines()[1]).toMatchObject({ sp: 'portal', member: REFERENCE.memberId });
      const metrics = await scrape(app.baseUrl);
      expect([sample(metrics, 'saml_logouts_total{outcome="retried"}'), sample(metrics, 'saml_logouts_total{outcome="delivered"}')]).toEqual([1, 1]);
      const again = await open(browser, await redirectRequest(sp));
      expect(again.text).toContain('name="password"');
    });

    it.each([
      ['by provisioning (SCIM active=false)', async () => {
        const member = await app.services.members.get(REFERENCE.memberId);
        await app.services.provisioning.replace(member, { ...member, enabled: false });
      }],
      ['by the CLI or staff', () => app.services.members.setEnabled(REFERENCE.memberId, false)],
    ])('tells an SP over SOAP when the member is disabled %s', async (_by, disable) => {
      await start();
      receiver = await soapReceiver('portal');
      const sp = await registerSp(app, 'portal', { soapLogout: receiver.url });
      const browser = new PageClient(app.baseUrl);
      await browser.signIn('ada', PASSWORD);
      postedToAcs(sp, await open(browser, await redirectRequest(sp)));
      await disable();
      await waitUntil(() => receiver?.envelopes.length === 1, 'the SOAP LogoutRequest');
      const told = await sp.saml.validatePostRequestAsync({ SAMLRequest: soapLogoutRequest(receiver.envelopes[0] ?? '') });
      expect(told).toMatchObject({ loggedOut: true, profile: { nameID: REFERENCE.memberId } });
    });
  });
}

/** The same SP's settings, taking a message without an InResponseTo of its requests (an IdP-initiated sign-in). */
async function registerSpClient(sp: ServiceProvider) {
  const { SAML, ValidateInResponseTo } = await import('@node-saml/node-saml');
  return new SAML({ ...sp.saml.options, validateInResponseTo: ValidateInResponseTo.ifPresent });
}

/** DeleteUserSession over SOAP 1.1, as a partner site signs a member out; the plain result: the member's id. */
async function deleteUserSession(baseUrl: string, token: string): Promise<string> {
  const { path, element, ...init } = asmxRequest(REFERENCE.namespace, 'soap11', 'DeleteUserSession', { securityPassword: REFERENCE.password, token });
  const response = await fetch(`${baseUrl}${path}`, init);
  return resultText(await response.text(), element) ?? '';
}
