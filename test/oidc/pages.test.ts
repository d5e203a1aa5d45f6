/**
 * The pages a member sees in a sign-in through a client: the form_post page that carries the code has the
 * sign-in pages' security headers (its one inline script allowed by its hash alone); the sign-in page names the
 * client the member signs in for.
 */
import { createHash } from 'node:crypto';
import * as oidcClient from 'openid-client';
import { REFERENCE } from '../helpers/reference-data.js';
import type { TestApp } from '../helpers/test-app.js';
import { formOf, PageClient } from '../helpers/page-client.js';
import { authorizationRequest, callbackUrl, follow, PASSWORD, REDIRECT_URI, register, relyingParty, signInThrough, startOidcApp } from './relying-party.js';

let app: TestApp;
beforeEach(async () => {
  app = await startOidcApp();
});
afterEach(() => app.close());

it("gives the form_post page that carries the code the pages' security headers, its auto-submit script allowed by its hash alone", async () => {
  const config = await relyingParty(app, await register(app, { firstParty: true }));
  const request = await authorizationRequest(config, 'openid', { response_mode: 'form_post' });
  const page = await signInThrough(new PageClient(app.baseUrl), app, request.url);
  expect(page.status).toBe(200);
  const form = formOf(page.text, REDIRECT_URI);
  expect(form.hidden).toEqual({ code: expect.any(String), state: request.state, iss: app.baseUrl });
  const script = /<script>([\s\S]*?)<\/script>/.exec(page.text)?.[1] ?? '';
  expect(script).toContain('submit()');
  const policy = new Map((page.headers['content-security-policy'] ?? '').split(';').map((directive) => {
    const [name = '', ...values] = directive.trim().split(/\s+/);
    return [name, values.join(' ')];
  }));
  expect(policy.get('script-src')).toBe(`'sha256-${createHash('sha256').update(script).digest('base64')}'`);
  expect(policy.get('default-src')).toBe("'none'");
  expect(policy.get('frame-ancestors')).toBe("'none'");
  expect(page.headers['x-frame-options']).toBe('DENY');
  expect(page.headers['cache-control']).toBe('no-store');
  expect(page.headers['referrer-policy']).toBe('same-origin');
  // The client takes the code from the form the page posts.
  const post = new Request(REDIRECT_URI, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form.hidden) });
  const tokens = await oidcClient.authorizationCodeGrant(config, post, { pkceCodeVerifier: request.verifier, expectedState: request.state, expectedNonce: request.nonce });
  expect(tokens.claims()?.sub).toBe(REFERENCE.memberId);
});

it('names the client the member signs in for on the sign-in page, escaped, and no site for any other return address', async () => {
  const name = 'Forum <b>&</b> "Friends"';
  const config = await relyingParty(app, await register(app, { firstParty: true }, name));
  const request = await authorizationRequest(config, 'openid');
  const browser = new PageClient(app.baseUrl);
  const login = await follow(browser, app, await browser.get(request.url.pathname + request.url.search));
  const line = 'Sign in to continue to <strong>Forum &lt;b&gt;&amp;&lt;&#x2F;b&gt; &quot;Friends&quot;</strong>.';
  expect(login.status).toBe(200);
  expect(login.text).toContain(line);
  const wrong = await browser.submit(login, { login: 'ada', password: 'not the password' });
  expect(wrong.status).toBe(401);
  expect(wrong.text).toContain(line);
  const back = callbackUrl(await follow(browser, app, await browser.submit(wrong, { login: 'ada', password: PASSWORD })));
  const tokens = await oidcClient.authorizationCodeGrant(config, back, { pkceCodeVerifier: request.verifier, expectedState: request.state, expectedNonce: request.nonce });
  expect(tokens.claims()?.sub).toBe(REFERENCE.memberId);
  const returnPath = new URL(String(formOf(login.text).hidden['ReturnUrl']), app.baseUrl).pathname;
  for (const returnUrl of [returnPath, '/oidc/interaction/no-such-request', 'https://elsewhere.example/oidc/interaction/x', '/Account', undefined]) {
    const page = await new PageClient(app.baseUrl).get(returnUrl === undefined ? '/Login' : `/Login?ReturnUrl=${encodeURIComponent(returnUrl)}`);
    expect([returnUrl, page.status, page.text.includes('Sign in to continue to')]).toEqual([returnUrl, 200, false]);
  }
});
