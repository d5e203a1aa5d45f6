import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { soap11AuthenticateCookie } from '../helpers/asmx-calls.js';
import { describeWithBrowser, launchBrowser } from '../helpers/browser.js';
import { cookieHeader, postForm } from '../helpers/form-post.js';
import { describeWithPostgres } from '../helpers/postgres.js';
import { adaAndBobWithPassword, BOB, REFERENCE } from '../helpers/reference-data.js';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp-server.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { waitUntil } from '../helpers/wait.js';

const PASSWORD = 'correct horse battery staple';
/** Browsers refuse passkeys on an IP address: the pages are opened at localhost, the relying-party id. */
const HOST = 'localhost';

/** A platform authenticator that holds discoverable credentials and verifies its user, as a phone's or a laptop's. */
async function withAuthenticator(page: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  return { cdp, authenticatorId };
}

/**
 * Chromium's virtual authenticator answers a passkey autofill request at once, as a member picking the passkey from
 * the username field's suggestions would: a tab without autofill, whose member uses the button.
 */
async function withoutAutofill(page: Page): Promise<void> {
  await page.addInitScript(() => {
    PublicKeyCredential.isConditionalMediationAvailable = () => Promise.resolve(false);
  });
}

const loginCookieOf = async (context: BrowserContext) => (await context.cookies()).find((c) => c.name === '.ASPXAUTH')?.value;

/** A sign-in form's CSRF proof and nonce cookie, then a passkey ceremony's options and nonce cookie, from the service. */
async function signInCeremony(origin: string): Promise<{ csrf: string; cookie: string; options: object }> {
  const page = await fetch(`${origin}/Login`);
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  const csrfCookie = cookieHeader(page);
  const res = await postForm(origin, '/Login/passkey/options', { csrf }, csrfCookie);
  expect(res.status).toBe(200);
  const { options } = (await res.json()) as { options: object };
  return { csrf, cookie: `${csrfCookie}; ${cookieHeader(res)}`, options };
}

function passkeysInBrowser(store: 'sqlite' | 'postgres'): void {
  let app: TestApp;
  /** A second instance on the same store and server key, with MFA=required: as several instances behind one database. */
  let required: TestApp;
  let browser: Browser;
  let origin: string;
  let requiredOrigin: string;
  /** Where a page of another origin is served, as a phishing site would be. */
  let elsewhere: Server;
  let smtp: TestSmtpServer;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    app = await startTestApp({ store, env: { ORGANIZATION_NAME: 'Example Society', SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: 'no-reply@example.org' } });
    required = await startTestApp({ store: async () => ({ store: app.store, cleanup: async () => {} }), seed: false, secretKey: app.secretKey, env: { MFA: 'required' } });
    await adaAndBobWithPassword(app.services, PASSWORD);
    origin = `http://${HOST}:${app.port}`;
    requiredOrigin = `http://${HOST}:${required.port}`;
    elsewhere = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!DOCTYPE html><title>Elsewhere</title>'));
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    browser = await launchBrowser([]);
  });
  afterAll(async () => {
    await browser?.close();
    elsewhere?.close();
    await required?.close();
    await app?.close();
    await smtp?.stop();
  });

  /** One browser, one tab and its authenticator: the member's device through the tests that follow. */
  let context: BrowserContext;
  let page: Page;
  let cdp: CDPSession;
  let authenticatorId: string;
  beforeAll(async () => {
    context = await browser.newContext();
    page = await context.newPage();
    await withoutAutofill(page);
    ({ cdp, authenticatorId } = await withAuthenticator(page));
  });

  async function signInWithPasskey(at: string): Promise<void> {
    await page.goto(`${at}/Login`);
    const answered = page.waitForResponse((res) => res.request().method() === 'POST' && new URL(res.url()).pathname === '/Login/passkey');
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await answered;
  }

  test('a member signs in with the password, adds a passkey, signs out and signs in with the passkey alone; the login cookie answers AuthenticateCookie', async () => {
    await page.goto(`${origin}/Login?ReturnUrl=/Account`);
    expect(await page.getByLabel('Username or email').getAttribute('autocomplete')).toBe('username webauthn');
    await page.getByLabel('Username or email').fill('ada');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${origin}/Account`);
    await expect(page.getByRole('heading', { name: 'Passkeys' }).isVisible()).resolves.toBe(true);
    await page.getByText('You have no passkeys yet.').waitFor();

    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.waitForURL(`${origin}/Account?done=passkey-added`);
    await page.getByText('Your passkey has been added').waitFor();
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]).toMatchObject({ isResidentCredential: true, rpId: HOST });
    const [passkey] = await app.services.passkeys.list(REFERENCE.memberId);
    expect(passkey).toMatchObject({ id: credentials[0]!.credentialId.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_'), lastUsedAt: null });
    await page.getByRole('region', { name: 'Passkeys' }).locator('strong', { hasText: passkey!.name }).waitFor();
    await waitUntil(() => smtp.delivered.length === 1, 'the mail that a passkey was added');
    expect(smtp.delivered[0]!.mail.subject).toBe('A passkey was added to your Example Society account');
    expect(smtp.delivered[0]!.mail.text).toContain(`A passkey named "${passkey!.name}" was added`);

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForLoadState();
    expect(await loginCookieOf(context)).toBeUndefined();

    await signInWithPasskey(origin);
    await page.getByRole('heading', { name: 'Signed in' }).waitFor();
    const cookie = await loginCookieOf(context);
    expect(cookie).toBeDefined();
    expect(await soap11AuthenticateCookie(app.baseUrl, cookie!, HOST)).toBe(REFERENCE.memberId);
    expect((await app.services.passkeys.list(REFERENCE.memberId))[0]?.lastUsedAt).not.toBeNull();
    const [event] = await app.services.events.list({ memberId: REFERENCE.memberId, type: 'signin-succeeded', limit: 1 });
    expect(event).toMatchObject({ outcome: 'passkey' });
  });

  test('under MFA=required, on another instance of the same store, the passkey signs the member in with no code', async () => {
    await page.goto(`${origin}/Logout`);
    await signInWithPasskey(requiredOrigin);
    await page.getByRole('heading', { name: 'Signed in' }).waitFor();
    expect(page.url()).toBe(`${requiredOrigin}/Login`);
    const cookie = await loginCookieOf(context);
    expect(await soap11AuthenticateCookie(required.baseUrl, cookie!, HOST)).toBe(REFERENCE.memberId);
  });

  test('an answer sent again is refused: its challenge was taken', async () => {
    await page.goto(`${origin}/Logout`);
    let sent: { body: string; cookie: string } | undefined;
    await page.route('**/Login/passkey', async (route) => {
      const request = route.request();
      sent = { body: request.postData() ?? '', cookie: (await request.allHeaders()).cookie ?? '' };
      await route.continue();
    });
    await signInWithPasskey(origin);
    await page.unroute('**/Login/passkey');
    await page.getByRole('heading', { name: 'Signed in' }).waitFor();
    expect(sent?.body).toContain('response=');
    const replay = await postForm(origin, '/Login/passkey', Object.fromEntries(new URLSearchParams(sent!.body)), sent!.cookie);
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('took too long, or the page was too old');
    expect(cookieHeader(replay)).not.toContain('.ASPXAUTH=');
  });

  test('an answer made on another origin is refused', async () => {
    const { csrf, cookie, options } = await signInCeremony(origin);
    // The same tab's authenticator: the page is taken to the other origin, which browsers let use the same id.
    await page.goto(`http://${HOST}:${(elsewhere.address() as AddressInfo).port}/`);
    const answer = await page.evaluate(async (json) => {
      const publicKey = PublicKeyCredential.parseRequestOptionsFromJSON(json as PublicKeyCredentialRequestOptionsJSON);
      const credential = (await navigator.credentials.get({ publicKey })) as PublicKeyCredential;
      return JSON.stringify(credential.toJSON());
    }, options);
    expect(JSON.parse(Buffer.from(JSON.parse(answer).response.clientDataJSON, 'base64url').toString()).origin).not.toBe(origin);
    const res = await postForm(origin, '/Login/passkey', { csrf, response: answer }, cookie);
    expect(res.status).toBe(401);
    expect(await res.text()).toContain('This passkey could not be checked');
    expect(cookieHeader(res)).not.toContain('.ASPXAUTH=');
  });

  test('a disabled member\'s passkey is refused, saying so', async () => {
    await page.goto(`${origin}/Logout`);
    await app.services.members.setEnabled(REFERENCE.memberId, false);
    try {
      await signInWithPasskey(origin);
      await page.getByText('This account is disabled').first().waitFor();
      expect(await loginCookieOf(context)).toBeUndefined();
    } finally {
      await app.services.members.setEnabled(REFERENCE.memberId, true);
    }
  });

  test('a passkey is refused where the authenticator says another device type, or another member, than was stored', async () => {
    const [stored] = await app.services.passkeys.list(REFERENCE.memberId);
    for (const changed of [{ deviceType: 'multiDevice' as const, backedUp: true }, { memberId: BOB.id }]) {
      await app.store.deletePasskey(REFERENCE.memberId, stored!.id);
      await app.store.createPasskey({ ...stored!, ...changed });
      try {
        await page.goto(`${origin}/Logout`);
        await signInWithPasskey(origin);
        await page.getByText('This passkey could not be checked').first().waitFor();
        expect(await loginCookieOf(context)).toBeUndefined();
      } finally {
        await app.store.deletePasskey(changed.memberId ?? REFERENCE.memberId, stored!.id);
        await app.store.createPasskey(stored!);
      }
    }
  });

  test('the username field offers the passkey (autofill), which signs in; the device it was copied from is refused, its counter behind', async () => {
    await page.goto(`${origin}/Logout`);
    const copy = await context.newPage();
    try {
      const { cdp: copyCdp, authenticatorId: copyAuthenticator } = await withAuthenticator(copy);
      const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
      await copyCdp.send('WebAuthn.addCredential', { authenticatorId: copyAuthenticator, credential: credentials[0]! });
      await copy.goto(`${origin}/Login`);
      await copy.getByRole('heading', { name: 'Signed in' }).waitFor();
      expect(await soap11AuthenticateCookie(app.baseUrl, (await loginCookieOf(context))!, HOST)).toBe(REFERENCE.memberId);
    } finally {
      await copy.close();
    }
    await page.goto(`${origin}/Logout`);
    await signInWithPasskey(origin);
    await page.getByText('This passkey could not be checked').first().waitFor();
    expect(await loginCookieOf(context)).toBeUndefined();
  });

  test('a removed passkey is refused, saying so', async () => {
    await page.goto(`${origin}/Login?ReturnUrl=/Account&prompt=login`);
    await page.getByLabel('Username or email').fill('ada');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${origin}/Account`);
    const [passkey] = await app.services.passkeys.list(REFERENCE.memberId);
    await page.getByRole('button', { name: `Remove ${passkey!.name}` }).click();
    await page.getByText('That passkey has been removed').waitFor();
    await page.getByText('You have no passkeys yet.').waitFor();
    await page.goto(`${origin}/Logout`);
    await signInWithPasskey(origin);
    await page.getByText('This passkey is not known here').first().waitFor();
    expect(await loginCookieOf(context)).toBeUndefined();
  });

  test('a passkey never added here is refused', async () => {
    const stranger = await browser.newContext();
    try {
      const strangerPage = await stranger.newPage();
      await withoutAutofill(strangerPage);
      const { cdp: strangerCdp, authenticatorId: strangerAuthenticator } = await withAuthenticator(strangerPage);
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      await strangerCdp.send('WebAuthn.addCredential', {
        authenticatorId: strangerAuthenticator,
        credential: {
          credentialId: randomBytes(16).toString('base64'),
          isResidentCredential: true,
          rpId: HOST,
          privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
          userHandle: Buffer.from(REFERENCE.memberId).toString('base64'),
          signCount: 0,
        },
      });
      await strangerPage.goto(`${origin}/Login`);
      await strangerPage.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await strangerPage.getByText('This passkey is not known here').first().waitFor();
      expect((await stranger.cookies()).find((c) => c.name === '.ASPXAUTH')).toBeUndefined();
    } finally {
      await stranger.close();
    }
  });

  test('a browser without WebAuthn sees the password form alone, and no passkey button', async () => {
    const plain = await browser.newContext();
    try {
      const plainPage = await plain.newPage();
      await plainPage.addInitScript(() => {
        delete (window as { PublicKeyCredential?: unknown }).PublicKeyCredential;
      });
      await plainPage.goto(`${origin}/Login`);
      await plainPage.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
      expect(await plainPage.getByRole('button', { name: 'Sign in with a passkey' }).count()).toBe(0);
    } finally {
      await plain.close();
    }
  });
}

describeWithBrowser('passkeys in Chromium, on SQLite', () => passkeysInBrowser('sqlite'));
describeWithPostgres('passkeys on PostgreSQL', () => describeWithBrowser('in Chromium', () => passkeysInBrowser('postgres')));
