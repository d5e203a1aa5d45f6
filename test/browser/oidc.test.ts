/**
 * A sign-in through an OpenID client in Chromium, with response_mode=form_post: the sign-in page names the
 * client, and the page that carries the code posts it to the client by its own script, which the page's CSP
 * lets run (by its hash), with no CSP violation reported.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oidcClient from 'openid-client';
import type { Browser } from 'playwright-core';
import { describeWithBrowser, launchBrowser } from '../helpers/browser.js';
import { REFERENCE } from '../helpers/reference-data.js';
import type { TestApp } from '../helpers/test-app.js';
import { PASSWORD, register, relyingParty, startOidcApp } from '../oidc/relying-party.js';

describeWithBrowser('a sign-in through an OpenID client in Chromium', () => {
  let app: TestApp;
  let client: Server;
  let browser: Browser;
  const posted: string[] = [];

  beforeAll(async () => {
    app = await startOidcApp();
    client = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        if (req.method === 'POST') posted.push(body);
        res.setHeader('Content-Type', 'text/html; charset=utf-8');
        res.end('<!DOCTYPE html><title>Client</title><h1>Back at the client</h1>');
      });
    });
    await new Promise<void>((resolve) => client.listen(0, '127.0.0.1', resolve));
    browser = await launchBrowser([app.baseUrl]);
  });
  afterAll(async () => {
    await browser?.close();
    client?.close();
    await app?.close();
  });

  it('names the client on the sign-in page, and posts the code back by the form_post page\'s own script under its CSP', async () => {
    const callback = `http://127.0.0.1:${(client.address() as AddressInfo).port}/callback`;
    const config = await relyingParty(app, await register(app, { firstParty: true, redirectUris: [callback] }, 'Members forum'));
    const verifier = oidcClient.randomPKCECodeVerifier();
    const state = oidcClient.randomState();
    const nonce = oidcClient.randomNonce();
    const url = oidcClient.buildAuthorizationUrl(config, {
      redirect_uri: callback,
      scope: 'openid',
      response_mode: 'form_post',
      code_challenge: await oidcClient.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    const context = await browser.newContext();
    const page = await context.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) violations.push(message.text());
    });
    await page.goto(url.href);
    await page.getByText('Sign in to continue to Members forum.').waitFor();
    await page.getByLabel('Username or email').fill('ada');
    await page.getByLabel('Password').fill(PASSWORD);
    await Promise.all([page.waitForURL(callback), page.getByRole('button', { name: 'Sign in', exact: true }).click()]);
    await page.getByText('Back at the client').waitFor();
    expect(violations).toEqual([]);
    expect(posted).toHaveLength(1);
    const fields = new URLSearchParams(posted[0]);
    expect(fields.get('state')).toBe(state);
    const request = new Request(callback, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: fields });
    const tokens = await oidcClient.authorizationCodeGrant(config, request, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce });
    expect(tokens.claims()?.sub).toBe(REFERENCE.memberId);
    await context.close();
  });
});
