/**
 * Text no one types (U+0000, an unpaired surrogate) is refused at the edge of every protocol, in that protocol's
 * own shape, on both stores: PostgreSQL's text cannot hold a NUL, and answered 500 when one reached it. Neither
 * reaches the store, nothing answers 500 or logs an error. A form or a query carries no unpaired surrogate (its
 * bytes are decoded as UTF-8, with replacement); a JSON body ("\ud800") and an XML character reference can.
 */
import { asmxRequest, BINDINGS, resultText, type Binding } from './helpers/asmx-request.js';
import { describeWithPostgres } from './helpers/postgres.js';
import { REFERENCE } from './helpers/reference-data.js';
import type { TestApp } from './helpers/test-app.js';
import { nextTurn } from './helpers/wait.js';
import { PASSWORD, REDIRECT_URI, register, startOidcApp } from './oidc/relying-party.js';
import { PageClient } from './helpers/page-client.js';
import { PATCH_OP, USER_SCHEMA } from '../src/provisioning/urns.js';

const NUL = '\u0000';
const LONE = '\ud800';
const INVALID = [
  ['U+0000', NUL],
  ['an unpaired surrogate', LONE],
] as const;
/** How a SOAP client writes each in XML: a character reference, which XML does not allow for either. */
const XML_REFERENCE: Record<string, string> = { [NUL]: '&#0;', [LONE]: '&#xD800;' };

function suite(store: 'sqlite' | 'postgres'): void {
  let app: TestApp;

  beforeAll(async () => {
    app = await startOidcApp({
      store,
      env: {
        OPERATIONS: 'AuthenticateCookie,AuthenticateToken,AuthenticateUser,DeleteUserSession,Login,ValidateUser',
        RESULT_FORMAT: 'json',
        CALLER_MAX_FAILURES_PER_ADDRESS: '1000',
        SIGNIN_MAX_FAILURES_PER_ADDRESS: '1000',
        // The recovery page is there with a mail server; none is sent mail here.
        SMTP_URL: 'smtp://127.0.0.1:9',
        MAIL_FROM: 'no-reply@example.org',
      },
    });
  });
  afterAll(async () => {
    await app.close();
  });

  describe(`on ${store}`, () => {
    let logged = 0;
    beforeEach(() => {
      logged = app.logLines.length;
    });
    // Nothing answered as an internal error: no error line, no stack, no store error in the test's log lines.
    afterEach(async () => {
      await nextTurn();
      const failed = app.logLines.slice(logged).filter((line) => line.level === 'error' || /stack|0x00/.test(JSON.stringify(line)));
      expect(failed).toEqual([]);
    });

    describe('ASMX, on every binding', () => {
      /** One call; a SOAP envelope carries `bad` as XML writes it, the HTTP bindings as their encoding does. */
      async function call(binding: Binding, operation: string, params: Record<string, string>, bad: string) {
        const { path, element, ...init } = asmxRequest(app.config.soapNamespace, binding, operation, params);
        const body = init.body?.split(bad).join(binding.startsWith('soap') ? XML_REFERENCE[bad] : bad);
        const response = await fetch(`${app.baseUrl}${path}`, { ...init, ...(body === undefined ? {} : { body }) });
        const text = await response.text();
        return { status: response.status, text, result: resultText(text, element) };
      }

      for (const binding of BINDINGS) {
        for (const [name, bad] of INVALID) {
          it(`${binding}: ${name} in a username or password is a wrong credential (1004), in a token or cookie not signed in (1001, 1002, 1003); XML refuses it as unreadable`, async () => {
            const user = { securityPassword: REFERENCE.password, password: PASSWORD, authenticationToken: '' };
            const answers = [
              await call(binding, 'AuthenticateUser', { ...user, username: `ada${bad}` }, bad),
              await call(binding, 'Login', { ...user, username: 'ada', password: `${PASSWORD}${bad}` }, bad),
              await call(binding, 'ValidateUser', { securityPassword: REFERENCE.password, username: `${bad}`, password: PASSWORD }, bad),
              await call(binding, 'AuthenticateToken', { securityPassword: REFERENCE.password, token: `x${bad}` }, bad),
              await call(binding, 'AuthenticateCookie', { securityPassword: REFERENCE.password, loginCookie: `x${bad}`, cookieDomain: `${REFERENCE.domain}${bad}` }, bad),
              await call(binding, 'DeleteUserSession', { securityPassword: REFERENCE.password, token: `x${bad}` }, bad),
            ];
            if (binding.startsWith('soap')) {
              // ASMX's XmlReader refuses both character references: the document is malformed, 400 with no body.
              for (const answer of answers) expect(answer).toMatchObject({ status: 400, text: '' });
              return;
            }
            const messages = answers.map((answer) => (JSON.parse(answer.result ?? '{}') as { message?: string }).message);
            expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
            expect(messages).toEqual([
              'Invalid username or password',
              'Invalid username or password',
              'Invalid username or password',
              'Invalid token: no live session has this token',
              'Invalid login cookie: no live session token was issued for this cookie and domain',
              'Invalid token: no live session has this token to delete',
            ]);
          });
        }
      }

      it('http: U+0000 in the security password is a wrong one, as ASMX answers it', async () => {
        const answer = await call('httpget', 'AuthenticateToken', { securityPassword: `${REFERENCE.password}${NUL}`, token: 'x' }, NUL);
        expect(answer).toMatchObject({ status: 500, text: 'Invalid security password\n' });
      });
    });

    describe('the sign-in pages', () => {
      it('refuse U+0000 in a sign-in, a recovery request, a query, an account form and a second step with a 400 page', async () => {
        const visitor = new PageClient(app.baseUrl);
        const refused = [
          await visitor.signIn(`ada${NUL}`, PASSWORD),
          await visitor.signIn('ada', `${PASSWORD}${NUL}`),
          await visitor.get(`/Login?ReturnUrl=%2F${encodeURIComponent(NUL)}`),
          await visitor.submit(await visitor.get('/Login/forgot'), { login: `ada${NUL}` }),
          await visitor.submit(await visitor.get('/Login'), { step: 'code', challenge: `x${NUL}`, code: '123456' }),
        ];
        for (const page of refused) {
          expect(page.status).toBe(400);
          expect(page.text).toContain('This form could not be read');
        }
        expect((await visitor.signIn('ada', PASSWORD)).status).toBe(303);
        const account = await visitor.submit(await visitor.get('/Account'), { currentPassword: `${PASSWORD}${NUL}`, newPassword: 'a new passphrase' }, { action: '/Account/password' });
        expect(account.status).toBe(400);
        expect(account.text).toContain('This form could not be read');
      });

      it('read an unpaired surrogate\'s bytes as the UTF-8 decoder does: a login no member has', async () => {
        const page = await new PageClient(app.baseUrl).signIn(`ada${LONE}`, PASSWORD);
        expect(page.status).toBe(401);
      });
    });

    describe('SCIM', () => {
      let token: string;
      beforeAll(async () => {
        token = (await app.services.provisioners.add(`edge-${store}`)).token;
      });
      const scim = async (method: string, path: string, body?: string) => {
        const response = await fetch(`${app.baseUrl}/scim/v2${path}`, {
          method,
          headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/scim+json' }) },
          ...(body === undefined ? {} : { body }),
        });
        const text = await response.text();
        return { status: response.status, body: JSON.parse(text) as { scimType?: string; detail?: string } };
      };

      it('refuses U+0000 in a filter (invalidFilter), in another query parameter (invalidValue) and in an id (404)', async () => {
        expect(await scim('GET', `/Users?filter=${encodeURIComponent(`userName eq "ada${NUL}"`)}`)).toMatchObject({ status: 400, body: { scimType: 'invalidFilter' } });
        expect(await scim('GET', `/Users?attributes=${encodeURIComponent(`userName${NUL}`)}`)).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
        expect((await scim('GET', `/Users/${encodeURIComponent(`${REFERENCE.memberId}${NUL}`)}`)).status).toBe(404);
        expect((await scim('DELETE', `/Users/${encodeURIComponent(NUL)}`)).status).toBe(404);
        // An id that does not decode as UTF-8 (a surrogate's bytes) names nothing either.
        expect((await scim('GET', '/Users/%ED%A0%80')).status).toBe(404);
      });

      for (const [name, bad] of INVALID) {
        it(`refuses ${name} in a body's value or key with 400 invalidValue, and changes nothing`, async () => {
          const user = { schemas: [USER_SCHEMA], userName: `edge${bad}`, emails: [{ value: 'edge@example.org', primary: true }] };
          expect(await scim('POST', '/Users', JSON.stringify(user))).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
          const replaced = { schemas: [USER_SCHEMA], userName: 'ada', name: { givenName: `Ada${bad}` } };
          expect(await scim('PUT', `/Users/${REFERENCE.memberId}`, JSON.stringify(replaced))).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
          const patch = { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'name.familyName', value: `L${bad}` }] };
          expect(await scim('PATCH', `/Users/${REFERENCE.memberId}`, JSON.stringify(patch))).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
          const key = { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { [`title${bad}`]: 'x' } }] };
          expect(await scim('PATCH', `/Users/${REFERENCE.memberId}`, JSON.stringify(key))).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
          expect((await app.services.members.find(REFERENCE.memberId))?.firstName).toBe('Ada');
        });
      }
    });

    describe('OpenID Connect', () => {
      let clientId: string;
      beforeAll(async () => {
        clientId = (await register(app, {}, `edge-${store}`)).client.id;
      });

      it('answers U+0000 in an authorization request\'s parameters with invalid_request, back to the client', async () => {
        const query = new URLSearchParams({ client_id: clientId, redirect_uri: REDIRECT_URI, response_type: 'code', scope: 'openid', state: `s${NUL}`, code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' });
        const response = await fetch(`${app.baseUrl}/oidc/auth?${query}`, { redirect: 'manual' });
        expect(response.status).toBe(303);
        const back = new URL(response.headers.get('location') ?? '');
        expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
        expect(back.searchParams.get('error')).toBe('invalid_request');
      });

      it('answers U+0000 in a logout request and in an interaction\'s id with a page (400), never an error', async () => {
        const logout = await fetch(`${app.baseUrl}/oidc/session/end?${new URLSearchParams({ client_id: clientId, state: `s${NUL}` })}`, { redirect: 'manual' });
        expect(logout.status).toBe(400);
        expect(await logout.text()).toContain('invalid_request');
        const interaction = await fetch(`${app.baseUrl}/oidc/interaction/${encodeURIComponent(NUL)}`, { redirect: 'manual' });
        expect(interaction.status).toBe(400);
        expect(interaction.headers.get('content-type')).toContain('text/html');
      });

      it('answers U+0000 in a client id with its refusal, and in a code at the token endpoint with invalid_grant', async () => {
        const unknownClient = await fetch(`${app.baseUrl}/oidc/auth?${new URLSearchParams({ client_id: `c${NUL}`, redirect_uri: REDIRECT_URI, response_type: 'code', scope: 'openid' })}`, { redirect: 'manual' });
        expect(unknownClient.status).toBe(400);
        expect(await unknownClient.text()).toContain('invalid_client');
        const issued = await register(app, {}, `edge-token-${store}`);
        const grant = await fetch(`${app.baseUrl}/oidc/token`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: `Basic ${Buffer.from(`${issued.client.id}:${issued.secret ?? ''}`).toString('base64')}` },
          body: String(new URLSearchParams({ grant_type: 'authorization_code', code: `c${NUL}`, redirect_uri: REDIRECT_URI, code_verifier: 'x'.repeat(43) })),
        });
        expect(grant.status).toBe(400);
        expect(await grant.json()).toMatchObject({ error: 'invalid_grant' });
      });
    });
  });
}

describe('SQLite', () => suite('sqlite'));
describeWithPostgres('PostgreSQL', () => suite('postgres'));
