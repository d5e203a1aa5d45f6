/**
 * Password recovery in Chromium, at a desktop's width (1280) and a phone's (390): from the sign-in page's
 * "Forgot your password?", through the mail a real SMTP server on 127.0.0.1 takes, to the link's page, a new
 * password and a sign-in with it. The screenshots docs/sign-in.md shows are scripts/screenshots.mjs's.
 */
import type { Browser, Page } from 'playwright-core';
import { browserOnPages, describeWithBrowser, TEST_DOMAIN } from '../helpers/browser.js';
import { adaAndBobWithPassword } from '../helpers/reference-data.js';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp-server.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { waitUntil } from '../helpers/wait.js';

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a brand new passphrase';
const WIDTHS = [
  { name: 'desktop', viewport: { width: 1280, height: 800 }, login: 'ada', email: 'ada@example.org' },
  { name: 'phone', viewport: { width: 390, height: 780 }, login: 'bob', email: 'bob@example.org' },
] as const;

describeWithBrowser('password recovery in Chromium', () => {
  let smtp: TestSmtpServer;
  let app: TestApp;
  let browser: Browser;
  let origin: string;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    app = await startTestApp({
      env: {
        ALLOWED_HOSTS: `login.${TEST_DOMAIN}`,
        ORGANIZATION_NAME: 'Example Society',
        SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
        MAIL_FROM: 'Example Society <no-reply@example.org>',
      },
    });
    await adaAndBobWithPassword(app.services, PASSWORD);
    ({ origin, browser } = await browserOnPages(app.port));
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await smtp?.stop();
  });

  /** Nothing wider than the viewport: no sideways scrolling on a phone. */
  const fitsWidth = async (page: Page, width: number) => expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);

  test.each(WIDTHS)('from "Forgot your password?" to a sign-in with the new password, at the $name width', async ({ viewport, login, email }) => {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    try {
      await page.goto(`${origin}/Login?ReturnUrl=%2FAccount`);
      await page.getByRole('link', { name: 'Forgot your password?' }).click();
      await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
      await page.getByLabel('Username or email').fill(login);
      await fitsWidth(page, viewport.width);
      await page.getByRole('button', { name: 'Send me a link' }).click();
      await page.getByRole('heading', { name: 'Check your email' }).waitFor();

      await waitUntil(() => smtp.delivered.some((delivered) => delivered.envelope.to.includes(email)), `the mail to ${email}`);
      const mail = smtp.delivered.find((delivered) => delivered.envelope.to.includes(email))!.mail;
      // The HTML part's button, as the member clicks it.
      const link = /href="(http:\/\/login\.example\.test:\d+\/Login\/reset\?[^"]+)"/.exec(typeof mail.html === 'string' ? mail.html : '')?.[1]?.replace(/&amp;/g, '&');
      expect(link).toBeDefined();
      await page.goto(link!);
      await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
      await page.getByLabel('New password').fill(NEW_PASSWORD);
      await fitsWidth(page, viewport.width);
      await page.getByRole('button', { name: 'Set new password' }).click();

      await page.getByText('Your password has been changed').waitFor();
      await fitsWidth(page, viewport.width);
      await page.getByLabel('Username or email').fill(login);
      await page.getByLabel('Password').fill(NEW_PASSWORD);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      // The return address came along the whole way: the sign-in goes on to the account page.
      await page.getByRole('heading', { name: 'Your account' }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/Account');
    } finally {
      await context.close();
    }
  });
});
