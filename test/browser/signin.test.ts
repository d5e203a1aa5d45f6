import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describeWithBrowser, launchBrowser, TEST_DOMAIN } from '../helpers/browser.js';
import { httpGetAuthenticateToken, soap11AuthenticateCookie, soap12AuthenticateToken } from '../helpers/asmx-calls.js';
import { adaAndBobWithPassword, REFERENCE } from '../helpers/reference-data.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const COOKIE_DOMAIN = `.${TEST_DOMAIN}`;
const PASSWORD = 'correct horse battery staple';

describeWithBrowser('member sign-in in Chromium', () => {
  let app: TestApp;
  let partner: Server;
  let browser: Browser;
  let loginOrigin: string;
  let partnerOrigin: string;
  const partnerRequests: string[] = [];

  beforeAll(async () => {
    // The pages answer at the service's own host names only; the ASMX calls below go to 127.0.0.1.
    const ALLOWED_HOSTS = `login.${TEST_DOMAIN}, 127.0.0.1`;
    app = await startTestApp({ env: { COOKIE_DOMAIN, ORGANIZATION_NAME: 'Example Society', SIGNIN_MAX_FAILURES_PER_ACCOUNT: '3', ALLOWED_HOSTS } });
    await adaAndBobWithPassword(app.services, PASSWORD);
    partner = createServer((req, res) => {
      partnerRequests.push(req.url ?? '');
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      res.end('<!DOCTYPE html><title>Partner</title><h1>Partner site</h1>');
    });
    await new Promise<void>((resolve) => partner.listen(0, '127.0.0.1', resolve));
    loginOrigin = `http://login.${TEST_DOMAIN}:${app.port}`;
    partnerOrigin = `http://partner.${TEST_DOMAIN}:${(partner.address() as AddressInfo).port}`;
    await app.services.callers.addOrigin('reference-client', partnerOrigin, { receivesToken: true });
    browser = await launchBrowser([loginOrigin, partnerOrigin]);
  });
  afterAll(async () => {
    await browser?.close();
    partner?.close();
    await app?.close();
  });

  let context: BrowserContext;
  let page: Page;
  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
  });
  afterEach(() => context.close());

  async function signIn(login: string, password: string, query = '') {
    await page.goto(`${loginOrigin}/Login${query}`);
    await page.getByLabel('Username or email').fill(login);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForLoadState();
  }
  const loginCookie = async () => (await context.cookies()).find((c) => c.name === '.ASPXAUTH');

  test('signing in sets the login cookie with its attributes, and AuthenticateCookie over SOAP 1.1 returns the member', async () => {
    await signIn('ada', PASSWORD);
    expect(new URL(page.url()).pathname).toBe('/Login');
    await expect(page.getByRole('heading', { name: 'You are signed in' }).isVisible()).resolves.toBe(true);
    const cookie = await loginCookie();
    expect(cookie).toMatchObject({ domain: COOKIE_DOMAIN, path: '/', httpOnly: true, secure: true, sameSite: 'Lax', expires: -1 });
    expect(await soap11AuthenticateCookie(app.baseUrl, cookie!.value, COOKIE_DOMAIN)).toBe(REFERENCE.memberId);
    expect(await soap11AuthenticateCookie(app.baseUrl, cookie!.value, '.other.test')).toBe('');
  });

  test('"Keep me signed in" makes the cookie persistent', async () => {
    await page.goto(`${loginOrigin}/Login`);
    await page.getByLabel('Username or email').fill('ada');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByLabel('Keep me signed in').check();
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForLoadState();
    expect((await loginCookie())?.expires).toBeGreaterThan(Date.now() / 1000 + 3600);
  });

  test('a registered partner ReturnUrl receives a token that AuthenticateToken accepts over SOAP 1.2 and HTTP GET; signing out stops both', async () => {
    await signIn('ada@example.org', PASSWORD, `?ReturnUrl=${encodeURIComponent(`${partnerOrigin}/landing?page=home`)}`);
    const landed = new URL(page.url());
    expect(landed.origin).toBe(partnerOrigin);
    expect(landed.pathname).toBe('/landing');
    expect(landed.searchParams.get('page')).toBe('home');
    const token = landed.searchParams.get('token') ?? '';
    expect(token).not.toBe('');
    expect(partnerRequests.some((url) => url.includes(`token=${token}`))).toBe(true);
    expect(await soap12AuthenticateToken(app.baseUrl, token)).toBe(REFERENCE.memberId);
    expect(await httpGetAuthenticateToken(app.baseUrl, token)).toBe(REFERENCE.memberId);
    const cookie = (await loginCookie())!.value;
    expect(await soap11AuthenticateCookie(app.baseUrl, cookie, COOKIE_DOMAIN)).toBe(REFERENCE.memberId);

    await page.goto(`${loginOrigin}/Login`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForLoadState();
    expect(await loginCookie()).toBeUndefined();
    await expect(page.getByRole('button', { name: 'Sign in', exact: true }).isVisible()).resolves.toBe(true);
    expect(await soap11AuthenticateCookie(app.baseUrl, cookie, COOKIE_DOMAIN)).toBe('');
    expect(await soap12AuthenticateToken(app.baseUrl, token)).toBe('');
    expect(await httpGetAuthenticateToken(app.baseUrl, token)).toBe('');
  });

  test('a wrong password shows the error next to the field, announced and tied to it', async () => {
    await signIn('ada', 'not the password');
    const error = page.locator('#password-error');
    await expect(error.isVisible()).resolves.toBe(true);
    expect(await error.textContent()).toContain('The username, email address or password is not correct');
    expect(await page.getByLabel('Password').getAttribute('aria-describedby')).toBe('password-error');
    expect(await page.getByLabel('Password').getAttribute('aria-invalid')).toBe('true');
    await expect(page.getByRole('alert').isVisible()).resolves.toBe(true);
    expect(await page.getByLabel('Username or email').inputValue()).toBe('ada');
    expect(await page.getByLabel('Password').inputValue()).toBe('');
    expect(await loginCookie()).toBeUndefined();
  });

  test('the throttle engages after repeated failures, even for the right password, with a clear message', async () => {
    for (let attempt = 0; attempt < 3; attempt += 1) await signIn('bob', `wrong ${attempt}`);
    await signIn('bob', PASSWORD);
    expect(await page.locator('.error-summary').textContent()).toMatch(/Too many failed attempts to sign in\. Try again in \d+ minutes?\./);
    expect(await loginCookie()).toBeUndefined();
  });

  test('an open-redirect attempt lands on the default page of the service', async () => {
    await signIn('ada', PASSWORD, `?ReturnUrl=${encodeURIComponent('https://evil.example.com/steal')}`);
    const landed = new URL(page.url());
    expect(landed.origin).toBe(loginOrigin);
    expect(landed.pathname).toBe('/Login');
    expect(landed.search).toBe('');
  });

  test('works with the keyboard alone', async () => {
    await page.goto(`${loginOrigin}/Login`);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('login');
    await page.keyboard.type('ada');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('password');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'You are signed in' }).waitFor({ timeout: 5000 });
  });

  test('the page is usable at a phone width', async () => {
    await page.setViewportSize({ width: 375, height: 740 });
    await page.goto(`${loginOrigin}/Login`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    for (const control of [page.getByLabel('Username or email'), page.getByLabel('Password'), page.getByRole('button', { name: 'Sign in', exact: true })]) {
      const box = await control.boundingBox();
      expect(box).not.toBeNull();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(375);
      expect(box!.height).toBeGreaterThanOrEqual(40);
    }
    await page.getByLabel('Username or email').fill('ada');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'You are signed in' }).waitFor({ timeout: 5000 });
  });
});
