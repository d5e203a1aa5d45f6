/**
 * The staff console in Chromium, on the store given: a support staff member signs in with a TOTP code on the
 * normal sign-in page, finds a member by email, reads the member's failed sign-in and its reason, signs the member
 * out everywhere (the member's token then no longer answers AuthenticateToken over SOAP), resets the member's
 * second factor and sends a password reset link (the mail reaches a real SMTP server on 127.0.0.1); an admin adds an
 * OpenID client; at a phone's width, by label and role as a screen reader finds them. A member who is not staff
 * gets 403.
 */
import type { Browser, Page } from 'playwright-core';
import { soap12AuthenticateToken } from '../helpers/asmx-calls.js';
import { totpCode } from '../helpers/authenticator-app.js';
import { browserOnPages, TEST_DOMAIN } from '../helpers/browser.js';
import { adaAndBobWithPassword, BOB, REFERENCE } from '../helpers/reference-data.js';
import { confirmedFactor, STEP } from '../helpers/second-factor.js';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp-server.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { waitUntil } from '../helpers/wait.js';

const PASSWORD = 'correct horse battery staple';
const PHONE = { width: 390, height: 780 };

export function staffConsoleInBrowser(store: 'sqlite' | 'postgres'): void {
  let smtp: TestSmtpServer;
  let app: TestApp;
  let browser: Browser;
  let origin: string;
  /** The service's clock runs ahead by whole TOTP steps: each code is used once. */
  let ahead = 0;
  const clock = () => Date.now() + ahead;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    app = await startTestApp({
      store,
      clock,
      env: {
        COOKIE_DOMAIN: `.${TEST_DOMAIN}`,
        // The partner site's SOAP calls come to 127.0.0.1.
        ALLOWED_HOSTS: `login.${TEST_DOMAIN},127.0.0.1`,
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

  async function signIn(page: Page, login: string, password: string): Promise<void> {
    await page.getByLabel('Username or email').fill(login);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForLoadState();
  }

  /** Nothing wider than the phone: the events table scrolls inside its own region. */
  const fitsPhone = async (page: Page) => expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);

  test('a staff member helps a member who cannot sign in, from the search to a reset link', async () => {
    await app.services.staff.grant(BOB.id, 'support');
    const { secret } = await confirmedFactor(app.services, BOB.id, clock());
    await confirmedFactor(app.services, REFERENCE.memberId, clock());
    ahead += STEP;
    expect(await soap12AuthenticateToken(app.baseUrl, REFERENCE.token)).toBe(REFERENCE.memberId);

    const context = await browser.newContext({ viewport: PHONE });
    try {
      const member = await context.newPage();
      await member.goto(`${origin}/Login`);
      await signIn(member, 'ada@example.org', 'not the password');
      await member.getByText('The username, email address or password is not correct').first().waitFor();

      const page = await context.newPage();
      await page.goto(`${origin}/Admin`);
      await signIn(page, 'bob', PASSWORD);
      await page.getByLabel('Code from your authenticator app').fill(totpCode(secret, clock()));
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('heading', { name: 'Find a member' }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/Admin');
      // The search field has autofocus, which the browser applies at its next rendering update, not with the
      // page's load: on a busy machine that comes after the heading is found. It must come all the same.
      await page.waitForFunction(() => document.activeElement?.id === 'q', undefined, { timeout: 5000 });

      await page.getByLabel('Member id, username, email or name').fill('ada@example.org');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: '1 member found' }).waitFor();
      await page.getByRole('link', { name: 'Ada Lovelace' }).click();
      await page.getByRole('heading', { name: 'Ada Lovelace', level: 1 }).waitFor();
      await fitsPhone(page);

      const history = page.getByRole('region', { name: 'Recent events' });
      const failed = history.getByRole('row').filter({ hasText: 'Sign-in failed' });
      await expect(failed.first().textContent({ timeout: 10_000 })).resolves.toContain('wrong-password');

      await page.getByRole('link', { name: 'Sign out everywhere' }).click();
      await page.getByRole('heading', { name: 'Sign out everywhere: Ada Lovelace?' }).waitFor();
      await page.getByRole('button', { name: 'Sign out everywhere' }).click();
      await page.getByRole('status').filter({ hasText: 'The member has been signed out everywhere.' }).waitFor();
      // The plain result format answers a token that is no longer signed in with nothing.
      expect(await soap12AuthenticateToken(app.baseUrl, REFERENCE.token)).toBe('');

      await page.getByRole('link', { name: 'Reset two-step verification' }).click();
      await page.getByRole('button', { name: 'Reset two-step verification' }).click();
      await page.getByRole('status').filter({ hasText: "The member's two-step verification has been reset." }).waitFor();
      expect(await app.services.secondFactor.isEnabled(REFERENCE.memberId)).toBe(false);

      await page.getByRole('link', { name: 'Send a password reset link' }).click();
      await page.getByRole('button', { name: 'Send a password reset link' }).click();
      await page.getByRole('status').filter({ hasText: 'A password reset link has been sent to the member.' }).waitFor();
      await waitUntil(() => smtp.delivered.some((delivered) => delivered.envelope.to.includes('ada@example.org') && /\/Login\/reset\?token=/.test(delivered.mail.text ?? '')), 'the reset link to ada@example.org');
      await fitsPhone(page);

      const byStaff = (await app.services.events.list({ memberId: REFERENCE.memberId })).filter((event) => event.actor.kind === 'staff');
      expect(byStaff.map((event) => [event.type, event.actor.id])).toEqual(
        expect.arrayContaining([
          ['sessions-ended', BOB.id],
          ['second-factor-reset', BOB.id],
          ['recovery-requested', BOB.id],
        ]),
      );
    } finally {
      await context.close();
    }
  }, 60_000);

  test('an admin adds an OpenID client at a phone\'s width: a mistyped URI said at its field, then the confirmation and the secret once', async () => {
    await app.services.members.add({ id: 'member-8', username: 'dora', email: 'dora@example.org' });
    await app.services.members.setPassword('member-8', PASSWORD);
    await app.services.staff.grant('member-8', 'admin');
    const { secret } = await confirmedFactor(app.services, 'member-8', clock());
    ahead += STEP;
    const context = await browser.newContext({ viewport: PHONE });
    try {
      const page = await context.newPage();
      await page.goto(`${origin}/Admin/manage`);
      await signIn(page, 'dora', PASSWORD);
      await page.getByLabel('Code from your authenticator app').fill(totpCode(secret, clock()));
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('heading', { name: 'Manage the service' }).waitFor();
      await page.getByRole('link', { name: 'Add the OpenID client' }).click();
      await page.getByLabel('Name', { exact: true }).fill('Learning');
      const uris = page.getByLabel('Redirect URIs', { exact: true });
      await uris.fill('learn.example.org/callback');
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('alert').getByRole('link', { name: /learn\.example\.org\/callback/ }).waitFor();
      await expect(uris.getAttribute('aria-invalid')).resolves.toBe('true');
      await expect(uris.evaluate((field) => field.getAttribute('aria-describedby')?.split(' ').map((id) => document.getElementById(id)?.textContent ?? '').join(' '))).resolves.toContain('must be an absolute http(s) URL');
      await fitsPhone(page);
      await uris.fill('https://learn.example.org/callback');
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('heading', { name: 'Add the OpenID client?' }).waitFor();
      expect(await app.services.oidc.clients.list()).toEqual([]);
      await page.getByRole('button', { name: 'Add the OpenID client' }).click();
      await page.getByRole('heading', { name: 'The OpenID client has been added.' }).waitFor();
      const client = await app.services.oidc.clients.get('Learning');
      const shown = await page.getByLabel('Client secret of Learning').inputValue();
      expect(app.services.oidc.clients.secretMatches(client.secretHash ?? '', shown)).toBe(true);
      await fitsPhone(page);
    } finally {
      await context.close();
    }
  }, 60_000);

  test('a member who is not staff gets 403, a page in the layout', async () => {
    await app.services.members.add({ id: 'member-9', username: 'carol', email: 'carol@example.org' });
    await app.services.members.setPassword('member-9', PASSWORD);
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${origin}/Login`);
      await signIn(page, 'carol', PASSWORD);
      const response = await page.goto(`${origin}/Admin`);
      expect(response?.status()).toBe(403);
      await page.getByRole('heading', { name: 'Staff only' }).waitFor();
    } finally {
      await context.close();
    }
  });
}
