/**
 * The members' mail, sent through a real SMTP server on 127.0.0.1 when the account pages and the sign-in's
 * second step change an account: the password changed, two-step verification turned on and off, a recovery
 * code used. Each says when, from which address and device; a member without an email gets nothing, nor does
 * anyone without SMTP_URL; a server that is down gets the mail once it is back; mail_sent_total counts it;
 * and the log holds no password, code or SMTP credential.
 */
import request from 'supertest';
import type { Environment } from '../../src/config/config.js';
import { totpCode } from '../helpers/authenticator-app.js';
import { PageClient, recoveryCodesOf, secretOf, signedInVisitor } from '../helpers/page-client.js';
import { REFERENCE } from '../helpers/reference-data.js';
import { STEP } from '../helpers/second-factor.js';
import { startSmtpServer, type Delivered, type TestSmtpServer } from '../helpers/smtp-server.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { waitUntil } from '../helpers/wait.js';

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a new and longer passphrase';
const SMTP_USER = 'mailer';
const SMTP_PASSWORD = 'smtp-Secret-never-logged';
/** The service's clock: the mails say when, in UTC. */
const START = Date.UTC(2025, 5, 3, 14, 5);
/** What the pages make of PageClient's User-Agent (Firefox on X11 Linux). */
const DEVICE = 'Firefox on Linux';

let smtp: TestSmtpServer;
let app: TestApp | undefined;
let now = START;

beforeEach(async () => {
  smtp = await startSmtpServer({ credentials: { user: SMTP_USER, pass: SMTP_PASSWORD } });
});
afterEach(async () => {
  await app?.close();
  app = undefined;
  await smtp.stop();
});

const mailEnv = (): Environment => ({
  SMTP_URL: `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${smtp.port}`,
  MAIL_FROM: 'Example Society <no-reply@example.org>',
  MAIL_REPLY_TO: 'help@example.org',
  ORGANIZATION_NAME: 'Example Society',
});

async function start(env: Environment = mailEnv()): Promise<TestApp> {
  now = START;
  app = await startTestApp({ env: { COOKIE_DOMAIN: '.example.org', LOG_LEVEL: 'debug', ...env }, clock: () => now });
  await app.services.members.setPassword(REFERENCE.memberId, PASSWORD);
  return app;
}

const running = (): TestApp => {
  if (!app) throw new Error('no app');
  return app;
};

const signedIn = (login = 'ada') => signedInVisitor(running().baseUrl, login, PASSWORD);

/**
 * The mail number `count` (1 for the first), once the server has taken it and the service has logged it sent (the
 * server has the mail before the service reads its answer).
 */
async function delivered(count: number): Promise<Delivered> {
  const sent = () => mailLines().filter((line) => line.message === 'mail sent').length;
  await waitUntil(() => smtp.delivered.length >= count && sent() >= count, `mail number ${count} to arrive and be logged sent`, { timeoutMs: 10_000 });
  const mail = smtp.delivered[count - 1];
  if (!mail) throw new Error('no mail');
  return mail;
}

const mailLines = () => running().logLines.filter((line) => String(line.message).startsWith('mail'));

/** The log holds none of the secrets a test used. */
function expectNoSecretsLogged(...secrets: string[]): void {
  const log = JSON.stringify(running().logLines);
  for (const secret of [PASSWORD, NEW_PASSWORD, SMTP_PASSWORD, ...secrets]) expect(log).not.toContain(secret);
}

/** The member's own origin, as the mails show it. */
function expectOrigin(mail: Delivered): void {
  expect(mail.mail.text).toContain('- When: 3 June 2025');
  expect(mail.mail.text).toContain('14:05 UTC');
  expect(mail.mail.text).toContain('- From the address: 127.0.0.1');
  expect(mail.mail.text).toContain(`- Device: ${DEVICE}`);
  expect(mail.mail.html).toContain(DEVICE);
}

describe('on the account page', () => {
  it('a password change is mailed to the member, with when, the address and the device; counted on /metrics; nothing secret logged', async () => {
    await start();
    const visitor = await signedIn();
    const changed = await visitor.act('/Account/password', { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(changed.status).toBe(303);

    const mail = await delivered(1);
    expect(mail.envelope.to).toEqual(['ada@example.org']);
    expect(mail.user).toBe(SMTP_USER);
    expect(mail.mail.subject).toBe('Your Example Society password was changed');
    expect(mail.mail.from?.text).toBe('"Example Society" <no-reply@example.org>');
    expect(mail.mail.replyTo?.text).toBe('help@example.org');
    expect(mail.mail.text).toContain('Hello Ada,');
    expect(mail.mail.text).toContain('The password of your Example Society account was changed on the account page:');
    expect(mail.mail.text).toContain('If this was not you');
    expectOrigin(mail);

    expect(mailLines()).toEqual([expect.objectContaining({ message: 'mail sent', kind: 'password_changed', to: 'a…@example.org' })]);
    expectNoSecretsLogged();
    const metrics = await request(running().baseUrl).get('/metrics');
    expect(metrics.text).toContain('mail_sent_total{kind="password_changed",result="sent"} 1');
    expect(metrics.text).toContain('mail_sent_total{kind="recovery",result="sent"} 0');
    expect(metrics.text).toContain('mail_sent_total{kind="two_step_enabled",result="retried"} 0');
  });

  it('turning two-step verification on and then off mails each, from where it was done', async () => {
    await start();
    const visitor = await signedIn();
    expect((await visitor.act('/Account/two-step', {})).status).toBe(303);
    const setup = await visitor.get('/Account/two-step');
    const secret = secretOf(setup.text);
    const confirmed = await visitor.submit(setup, { code: totpCode(secret, now) });
    expect(confirmed.status).toBe(200);
    const codes = recoveryCodesOf(confirmed.text);

    const on = await delivered(1);
    expect(on.mail.subject).toBe('Two-step verification was turned on for your Example Society account');
    expectOrigin(on);

    now += STEP;
    const off = await visitor.act('/Account/two-step/off', { password: PASSWORD, code: totpCode(secret, now) });
    expect(off.headers.location).toBe('/Account?done=two-step-off');
    const offMail = await delivered(2);
    expect(offMail.mail.subject).toBe('Two-step verification was turned off for your Example Society account');
    expectOrigin(offMail);
    expect(smtp.delivered).toHaveLength(2);
    expectNoSecretsLogged(secret, ...codes);
  });

  it('a member without an email gets no mail, and the page works as ever', async () => {
    await start();
    await running().services.members.add({ id: 'member-8', username: 'carl', firstName: 'Carl' });
    await running().services.members.setPassword('member-8', PASSWORD);
    const carl = await signedIn('carl');
    expect((await carl.act('/Account/password', { currentPassword: PASSWORD, newPassword: NEW_PASSWORD })).status).toBe(303);
    // Ada's change after Carl's: the queue sends in order, so whatever Carl's had become is over by then.
    const ada = await signedIn();
    expect((await ada.act('/Account/password', { currentPassword: PASSWORD, newPassword: NEW_PASSWORD })).status).toBe(303);
    expect((await delivered(1)).envelope.to).toEqual(['ada@example.org']);
    expect(smtp.attempts).toBe(1);
    expect(mailLines()).toHaveLength(1);
  });
});

it('a recovery code used at the sign-in second step is mailed, with the codes left', async () => {
  await start();
  const { secret } = await running().services.secondFactor.beginSetup(REFERENCE.memberId, 'ada@example.org');
  // Set up through the service without a change: nothing is mailed for it.
  const codes = await running().services.secondFactor.confirmSetup(REFERENCE.memberId, totpCode(secret, now));
  const [code = ''] = codes ?? [];
  now += STEP;
  const visitor = new PageClient(running().baseUrl);
  const signedInPage = await visitor.submit(await visitor.signIn('ada', PASSWORD), { recovery: code });
  expect(signedInPage.status).toBe(303);

  const mail = await delivered(1);
  expect(mail.mail.subject).toBe('A recovery code was used to sign in to your Example Society account');
  expect(mail.mail.text).toContain('You have 9 recovery codes left.');
  expectOrigin(mail);
  expect(smtp.delivered).toHaveLength(1);
  expectNoSecretsLogged(secret, code);
});

it('a factor set up at sign-in under MFA=required is mailed as turned on', async () => {
  await start({ ...mailEnv(), MFA: 'required' });
  const visitor = new PageClient(running().baseUrl);
  const setup = await visitor.signIn('ada', PASSWORD);
  expect(setup.status).toBe(200);
  const confirmed = await visitor.submit(setup, { code: totpCode(secretOf(setup.text), now) });
  expect(confirmed.text).toContain('<h1>Save your recovery codes</h1>');
  const mail = await delivered(1);
  expect(mail.mail.subject).toBe('Two-step verification was turned on for your Example Society account');
  expectOrigin(mail);
});

it('without SMTP_URL no mail is sent, and the pages change the account as ever', async () => {
  await start({});
  const visitor = await signedIn();
  expect((await visitor.act('/Account/password', { currentPassword: PASSWORD, newPassword: NEW_PASSWORD })).headers.location).toBe('/Account?done=password-changed');
  expect(mailLines()).toEqual([]);
  expect(smtp.attempts).toBe(0);
  const metrics = await request(running().baseUrl).get('/metrics');
  expect(metrics.text).toContain('mail_sent_total{kind="password_changed",result="sent"} 0');
});

it('a mail server that is down gets the mail once it is back; the failure is logged without the address or a secret', async () => {
  await start();
  await smtp.stop();
  const visitor = await signedIn();
  expect((await visitor.act('/Account/password', { currentPassword: PASSWORD, newPassword: NEW_PASSWORD })).status).toBe(303);
  await waitUntil(() => mailLines().some((line) => line.message === 'mail not delivered, will retry'), 'a failed attempt');
  expect(mailLines()[0]).toMatchObject({ level: 'warn', kind: 'password_changed', attempt: 1, to: 'a…@example.org', cause: 'ECONNREFUSED' });

  await smtp.start();
  // The first retry comes 2.5 to 5 s after the failure (DEFAULT_RETRY, with its jitter).
  const mail = await delivered(1);
  expect(mail.mail.subject).toBe('Your Example Society password was changed');
  expect(mailLines().at(-1)).toMatchObject({ message: 'mail sent', kind: 'password_changed', attempt: 2 });
  const metrics = await request(running().baseUrl).get('/metrics');
  expect(metrics.text).toContain('mail_sent_total{kind="password_changed",result="retried"} 1');
  expect(metrics.text).toContain('mail_sent_total{kind="password_changed",result="sent"} 1');
  expect(JSON.stringify(running().logLines)).not.toContain('ada@example.org');
  expectNoSecretsLogged();
});
