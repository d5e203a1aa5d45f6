import type { Browser, BrowserContext, Page } from 'playwright-core';
import { totpCode } from '../helpers/authenticator-app.js';
import { browserOnPages, describeWithBrowser, TEST_DOMAIN } from '../helpers/browser.js';
import { adaAndBobWithPassword, REFERENCE } from '../helpers/reference-data.js';
import { STEP } from '../helpers/second-factor.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const COOKIE_DOMAIN = `.${TEST_DOMAIN}`;
const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a new and longer passphrase';
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const PHONE = { width: 375, height: 740 };

/**
 * The service's clock runs ahead of the test's by whole TOTP steps: a code is used once, so each sign-in with
 * a code moves it on by a step, as half a minute would. Codes come from the key the set-up page shows as text
 * (totpCode(secret, Date.now() + ahead)), as a member's app would compute them.
 */
let ahead = 0;
const clock = () => Date.now() + ahead;
const nextCode = (secret: string) => {
  ahead += STEP;
  return totpCode(secret, clock());
};

async function signIn(page: Page, origin: string, login: string, password: string): Promise<void> {
  await page.goto(`${origin}/Login`);
  await page.getByLabel('Username or email').fill(login);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForLoadState();
}

const loginCookieOf = async (context: BrowserContext) => (await context.cookies()).find((c) => c.name === '.ASPXAUTH');

/** Every control inside a phone's width, tall enough to tap, and no sideways scrolling. */
async function fitsPhone(page: Page): Promise<void> {
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
  for (const control of await page.locator('input:not([type="hidden"]), button, summary').all()) {
    if (!(await control.isVisible())) continue;
    const box = await control.boundingBox();
    expect(box).not.toBeNull();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(PHONE.width);
    expect(box!.height).toBeGreaterThanOrEqual(40);
  }
}

describeWithBrowser('the account page and the second factor in Chromium', () => {
  let app: TestApp;
  let browser: Browser;
  let origin: string;
  /** What the set-up showed: later tests sign in with them. */
  let secret = '';
  let recoveryCodes: string[] = [];
  let usedCode = '';

  beforeAll(async () => {
    app = await startTestApp({
      env: { COOKIE_DOMAIN, ORGANIZATION_NAME: 'Example Society', SIGNIN_MAX_FAILURES_PER_ACCOUNT: '5', ALLOWED_HOSTS: `login.${TEST_DOMAIN}` },
      clock,
    });
    await adaAndBobWithPassword(app.services, PASSWORD);
    ({ origin, browser } = await browserOnPages(app.port));
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  const contexts: BrowserContext[] = [];
  /** A browser of its own (cookies and all), closed after the test. */
  async function newPage(options: { userAgent?: string; viewport?: { width: number; height: number } } = {}): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 800 }, ...(options.userAgent ? { userAgent: options.userAgent } : {}) });
    contexts.push(context);
    return { context, page: await context.newPage() };
  }
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
  });

  /** Signs ada in through the code step with a fresh code. */
  async function signInWithCode(page: Page): Promise<void> {
    await signIn(page, origin, 'ada', PASSWORD);
    await page.getByLabel('Code from your authenticator app').fill(nextCode(secret));
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'You are signed in' }).waitFor({ timeout: 5000 });
  }

  test('set-up by scanning nothing: the key shown as text gives the codes; the recovery codes are shown once', async () => {
    const { page } = await newPage();
    await signIn(page, origin, 'ada', PASSWORD);
    await page.getByRole('link', { name: 'Manage your account' }).click();
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/Account');
    await page.getByRole('button', { name: 'Set up two-step verification' }).click();
    await page.getByRole('heading', { name: 'Set up two-step verification' }).waitFor();
    await expect(page.getByRole('img', { name: 'QR code to scan with your authenticator app' }).isVisible()).resolves.toBe(true);
    const qr = await page.getByRole('img', { name: 'QR code to scan with your authenticator app' }).boundingBox();
    expect(qr!.width).toBeGreaterThanOrEqual(150);
    secret = await page.getByLabel('The key without spaces, to copy').inputValue();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect((await page.locator('#secret-grouped').textContent())?.replace(/ /g, '')).toBe(secret);

    // A wrong code first: the error is announced and tied to the field.
    await page.getByLabel('Code from your authenticator app').fill('000000');
    await page.getByRole('button', { name: 'Turn on two-step verification' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByLabel('Code from your authenticator app').getAttribute('aria-describedby')).toBe('code-hint code-error');
    expect(await page.getByLabel('The key without spaces, to copy').inputValue()).toBe(secret);

    await page.getByLabel('Code from your authenticator app').fill(totpCode(secret, clock()));
    await page.getByRole('button', { name: 'Turn on two-step verification' }).click();
    await page.getByRole('heading', { name: 'Save your recovery codes' }).waitFor();
    recoveryCodes = await page.locator('.codes code').allTextContents();
    expect(recoveryCodes).toHaveLength(10);
    expect(await page.getByText('they are shown only this once').isVisible()).toBe(true);
    await page.getByRole('link', { name: /I have saved my codes/ }).click();
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    await expect(page.getByRole('status').textContent()).resolves.toContain('Two-step verification is on.');
    expect(await page.getByText('You have 10 unused recovery codes.').isVisible()).toBe(true);
  });

  test('sign-in with a code: the session begins only after it', async () => {
    const { context, page } = await newPage();
    await signIn(page, origin, 'ada', PASSWORD);
    await page.getByRole('heading', { name: 'Enter your code' }).waitFor();
    expect(await loginCookieOf(context)).toBeUndefined();
    const field = page.getByLabel('Code from your authenticator app');
    expect(await field.getAttribute('autocomplete')).toBe('one-time-code');
    expect(await field.getAttribute('inputmode')).toBe('numeric');
    // The password went with the first form only.
    expect(await page.locator('input[type="hidden"][name="challenge"]').count()).toBe(1);
    expect(await page.content()).not.toContain(PASSWORD);
    usedCode = nextCode(secret);
    await field.fill(usedCode);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'You are signed in' }).waitFor({ timeout: 5000 });
    expect(await loginCookieOf(context)).toMatchObject({ domain: COOKIE_DOMAIN, httpOnly: true, secure: true, sameSite: 'Lax' });
  });

  test('a replayed code is refused', async () => {
    const { context, page } = await newPage();
    await signIn(page, origin, 'ada', PASSWORD);
    await page.getByLabel('Code from your authenticator app').fill(usedCode);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.locator('#code-error').textContent()).toContain('The code is not right, or it has been used already');
    expect(await page.getByLabel('Code from your authenticator app').getAttribute('aria-invalid')).toBe('true');
    expect(await loginCookieOf(context)).toBeUndefined();
  });

  test('a recovery code signs in once', async () => {
    const code = recoveryCodes[0] ?? '';
    const first = await newPage();
    await signIn(first.page, origin, 'ada', PASSWORD);
    await first.page.getByText('Use a recovery code instead').click();
    await first.page.getByLabel('Recovery code').fill(code);
    await first.page.getByRole('button', { name: 'Continue' }).click();
    await first.page.getByRole('heading', { name: 'You are signed in' }).waitFor({ timeout: 5000 });
    expect(await loginCookieOf(first.context)).toBeDefined();

    const second = await newPage();
    await signIn(second.page, origin, 'ada', PASSWORD);
    await second.page.getByText('Use a recovery code instead').click();
    await second.page.getByLabel('Recovery code').fill(code);
    await second.page.getByRole('button', { name: 'Continue' }).click();
    await second.page.getByRole('alert').waitFor();
    expect(await second.page.locator('#recovery-error').textContent()).toContain('The recovery code is not right, or it has been used already');
    expect(await loginCookieOf(second.context)).toBeUndefined();
  });

  test('a change of password ends the other sessions and keeps this one', async () => {
    const here = await newPage();
    const elsewhere = await newPage({ userAgent: IPHONE });
    await signIn(here.page, origin, 'bob', PASSWORD);
    await signIn(elsewhere.page, origin, 'bob', PASSWORD);
    await here.page.goto(`${origin}/Account`);
    await here.page.getByLabel('Current password').fill(PASSWORD);
    await here.page.getByLabel('New password').fill(NEW_PASSWORD);
    await here.page.getByRole('button', { name: 'Change password' }).click();
    await here.page.getByRole('status').waitFor();
    expect(await here.page.getByRole('status').textContent()).toContain('Your password has been changed. You have been signed out everywhere else.');
    expect(await here.page.locator('.sessions li').count()).toBe(1);

    await elsewhere.page.goto(`${origin}/Account`);
    expect(new URL(elsewhere.page.url()).pathname).toBe('/Login');
    await expect(elsewhere.page.getByRole('button', { name: 'Sign in', exact: true }).isVisible()).resolves.toBe(true);
    await here.page.reload();
    expect(new URL(here.page.url()).pathname).toBe('/Account');
  });

  test('sign-out of another session from the list', async () => {
    const here = await newPage();
    const phone = await newPage({ userAgent: IPHONE });
    await signIn(here.page, origin, 'bob', NEW_PASSWORD);
    await signIn(phone.page, origin, 'bob', NEW_PASSWORD);
    await here.page.goto(`${origin}/Account`);
    const current = here.page.locator('.sessions li[aria-current="true"]');
    expect(await current.count()).toBe(1);
    expect(await current.textContent()).toContain('This session');
    expect(await current.getByRole('button').count()).toBe(0);
    const fromPhone = here.page.locator('.sessions li').filter({ hasText: 'Safari on iPhone' });
    expect(await fromPhone.count()).toBe(1);
    expect(await fromPhone.locator('time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    await fromPhone.getByRole('button', { name: /^Sign out Safari on iPhone/ }).click();
    await here.page.getByRole('status').waitFor();
    expect(await here.page.getByRole('status').textContent()).toContain('That session has been signed out.');
    expect(await here.page.locator('.sessions li').filter({ hasText: 'Safari on iPhone' }).count()).toBe(0);

    await phone.page.goto(`${origin}/Account`);
    expect(new URL(phone.page.url()).pathname).toBe('/Login');
    expect(await loginCookieOf(here.context)).toBeDefined();
  });

  test('the account page fits a phone', async () => {
    // Two sessions on the page: this one and a phone's.
    await app.services.sessions.revokeAllOf(REFERENCE.memberId);
    const elsewhere = await newPage({ userAgent: IPHONE });
    await signInWithCode(elsewhere.page);
    const { page } = await newPage();
    await signInWithCode(page);
    await page.goto(`${origin}/Account`);
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    await page.setViewportSize(PHONE);
    await page.reload();
    await fitsPhone(page);
  });

  test('the code step fits a phone, and works with the keyboard alone', async () => {
    const { page } = await newPage();
    await signIn(page, origin, 'ada', PASSWORD);
    await page.getByRole('heading', { name: 'Enter your code' }).waitFor();
    await page.setViewportSize(PHONE);
    await fitsPhone(page);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('code');
    await page.keyboard.type(nextCode(secret));
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'You are signed in' }).waitFor({ timeout: 5000 });
  });
});

describeWithBrowser('MFA=required in Chromium', () => {
  let app: TestApp;
  let browser: Browser;
  let origin: string;

  beforeAll(async () => {
    app = await startTestApp({ env: { COOKIE_DOMAIN, ORGANIZATION_NAME: 'Example Society', MFA: 'required', ALLOWED_HOSTS: `login.${TEST_DOMAIN}` }, clock });
    await app.services.members.setPassword(REFERENCE.memberId, PASSWORD);
    ({ origin, browser } = await browserOnPages(app.port));
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  test('a member without a second factor must set one up before the sign-in finishes', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      await signIn(page, origin, 'ada', PASSWORD);
      await page.getByRole('heading', { name: 'Set up two-step verification' }).waitFor();
      expect(await page.getByText('asks every member to sign in with a code from their phone').isVisible()).toBe(true);
      expect(await loginCookieOf(context)).toBeUndefined();
      // Not signed in yet: the account page sends the member to sign in.
      const aside = await context.newPage();
      await aside.goto(`${origin}/Account`);
      expect(new URL(aside.url()).pathname).toBe('/Login');
      await aside.close();

      const secret = await page.getByLabel('The key without spaces, to copy').inputValue();
      await page.getByLabel('Code from your authenticator app').fill(nextCode(secret));
      await page.getByRole('button', { name: 'Turn on two-step verification' }).click();
      await page.getByRole('heading', { name: 'Save your recovery codes' }).waitFor();
      expect(await page.locator('.codes code').count()).toBe(10);
      expect(await loginCookieOf(context)).toBeDefined();
      await page.getByRole('link', { name: /I have saved my codes/ }).click();
      await page.getByRole('heading', { name: 'You are signed in' }).waitFor();

      // The next sign-in asks for a code.
      const later = await browser.newContext();
      try {
        const again = await later.newPage();
        await signIn(again, origin, 'ada', PASSWORD);
        await again.getByRole('heading', { name: 'Enter your code' }).waitFor();
        await again.getByLabel('Code from your authenticator app').fill(nextCode(secret));
        await again.getByRole('button', { name: 'Continue' }).click();
        await again.getByRole('heading', { name: 'You are signed in' }).waitFor({ timeout: 5000 });
      } finally {
        await later.close();
      }
    } finally {
      await context.close();
    }
  });
});
