/**
 * A sign-in through a SAML service provider in Chromium, the SP on another site than the identity provider, as
 * platforms are: its AuthnRequest is a cross-site POST (which carries no SameSite=Lax cookie), the sign-in page
 * names it, and the page that carries the Response posts it to the SP's ACS by its own script, which the page's
 * CSP lets run (by its nonce), with no CSP violation reported. A second AuthnRequest, the member signed in, asks
 * for nothing. The SP is @node-saml/node-saml, which verifies the signatures and decrypts the assertion.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { describeWithBrowser, launchBrowser, TEST_DOMAIN } from '../helpers/browser.js';
import { freePort } from '../helpers/ports.js';
import { REFERENCE } from '../helpers/reference-data.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { PASSWORD } from '../oidc/relying-party.js';
import { registerSp, type ServiceProvider } from '../saml/service-provider.js';

describeWithBrowser('a sign-in through a SAML service provider in Chromium', () => {
  let app: TestApp;
  let spServer: Server;
  let sp: ServiceProvider;
  let browser: Browser;

  beforeAll(async () => {
    const port = await freePort();
    const publicUrl = `http://login.${TEST_DOMAIN}:${port}`;
    app = await startTestApp({ port, env: { PUBLIC_URL: publicUrl } });
    await app.services.members.setPassword(REFERENCE.memberId, PASSWORD);
    // The SP's pages: /start posts its AuthnRequest (node-saml's own auto-submitting form), /events/acs takes the Response.
    spServer = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        const answer = async () => {
          if (req.url === '/start') return sp.saml.getAuthorizeFormAsync('relay-1', undefined, {});
          const fields = Object.fromEntries(new URLSearchParams(body));
          const { profile } = await sp.saml.validatePostResponseAsync(fields);
          return `<!DOCTYPE html><title>Events</title><h1>Signed in as ${profile?.nameID ?? 'nobody'}</h1><p>RelayState ${fields['RelayState']}</p>`;
        };
        answer().then(
          (html) => res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(html),
          (error: unknown) => res.writeHead(400, { 'Content-Type': 'text/plain' }).end(`Refused: ${error instanceof Error ? error.message : String(error)}`),
        );
      });
    });
    await new Promise<void>((resolve) => spServer.listen(0, '127.0.0.1', resolve));
    sp = await registerSp(app, 'events', { origin: `http://127.0.0.1:${(spServer.address() as AddressInfo).port}` });
    browser = await launchBrowser([publicUrl]);
  });
  afterAll(async () => {
    await browser?.close();
    spServer?.close();
    await app?.close();
  });

  const cspViolations = (page: Page): string[] => {
    const violations: string[] = [];
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) violations.push(message.text());
    });
    return violations;
  };

  it('signs in from a cross-site AuthnRequest through the sign-in page, posts the Response by script under the CSP, and asks nothing the second time', async () => {
    const spStart = `${sp.acsUrl.replace('/events/acs', '')}/start`;
    const context = await browser.newContext();
    const page = await context.newPage();
    const violations = cspViolations(page);
    await page.goto(spStart);
    await page.getByText('Sign in to continue to events.').waitFor();
    await page.getByLabel('Username or email').fill('ada');
    await page.getByLabel('Password').fill(PASSWORD);
    await Promise.all([page.waitForURL(sp.acsUrl), page.getByRole('button', { name: 'Sign in', exact: true }).click()]);
    await page.getByText(`Signed in as ${REFERENCE.memberId}`).waitFor();
    await page.getByText('RelayState relay-1').waitFor();

    // Signed in: the next AuthnRequest, again a cross-site POST, comes back to the ACS without a form to fill.
    await Promise.all([page.waitForURL(sp.acsUrl), page.goto(spStart)]);
    await page.getByText(`Signed in as ${REFERENCE.memberId}`).waitFor();
    expect(violations).toEqual([]);
    await context.close();
  });
});
