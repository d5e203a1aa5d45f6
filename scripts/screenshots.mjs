#!/usr/bin/env node
/**
 * Saves the screenshots the docs show (docs/*.png), run on purpose with `npm run screenshots`, which builds first;
 * the tests save none. The built service runs on a store of its own with a clock fixed at SHOT_AT, so that the
 * pictures change only when the pages do: the account page's sessions show that date. Mail is written to the log
 * (MAIL_LOG), where the recovery link is read from. The browser is Debian's Chromium (CHROMIUM_PATH to point
 * elsewhere), through playwright-core.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TOTP, URI } from 'otpauth';
import { chromium } from 'playwright-core';
import { composeInstance } from '../dist/compose.js';
import { loadConfig } from '../dist/config/config.js';
import { startServer, stopServer } from '../dist/server.js';
import { totpUri } from '../dist/service/totp.js';
import { openStore } from '../dist/store/open.js';

const DOCS = new URL('../docs/', import.meta.url);
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOT_AT = Date.UTC(2026, 10, 24, 14, 5);
const STEP_MS = 30_000;
const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a brand new passphrase';
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 375, height: 740 };
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

/** The code an authenticator app shows, from the set-up's otpauth:// URI (the service exports no code maker). */
function totpCode(secret, nowMs) {
  const app = URI.parse(totpUri(secret, 'issuer', 'member'));
  return TOTP.generate({ secret: app.secret, algorithm: app.algorithm, digits: app.digits, period: app.period, timestamp: nowMs });
}

/** The service's clock: SHOT_AT, moved on a TOTP step for each code used (a code works once). */
let ahead = 0;
const clock = () => SHOT_AT + ahead;
const nextCode = (secret) => {
  ahead += STEP_MS;
  return totpCode(secret, clock());
};

/** The service's log lines, parsed: MAIL_LOG writes each mail there. */
const logLines = [];
const logStream = {
  write(text) {
    for (const line of text.split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
  },
};

const dataDir = await mkdtemp(join(tmpdir(), 'asmx-screenshots-'));
const config = loadConfig({ DATA_DIR: dataDir, ORGANIZATION_NAME: 'Example Society', MAIL_LOG: 'true', LOG_FORMAT: 'json', PORT: '0' });
const store = await openStore({ dataDir });
const instance = await composeInstance({ config, store, secretKey: randomBytes(32), logStream, clock });
const server = instance.createServer();
const origin = `http://localhost:${await startServer(server, { host: '127.0.0.1', port: 0 })}`;
const { members } = instance.services;
await members.add({ id: '10042', username: 'ada', email: 'ada@example.org', firstName: 'Ada', lastName: 'Lovelace' });
await members.setPassword('10042', PASSWORD);
await members.add({ id: '10043', username: 'bob', email: 'bob@example.org', firstName: 'Bob', lastName: 'Baker' });
await members.setPassword('10043', PASSWORD);

const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
const shot = (page, name, fullPage = true) => page.screenshot({ path: new URL(`${name}.png`, DOCS).pathname, fullPage });

async function newPage(viewport = DESKTOP, userAgent = undefined) {
  const context = await browser.newContext({ viewport, ...(userAgent ? { userAgent } : {}) });
  return context.newPage();
}

async function signIn(page, login, password) {
  await page.goto(`${origin}/Login`);
  await page.getByLabel('Username or email').fill(login);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForLoadState();
}

try {
  // The sign-in page.
  const page = await newPage();
  await page.goto(`${origin}/Login`);
  await shot(page, 'signin-desktop', false);
  await page.setViewportSize(PHONE);
  await page.reload();
  await shot(page, 'signin-phone');

  // Recovery, for ada at a desktop's width and bob at a phone's: the request, the link's page, the sign-in page after it.
  for (const [name, viewport, login] of [['desktop', DESKTOP, 'ada'], ['phone', { width: 390, height: 780 }, 'bob']]) {
    const visitor = await newPage(viewport);
    await visitor.goto(`${origin}/Login?ReturnUrl=%2FAccount`);
    await visitor.getByRole('link', { name: 'Forgot your password?' }).click();
    await visitor.getByLabel('Username or email').fill(login);
    await shot(visitor, `recovery-request-${name}`);
    const mails = logLines.filter((line) => line.kind === 'recovery').length;
    await visitor.getByRole('button', { name: 'Send me a link' }).click();
    await visitor.getByRole('heading', { name: 'Check your email' }).waitFor();
    const mail = logLines.filter((line) => line.kind === 'recovery')[mails];
    const link = /^(http:\/\/\S+\/Login\/reset\?\S+)$/m.exec(mail?.text ?? '')?.[1];
    if (!link) throw new Error('no recovery mail in the log');
    await visitor.goto(link.replace(/^http:\/\/[^/]+/, origin));
    await visitor.getByLabel('New password').fill(NEW_PASSWORD);
    await shot(visitor, `recovery-new-password-${name}`);
    await visitor.getByRole('button', { name: 'Set new password' }).click();
    await visitor.getByText('Your password has been changed').waitFor();
    await shot(visitor, `recovery-done-${name}`);
    await visitor.context().close();
  }

  await members.setPassword('10042', PASSWORD);

  // Two-step verification for ada, set up on the account page with the key shown as text.
  const setup = await newPage();
  await signIn(setup, 'ada', PASSWORD);
  await setup.goto(`${origin}/Account`);
  await setup.getByRole('button', { name: 'Set up two-step verification' }).click();
  const secret = await setup.getByLabel('The key without spaces, to copy').inputValue();
  await setup.getByLabel('Code from your authenticator app').fill(nextCode(secret));
  await setup.getByRole('button', { name: 'Turn on two-step verification' }).click();
  await setup.getByRole('link', { name: /I have saved my codes/ }).click();
  await setup.context().close();
  await instance.services.sessions.revokeAllOf('10042');

  // The code step.
  const code = await newPage();
  await signIn(code, 'ada', PASSWORD);
  await code.getByRole('heading', { name: 'Enter your code' }).waitFor();
  await shot(code, 'code-step-desktop', false);
  await code.setViewportSize(PHONE);
  await shot(code, 'code-step-phone');
  await code.context().close();

  // The account page, with two sessions: this browser and a phone's.
  for (const userAgent of [IPHONE, undefined]) {
    const visit = await newPage(DESKTOP, userAgent);
    await signIn(visit, 'ada', PASSWORD);
    await visit.getByLabel('Code from your authenticator app').fill(nextCode(secret));
    await visit.getByRole('button', { name: 'Continue' }).click();
    await visit.getByRole('heading', { name: 'You are signed in' }).waitFor();
    if (userAgent) continue;
    await visit.goto(`${origin}/Account`);
    await visit.getByRole('heading', { name: 'Your account' }).waitFor();
    await shot(visit, 'account-desktop');
    await visit.setViewportSize(PHONE);
    await visit.reload();
    await shot(visit, 'account-phone');
  }

  // Passkeys (docs/passkeys.md): ada adds one on the account page, through a virtual authenticator of the browser's
  // own (a device that verifies its user), and the page lists it; the section again at a phone's width.
  const passkey = await newPage();
  await signIn(passkey, 'ada', PASSWORD);
  await passkey.getByLabel('Code from your authenticator app').fill(nextCode(secret));
  await passkey.getByRole('button', { name: 'Continue' }).click();
  await passkey.getByRole('heading', { name: 'You are signed in' }).waitFor();
  const cdp = await passkey.context().newCDPSession(passkey);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  await passkey.goto(`${origin}/Account`);
  await passkey.getByRole('button', { name: 'Add a passkey' }).click();
  await passkey.getByText('Your passkey has been added').waitFor();
  await shot(passkey, 'passkey-added-desktop');
  await passkey.setViewportSize(PHONE);
  await passkey.getByRole('region', { name: 'Passkeys' }).screenshot({ path: new URL('passkey-section-phone.png', DOCS).pathname });
  await passkey.context().close();

  // The staff console (docs/staff.md): ada, staff, finds bob by email after bob signed in on his phone and failed
  // to at a desktop, and opens his page.
  await instance.services.staff.grant('10042', 'support');
  const bobsPhone = await newPage(PHONE, IPHONE);
  await signIn(bobsPhone, 'bob', NEW_PASSWORD);
  await bobsPhone.context().close();
  const failed = await newPage();
  await signIn(failed, 'bob@example.org', 'not the password');
  await failed.context().close();
  const staff = await newPage({ width: 390, height: 780 });
  await staff.goto(`${origin}/Admin`);
  await staff.getByLabel('Username or email').fill('ada');
  await staff.getByLabel('Password').fill(PASSWORD);
  await staff.getByRole('button', { name: 'Sign in', exact: true }).click();
  await staff.getByLabel('Code from your authenticator app').fill(nextCode(secret));
  await staff.getByRole('button', { name: 'Continue' }).click();
  await staff.getByLabel('Member id, username, email or name').fill('bob@example.org');
  await staff.keyboard.press('Enter');
  await staff.getByRole('heading', { name: '1 member found' }).waitFor();
  await shot(staff, 'staff-search-phone');
  await staff.getByRole('link', { name: 'Bob Baker' }).click();
  await staff.getByRole('heading', { name: 'Bob Baker', level: 1 }).waitFor();
  await staff.setViewportSize(DESKTOP);
  await shot(staff, 'staff-member-desktop');
  // Made admin, ada adds an OpenID client with a redirect URI mistyped: the form says so at the field.
  await instance.services.staff.grant('10042', 'admin');
  await staff.setViewportSize({ width: 390, height: 780 });
  await staff.goto(`${origin}/Admin/manage/add?kind=oidc-client`);
  await staff.getByLabel('Name', { exact: true }).fill('Learning portal');
  await staff.getByLabel('Redirect URIs', { exact: true }).fill('https://learn.example.org/callback\nlearn.example.org/oidc');
  await staff.getByRole('button', { name: 'Continue' }).click();
  await staff.getByRole('heading', { name: 'There is a problem' }).waitFor();
  await shot(staff, 'staff-add-client-phone');
  console.log('saved the screenshots in docs/');
} finally {
  await browser.close();
  await stopServer(server, { timeoutMs: 0 });
  await instance.mailer?.stop(0);
  await store.close();
  await rm(dataDir, { recursive: true, force: true });
}
