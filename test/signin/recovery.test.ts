/**
 * Password recovery by email over HTTP, with the mail sent through a real SMTP server on 127.0.0.1 and the link
 * followed from the delivered message: the same answer for known, unknown and disabled members (and no mail for
 * the latter); the link's expiry, single use, and a newer link voiding the older; every session ended; the
 * throttle; the CSRF, host and header rules; the return address kept; the second factor still asked; and logs
 * that hold neither the token, the link nor the password.
 */
import type { Environment } from '../../src/config/config.js';
import { totpCode } from '../helpers/authenticator-app.js';
import { PAGE_ENV, PageClient, type Page } from '../helpers/page-client.js';
import { BOB, REFERENCE } from '../helpers/reference-data.js';
import { startSmtpServer, type Delivered, type TestSmtpServer } from '../helpers/smtp-server.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { waitUntil } from '../helpers/wait.js';

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a brand new passphrase';
const TTL_MS = 30 * 60_000;

let smtp: TestSmtpServer;
let app: TestApp;
let now = 0;

async function start(env: Environment = {}): Promise<void> {
  now = Date.now();
  smtp = await startSmtpServer();
  const mail = { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: 'Example Society <no-reply@example.org>' };
  app = await startTestApp({ env: { ...PAGE_ENV, ...mail, ...env }, clock: () => now });
  await app.services.members.setPassword(REFERENCE.memberId, PASSWORD);
  await app.services.members.add(BOB);
  await app.services.members.setEnabled(BOB.id, false);
  await app.services.members.add({ id: 'member-8', username: 'carol' });
}
afterEach(async () => {
  await app.close();
  await smtp.stop();
});

/** Mail to this address, in the order delivered. */
const mailTo = (address: string) => smtp.delivered.filter((delivered) => delivered.envelope.to.includes(address));

/** Waits for the `count`th mail to this address and returns it. */
async function nthMail(address: string, count: number): Promise<Delivered> {
  await waitUntil(() => mailTo(address).length >= count, `mail ${count} to ${address}`);
  return mailTo(address)[count - 1] as Delivered;
}

/** The recovery link of a delivered mail, as its text part has it. */
function linkOf(delivered: Delivered): string {
  const link = /^(http:\/\/\S+\/Login\/reset\?\S+)$/m.exec(delivered.mail.text ?? '')?.[1];
  if (!link) throw new Error(`no link in the mail:\n${delivered.mail.text}`);
  return link;
}

/** The link's path and query, to open on the test app. */
const pathOf = (link: string) => {
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
};

/** Asks for a link from the recovery page, as a visitor does from the sign-in page's link. */
async function ask(login: string, visitor = new PageClient(app.baseUrl), query = ''): Promise<Page> {
  const form = await visitor.get(`/Login/forgot${query}`);
  expect(form.status).toBe(200);
  return visitor.submit(form, { login });
}

/** Asks for a link for ada and returns it, from the `count`th mail she gets. */
async function linkFor(count = 1, query = ''): Promise<string> {
  const res = await ask('ada', undefined, query);
  expect(res.status).toBe(303);
  return linkOf(await nthMail('ada@example.org', count));
}

/**
 * Opens the link as a browser does: its answer keeps the token in a cookie and redirects to the page without it,
 * sending no Referer; returns the new-password page (or the refusal).
 */
async function open(link: string, visitor = new PageClient(app.baseUrl)): Promise<Page> {
  const res = await visitor.get(pathOf(link));
  expect(res.headers['referrer-policy']).toBe('no-referrer');
  if (res.status !== 303) return res;
  expect(res.headers.location).not.toContain('token');
  return visitor.get(res.headers.location ?? '');
}

/** Opens the link and sends the new password from its page. */
async function reset(link: string, password = NEW_PASSWORD, visitor = new PageClient(app.baseUrl)): Promise<Page> {
  const page = await open(link, visitor);
  expect(page.status).toBe(200);
  return visitor.submit(page, { newPassword: password });
}

/** The answer's parts that do not change from one request to the next (no nonce, no CSRF proof). */
function answerOf(res: Page) {
  return { status: res.status, location: res.headers.location, body: res.text };
}

const signsIn = async (password: string) => (await new PageClient(app.baseUrl).signIn('ada', password)).status === 303;

describe('the way in', () => {
  it('is linked from the sign-in page with the return address kept, and the link goes', async () => {
    await start();
    const page = await new PageClient(app.baseUrl).get('/Login?ReturnPage=%2FAccount');
    expect(page.text).toContain('<a href="&#x2F;Login&#x2F;forgot?ReturnUrl&#x3D;%2FAccount">Forgot your password?</a>');
    const form = await new PageClient(app.baseUrl).get('/Login/forgot?ReturnUrl=%2FAccount');
    expect(form.text).toContain('<h1>Reset your password</h1>');
    expect(form.text).toContain('<input type="hidden" name="ReturnUrl" value="&#x2F;Account">');
  });

  it('is not there without SMTP_URL: no link, and the pages are unknown ones', async () => {
    await start({ SMTP_URL: '', MAIL_FROM: '' });
    expect((await new PageClient(app.baseUrl).get('/Login')).text).not.toContain('Forgot your password?');
    expect((await new PageClient(app.baseUrl).get('/Login/forgot')).status).toBe(404);
    expect((await new PageClient(app.baseUrl).get('/Login/reset?token=x')).status).toBe(404);
  });
});

describe('whom to ask (SUPPORT_URL, SUPPORT_EMAIL)', () => {
  const SUPPORT = { SUPPORT_URL: 'https://help.example.org/members?topic=password', SUPPORT_EMAIL: 'help@example.org' };
  const links = '<a href="https:&#x2F;&#x2F;help.example.org&#x2F;members?topic&#x3D;password">help.example.org&#x2F;members?topic&#x3D;password</a> or <a href="mailto:help@example.org">help@example.org</a>';

  it('without a mail server, the sign-in page tells a member who forgot the password whom to ask', async () => {
    await start({ SMTP_URL: '', MAIL_FROM: '', ...SUPPORT });
    expect((await new PageClient(app.baseUrl).get('/Login')).text).toContain(`<p class="after">Forgot your password? Contact ${links}.</p>`);
    await app.close();
    await smtp.stop();
    await start({ SMTP_URL: '', MAIL_FROM: '', SUPPORT_EMAIL: 'help@example.org' });
    expect((await new PageClient(app.baseUrl).get('/Login')).text).toContain('<p class="after">Forgot your password? Contact <a href="mailto:help@example.org">help@example.org</a>.</p>');
  });

  it('with a mail server, the sign-in page links to recovery, and its pages name whom to ask when no mail comes', async () => {
    await start(SUPPORT);
    const login = await new PageClient(app.baseUrl).get('/Login');
    expect(login.text).toContain('Forgot your password?</a>');
    expect(login.text).not.toContain('Contact');
    expect((await new PageClient(app.baseUrl).get('/Login/forgot')).text).toContain(`<p class="after">Cannot read mail at your account's address? Contact ${links}.</p>`);
    const sent = await new PageClient(app.baseUrl).get((await ask('ada')).headers.location ?? '');
    expect(sent.text).toContain(`<p>Still no mail? Contact ${links}.</p>`);
  });

  it('without either, no page names anyone', async () => {
    await start({ SMTP_URL: '', MAIL_FROM: '' });
    expect((await new PageClient(app.baseUrl).get('/Login')).text).not.toContain('Contact');
    await app.close();
    await smtp.stop();
    await start();
    expect((await new PageClient(app.baseUrl).get('/Login/forgot')).text).not.toContain('Contact');
    expect((await new PageClient(app.baseUrl).get((await ask('ada')).headers.location ?? '')).text).not.toContain('Contact');
  });
});

describe('asking for a link', () => {
  it('answers the same for a known, an unknown, a disabled and a mail-less member, and mails the known one only', async () => {
    await start();
    const answers = [];
    for (const login of ['nobody@example.org', 'bob', 'carol', 'ADA@example.org']) {
      const res = await ask(login);
      const sent = await new PageClient(app.baseUrl).get(res.headers.location ?? '');
      answers.push({ ...answerOf(res), sent: sent.text.replace(/nonce="[^"]+"/, '') });
    }
    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
    expect(answers[0]).toMatchObject({ status: 303, location: '/Login/forgot/sent' });
    expect(answers[0]?.sent).toContain('If an account matches what you entered, we have sent a link to its email address. The link works for 30 minutes.');
    const delivered = await nthMail('ada@example.org', 1);
    expect(delivered.mail.subject).toBe('Reset your password');
    expect(smtp.delivered).toHaveLength(1);
    expect(smtp.attempts).toBe(1);
    expect(app.logLines.filter((line) => line.message === 'recovery').map((line) => line.outcome)).toEqual(['requested', 'requested', 'requested', 'requested']);
  });

  it('names the device in the mail by a recognised browser and system only: no text of the request reaches it (device, address, return address)', async () => {
    await start({ TRUST_PROXY: 'true' });
    const lure = 'URGENT: not you? Cancel at https://evil.example/x';
    const attacker = new PageClient(app.baseUrl, lure);
    const form = await attacker.get(`/Login/forgot?ReturnUrl=${encodeURIComponent('https://evil.example/z')}`);
    expect((await attacker.submit(form, { login: 'ada' }, { headers: { 'X-Forwarded-For': `Cancel at https://evil.example/y` } })).status).toBe(303);
    const lured = await nthMail('ada@example.org', 1);
    for (const part of [lured.mail.text, lured.mail.html]) expect(part).not.toContain('evil.example');
    expect(lured.mail.text).not.toContain('- Device:');
    expect(lured.mail.text).not.toContain('- From the address:');

    const iphone = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
    expect((await ask('ada', new PageClient(app.baseUrl, iphone))).status).toBe(303);
    const mail = await nthMail('ada@example.org', 2);
    expect(mail.mail.text).toContain('- Device: Safari on iPhone');
    expect(mail.mail.text).toContain('- From the address: 127.0.0.1');
  });

  it('asks for the account when the field is empty', async () => {
    await start();
    const res = await ask('  ');
    expect(res.status).toBe(400);
    expect(res.text).toContain('Enter your username or email address');
  });

  it('is throttled per account as typed, known or not, without locking the member\'s sign-in', async () => {
    await start();
    for (let i = 0; i < 3; i += 1) expect((await ask('ada')).status).toBe(303);
    const locked = await ask('ada');
    expect(locked.status).toBe(429);
    expect(locked.headers['retry-after']).toBe('900');
    expect(locked.text).toContain('Too many requests for a link. Try again in 15 minutes.');
    for (let i = 0; i < 3; i += 1) expect((await ask('nobody')).status).toBe(303);
    expect((await ask('nobody')).status).toBe(429);
    await nthMail('ada@example.org', 3);
    expect(await signsIn(PASSWORD)).toBe(true);
    now += 15 * 60_000;
    expect((await ask('ada')).status).toBe(303);
  });

  it('is throttled per client address too', async () => {
    await start({ SIGNIN_MAX_FAILURES_PER_ADDRESS: '4' });
    for (const login of ['a', 'b', 'c', 'd']) expect((await ask(login)).status).toBe(303);
    expect((await ask('ada')).status).toBe(429);
  });
});

describe('the link', () => {
  it('opens a page to choose a new password, which ends every session; the member then signs in with it', async () => {
    await start();
    const before = new PageClient(app.baseUrl);
    expect((await before.signIn('ada', PASSWORD)).status).toBe(303);
    const link = await linkFor();
    const visitor = new PageClient(app.baseUrl);
    const page = await open(link, visitor);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain(new URL(link).searchParams.get('token'));
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.text).toContain('<h1>Choose a new password</h1>');
    const done = await visitor.submit(page, { newPassword: NEW_PASSWORD });
    expect(done.status).toBe(303);
    expect(done.headers.location).toBe('/Login?done=password-reset');
    expect((await visitor.get(done.headers.location ?? '')).text).toContain('Your password has been changed, and you have been signed out everywhere.');
    expect((await app.services.sessions.checkCookie(before.loginCookie ?? '', '.example.org')).ok).toBe(false);
    expect((await app.services.sessions.checkToken(REFERENCE.token)).ok).toBe(false);
    expect(await signsIn(PASSWORD)).toBe(false);
    expect(await signsIn(NEW_PASSWORD)).toBe(true);
    const notice = await nthMail('ada@example.org', 2);
    expect(notice.mail.subject).toBe('Your password was changed');
    expect(notice.mail.text).toContain('was reset with a recovery link sent to this address');
  });

  it('works once', async () => {
    await start();
    const link = await linkFor();
    const visitor = new PageClient(app.baseUrl);
    const page = await open(link, visitor);
    expect((await visitor.submit(page, { newPassword: NEW_PASSWORD })).status).toBe(303);
    const again = await open(link, new PageClient(app.baseUrl));
    expect(again.status).toBe(400);
    expect(again.text).toContain('This link no longer works');
    // The form of the first visit, sent again, changes nothing either, with the token given back as it was kept.
    visitor.cookies.set('recovery-token', new URL(link).searchParams.get('token') ?? '');
    const resent = await visitor.submit(page, { newPassword: 'yet another passphrase' });
    expect(resent.status).toBe(400);
    expect(await signsIn(NEW_PASSWORD)).toBe(true);
  });

  it('works for RECOVERY_TOKEN_TTL and not a moment longer', async () => {
    await start();
    const link = await linkFor();
    now += TTL_MS - 1;
    const visitor = new PageClient(app.baseUrl);
    const page = await open(link, visitor);
    expect(page.status).toBe(200);
    now += 1;
    expect((await open(link)).status).toBe(400);
    expect((await visitor.submit(page, { newPassword: NEW_PASSWORD })).status).toBe(400);
    expect(await signsIn(PASSWORD)).toBe(true);
  });

  it('stops working when a newer one is sent', async () => {
    await start();
    const older = await linkFor(1);
    const newer = await linkFor(2);
    expect(newer).not.toBe(older);
    expect((await open(older)).status).toBe(400);
    expect((await reset(newer)).status).toBe(303);
  });

  it('keeps working after a password the rules refuse, and says the rule', async () => {
    await start();
    const link = await linkFor();
    const visitor = new PageClient(app.baseUrl);
    const short = await visitor.submit(await open(link, visitor), { newPassword: 'short' });
    expect(short.status).toBe(400);
    expect(short.text).toContain('Your new password must have at least 8 characters');
    const empty = await visitor.submit(short, { newPassword: '' });
    expect(empty.text).toContain('Enter a new password');
    expect((await visitor.submit(empty, { newPassword: NEW_PASSWORD })).status).toBe(303);
  });

  it('keeps the return address from the sign-in page to the sign-in page, through the mail', async () => {
    await start();
    const link = await linkFor(1, '?ReturnUrl=%2FAccount');
    expect(new URL(link).searchParams.get('ReturnUrl')).toBe('/Account');
    const visitor = new PageClient(app.baseUrl);
    const done = await reset(link, NEW_PASSWORD, visitor);
    expect(done.headers.location).toBe('/Login?ReturnUrl=%2FAccount&done=password-reset');
    const signIn = await visitor.get(done.headers.location ?? '');
    expect((await visitor.submit(signIn, { login: 'ada', password: NEW_PASSWORD })).headers.location).toBe('/Account');
  });

  it('leads to the second factor at the next sign-in, as usual', async () => {
    await start();
    const { secret } = await app.services.secondFactor.beginSetup(REFERENCE.memberId, 'ada@example.org');
    await app.services.secondFactor.confirmSetup(REFERENCE.memberId, totpCode(secret, now));
    expect((await reset(await linkFor())).status).toBe(303);
    const page = await new PageClient(app.baseUrl).signIn('ada', NEW_PASSWORD);
    expect(page.text).toContain('<h1>Enter your code</h1>');
  });

  it('is refused for a token that was never sent, and for a member disabled since', async () => {
    await start();
    expect((await open(`${app.baseUrl}/Login/reset?token=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`)).status).toBe(400);
    expect((await new PageClient(app.baseUrl).get('/Login/reset')).status).toBe(400);
    const link = await linkFor();
    const visitor = new PageClient(app.baseUrl);
    const page = await open(link, visitor);
    await app.services.members.setEnabled(REFERENCE.memberId, false);
    expect((await open(link)).status).toBe(400);
    expect((await visitor.submit(page, { newPassword: NEW_PASSWORD })).status).toBe(400);
  });
});

describe('the pages\' guards', () => {
  it('refuse a form without its CSRF proof or from another origin, and use nothing up', async () => {
    await start();
    const visitor = new PageClient(app.baseUrl);
    const form = await visitor.get('/Login/forgot');
    expect((await visitor.post('/Login/forgot', { login: 'ada' })).status).toBe(403);
    expect((await visitor.submit(form, { login: 'ada' }, { headers: { Origin: 'https://evil.example' } })).status).toBe(403);
    const link = await linkFor();
    const page = await open(link, visitor);
    expect((await visitor.post('/Login/reset', { newPassword: NEW_PASSWORD })).status).toBe(403);
    expect((await visitor.submit(page, { newPassword: NEW_PASSWORD }, { headers: { Origin: 'https://evil.example' } })).status).toBe(403);
    expect((await visitor.submit(page, { newPassword: NEW_PASSWORD })).status).toBe(303);
    expect(app.logLines.filter((line) => line.message === 'recovery' && line.outcome === 'refused:csrf')).toHaveLength(4);
  });

  it('answer only at the service\'s own address', async () => {
    await start();
    const visitor = new PageClient(app.baseUrl);
    expect((await visitor.get('/Login/forgot', { Host: 'evil.example' })).status).toBe(400);
    expect((await visitor.get('/Login/reset?token=x', { Host: 'evil.example' })).status).toBe(400);
  });
});

it('logs neither the token, the link, the login typed nor the password', async () => {
  await start();
  expect((await ask('ADA@example.org')).status).toBe(303);
  const link = linkOf(await nthMail('ada@example.org', 1));
  expect((await reset(link)).status).toBe(303);
  await nthMail('ada@example.org', 2);
  const logs = JSON.stringify(app.logLines);
  const token = new URL(link).searchParams.get('token') ?? '';
  for (const secret of [token, link, NEW_PASSWORD, PASSWORD, 'ADA@example.org']) expect(logs).not.toContain(secret);
  expect(app.logLines.filter((line) => line.message === 'recovery').map((line) => [line.outcome, line.member ?? null])).toEqual([
    ['requested', null],
    ['password-reset', REFERENCE.memberId],
  ]);
});
