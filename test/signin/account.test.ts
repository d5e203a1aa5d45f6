/**
 * The member's account page over HTTP: it needs a live session; every form needs the CSRF proof and the
 * service's own origin; changing the password ends the other sessions; the list of sessions and ending them
 * (only the member's own); setting up and turning off the second factor; throttling; the log.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Environment } from '../../src/config/config.js';
import { totpCode } from '../helpers/authenticator-app.js';
import { setCookie } from '../helpers/cookies.js';
import { formOf, formsOf, PAGE_ENV, PageClient, recoveryCodesOf, secretOf, signedInVisitor, type Page } from '../helpers/page-client.js';
import { adaAndBobWithPassword, REFERENCE } from '../helpers/reference-data.js';
import { STEP } from '../helpers/second-factor.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a new and longer passphrase';

let app: TestApp;
let now = 0;

async function start(env: Environment = {}): Promise<void> {
  now = Date.now();
  app = await startTestApp({ env: { ...PAGE_ENV, ...env }, clock: () => now });
  await adaAndBobWithPassword(app.services, PASSWORD);
}
afterEach(() => app.close());

/** A browser signed in as this member (password only: no second factor yet). */
const signedIn = (login = 'ada', userAgent?: string) => signedInVisitor(app.baseUrl, login, PASSWORD, userAgent);

const sessionOf = async (visitor: PageClient) => app.services.sessions.checkCookie(visitor.loginCookie ?? '', '.example.org');
const isLive = async (visitor: PageClient) => (await sessionOf(visitor)).ok;
const accountLines = () => app.logLines.filter((line) => line.message === 'account');

describe('reaching the page', () => {
  it('without a live session redirects (303) to the sign-in page, which comes back to it', async () => {
    await start();
    const visitor = new PageClient(app.baseUrl);
    const res = await visitor.get('/Account');
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/Login?ReturnUrl=%2FAccount');
    const signIn = await visitor.get(res.headers.location ?? '');
    const back = await visitor.submit(signIn, { login: 'ada', password: PASSWORD });
    expect(back.headers.location).toBe('/Account');
    const page = await visitor.get('/Account');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h1>Your account</h1>');
    expect(page.text).toContain('<strong>Ada Lovelace</strong>');
  });

  it('redirects once the session has ended', async () => {
    await start();
    const visitor = await signedIn();
    expect((await visitor.get('/Account')).status).toBe(200);
    await app.services.sessions.revokeAllOf(REFERENCE.memberId);
    expect((await visitor.get('/Account')).status).toBe(303);
  });

  it('is linked from the signed-in page', async () => {
    await start();
    const visitor = await signedIn();
    const page = await visitor.get('/Login');
    expect(page.text).toContain('<a href="&#x2F;Account">Manage your account</a>');
  });

  it('answers at ACCOUNT_PATH, in any letter case', async () => {
    await start({ ACCOUNT_PATH: '/members/me' });
    const visitor = await signedIn();
    expect((await visitor.get('/Account')).status).toBe(404);
    const page = await visitor.get('/MEMBERS/me');
    expect(page.status).toBe(200);
    expect(page.text).toContain('action="&#x2F;members&#x2F;me&#x2F;password"');
    expect(setCookie(page, 'account-csrf')).toContain('Path=/members/me;');
    expect((await new PageClient(app.baseUrl).get('/members/me')).headers.location).toBe('/Login?ReturnUrl=%2Fmembers%2Fme');
    const changed = await visitor.submit(page, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }, { action: '/members/me/password' });
    expect(changed.headers.location).toBe('/members/me?done=password-changed');
  });

  it('sends the sign-in pages\' security headers and an accessible page without script', async () => {
    await start();
    const visitor = await signedIn();
    const page = await visitor.get('/Account');
    const csp = page.headers['content-security-policy'] ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('script-src');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.text).not.toMatch(/<script/i);
    expect(page.text).toContain('<html lang="en">');
    expect(page.text).toContain('<label for="current-password">Current password</label>');
    expect(page.text).toContain('<input id="current-password" name="currentPassword" type="password" autocomplete="current-password">');
    expect(page.text).toContain('<input id="new-password" name="newPassword" type="password" autocomplete="new-password" aria-describedby="new-password-hint">');
    expect(page.text).toContain('<h2 id="two-step-title">Two-step verification</h2>');
    expect(page.text).toContain('<button type="submit">Set up two-step verification</button>');
    expect(page.text).toContain('<h2 id="sessions-title" tabindex="-1">Where you are signed in</h2>');
    // Its own CSRF cookie, scoped to the account pages.
    const csrf = setCookie(page, 'account-csrf') ?? '';
    expect(csrf.split('; ').slice(1).sort()).toEqual(['HttpOnly', 'Path=/Account', 'SameSite=Strict', 'Secure']);
  });
});

describe('CSRF and origin', () => {
  it.each([
    ['no proof', { csrf: '' }, {}],
    ['a wrong proof', { csrf: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }, {}],
    ['a foreign Origin', {}, { Origin: 'https://evil.example' }],
  ])('refuses a change with %s (403), and changes nothing', async (_what, fields: Record<string, string>, headers: Record<string, string>) => {
    await start();
    const visitor = await signedIn();
    const other = await signedIn();
    const res = await visitor.act('/Account/sessions/end-others', fields, headers);
    expect(res.status).toBe(403);
    expect(res.text).toContain('This form has expired');
    await expect(isLive(other)).resolves.toBe(true);
    expect(accountLines().at(-1)).toMatchObject({ outcome: 'refused:csrf', client: '127.0.0.1' });
  });

  it('does not take the sign-in form\'s proof, nor a proof without its cookie', async () => {
    await start();
    const visitor = await signedIn();
    const other = await signedIn();
    const loginForm = formOf((await new PageClient(app.baseUrl).get('/Login')).text);
    const withLoginProof = await visitor.post('/Account/sessions/end-others', { csrf: loginForm.hidden.csrf ?? '' });
    expect(withLoginProof.status).toBe(403);
    const page = await visitor.get('/Account');
    visitor.cookies.delete('account-csrf');
    expect((await visitor.submit(page, {}, { action: '/Account/sessions/end-others' })).status).toBe(403);
    await expect(isLive(other)).resolves.toBe(true);
  });

  it('a form posted after the session ended goes to the sign-in page', async () => {
    await start();
    const visitor = await signedIn();
    const page = await visitor.get('/Account');
    await app.services.sessions.revokeAllOf(REFERENCE.memberId);
    const res = await visitor.submit(page, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }, { action: '/Account/password' });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/Login?ReturnUrl=%2FAccount');
  });
});

describe('changing the password', () => {
  it('needs the current password, sets the new one, ends every other session and keeps this one', async () => {
    await start();
    const visitor = await signedIn();
    const other = await signedIn();
    const bob = await signedIn('bob');
    const res = await visitor.act('/Account/password', { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/Account?done=password-changed');
    const page = await visitor.get(res.headers.location ?? '');
    expect(page.text).toContain('<p class="notice" role="status">Your password has been changed. You have been signed out everywhere else.</p>');
    await expect(isLive(visitor)).resolves.toBe(true);
    await expect(isLive(other)).resolves.toBe(false);
    await expect(isLive(bob)).resolves.toBe(true);
    expect((await new PageClient(app.baseUrl).signIn('ada', PASSWORD)).status).toBe(401);
    expect((await new PageClient(app.baseUrl).signIn('ada', NEW_PASSWORD)).status).toBe(303);
    expect(accountLines()).toContainEqual(expect.objectContaining({ outcome: 'password-changed', member: REFERENCE.memberId, client: '127.0.0.1' }));
  });

  it('refuses a wrong current password with 401, the error tied to the field, and changes nothing', async () => {
    await start();
    const visitor = await signedIn();
    const other = await signedIn();
    const res = await visitor.act('/Account/password', { currentPassword: 'not it', newPassword: NEW_PASSWORD });
    expect(res.status).toBe(401);
    expect(res.text).toContain('<a href="#current-password">Your password is not correct</a>');
    expect(res.text).toMatch(/<input id="current-password"[^>]* aria-invalid="true" aria-describedby="current-password-error">/);
    expect(res.text).not.toContain(NEW_PASSWORD);
    await expect(isLive(other)).resolves.toBe(true);
    expect((await new PageClient(app.baseUrl).signIn('ada', PASSWORD)).status).toBe(303);
  });

  it('asks for missing fields (400) and refuses a too short password (400)', async () => {
    await start();
    const visitor = await signedIn();
    const missing = await visitor.act('/Account/password', { currentPassword: '', newPassword: '' });
    expect(missing.status).toBe(400);
    expect(missing.text).toContain('<a href="#current-password">Enter your current password</a>');
    expect(missing.text).toContain('<a href="#new-password">Enter a new password</a>');
    const short = await visitor.act('/Account/password', { currentPassword: PASSWORD, newPassword: 'short' });
    expect(short.status).toBe(400);
    expect(short.text).toContain('Your new password must have at least 8 characters');
    expect(short.text).toMatch(/<input id="new-password"[^>]* aria-invalid="true" aria-describedby="new-password-hint new-password-error">/);
  });

  it('counts wrong current passwords with the sign-in throttle: 429 with Retry-After', async () => {
    await start();
    const visitor = await signedIn();
    expect((await visitor.act('/Account/password', { currentPassword: 'wrong 1', newPassword: NEW_PASSWORD })).status).toBe(401);
    expect((await visitor.act('/Account/password', { currentPassword: 'wrong 2', newPassword: NEW_PASSWORD })).status).toBe(401);
    const locked = await visitor.act('/Account/password', { currentPassword: 'wrong 3', newPassword: NEW_PASSWORD });
    expect(locked.status).toBe(429);
    expect(locked.headers['retry-after']).toBe('900');
    expect(locked.text).toContain('Too many failed attempts to sign in. Try again in 15 minutes.');
    expect((await visitor.act('/Account/password', { currentPassword: PASSWORD, newPassword: NEW_PASSWORD })).status).toBe(429);
    expect((await new PageClient(app.baseUrl).signIn('ada', PASSWORD)).status).toBe(429);
  });
});

describe('the sessions', () => {
  it('names a browser it does not recognise "Unknown device", never with the User-Agent\'s own text', async () => {
    await start();
    const visitor = await signedIn('ada', 'URGENT: not you? Cancel at https://evil.example/x');
    const page = await visitor.get('/Account');
    expect(page.text).toContain('<strong>Unknown device</strong> <span class="tag tag-on">This session</span>');
    expect(page.text).not.toContain('evil.example');
  });

  it('lists the member\'s live sessions: when and from where each began, this one marked', async () => {
    await start();
    now += 30_000; // after the reference data's session: the list is newest first
    const phone = await signedIn('ada', 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1');
    now += 60_000;
    const visitor = await signedIn();
    await signedIn('bob');
    const page = await visitor.get('/Account');
    const items = [...page.text.matchAll(/<li( aria-current="true")?>\s*<p class="device">([\s\S]*?)<\/li>/g)];
    // Ada's two sessions and the reference data's one (no address or browser known); not Bob's.
    expect(items).toHaveLength(3);
    const [mine, fromPhone, seeded] = items.map((match) => match[0]);
    expect(mine).toContain('<li aria-current="true">');
    expect(mine).toContain('<strong>Firefox on Linux</strong> <span class="tag tag-on">This session</span>');
    expect(mine).toContain(`<time datetime="${new Date(now).toISOString()}">${new Date(now).toISOString().slice(0, 16).replace('T', ' ')} UTC</time> from 127.0.0.1`);
    expect(mine).not.toContain('<form');
    expect(fromPhone).toContain('<strong>Safari on iPhone</strong>');
    expect(fromPhone).toContain('<button type="submit" class="secondary small">Sign out<span class="visually-hidden"> Safari on iPhone, signed in ');
    expect(seeded).toContain('<strong>Unknown device</strong>');
    expect(seeded).toContain('from an unknown address');
    const phoneSession = await sessionOf(phone);
    expect(formsOf(page.text, '/Account/sessions/end').map((form) => form.session)).toContain(phoneSession.ok ? phoneSession.found.session.id : 'none');
  });

  it('signs out one other session from the list', async () => {
    await start();
    const visitor = await signedIn();
    const other = await signedIn();
    const otherId = (await sessionOf(other)).ok ? ((await sessionOf(other)) as { found: { session: { id: string } } }).found.session.id : '';
    const page = await visitor.get('/Account');
    const form = formsOf(page.text, '/Account/sessions/end').find((fields) => fields.session === otherId);
    expect(form).toBeDefined();
    const res = await visitor.post('/Account/sessions/end', form ?? {});
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/Account?done=session-ended');
    await expect(isLive(other)).resolves.toBe(false);
    await expect(isLive(visitor)).resolves.toBe(true);
    expect((await visitor.get('/Account?done=session-ended')).text).toContain('That session has been signed out.');
    expect(accountLines()).toContainEqual(expect.objectContaining({ outcome: 'session-ended', count: 1, member: REFERENCE.memberId }));
  });

  it('cannot end another member\'s session, nor its own through the list (400, nothing ended)', async () => {
    await start();
    const visitor = await signedIn();
    const bob = await signedIn('bob');
    const bobCheck = await sessionOf(bob);
    const mine = await sessionOf(visitor);
    if (!bobCheck.ok || !mine.ok) throw new Error('no sessions');
    for (const id of [bobCheck.found.session.id, mine.found.session.id, 'no-such-session']) {
      const res = await visitor.act('/Account/sessions/end', { session: id });
      expect(res.status).toBe(400);
      expect(res.text).toContain('That session is not one of your other sessions, or it has ended already');
      expect(res.text).toContain('<a href="#sessions-title">');
    }
    await expect(isLive(bob)).resolves.toBe(true);
    await expect(isLive(visitor)).resolves.toBe(true);
  });

  it('signs out all other sessions, and says so when there are none', async () => {
    await start();
    await app.services.sessions.revokeAllOf(REFERENCE.memberId);
    const visitor = await signedIn();
    const others = [await signedIn(), await signedIn()];
    const bob = await signedIn('bob');
    const res = await visitor.act('/Account/sessions/end-others', {});
    expect(res.headers.location).toBe('/Account?done=sessions-ended');
    for (const other of others) await expect(isLive(other)).resolves.toBe(false);
    await expect(isLive(visitor)).resolves.toBe(true);
    await expect(isLive(bob)).resolves.toBe(true);
    expect(accountLines()).toContainEqual(expect.objectContaining({ outcome: 'session-ended', count: 2 }));
    const page = await visitor.get('/Account?done=sessions-ended');
    expect(page.text).toContain('All your other sessions have been signed out.');
    expect(page.text).toContain('You are not signed in anywhere else.');
    expect(page.text).not.toContain('Sign out all other sessions');
  });

  it('a GET of a form\'s address goes back to the page; an unknown notice is not shown', async () => {
    await start();
    const visitor = await signedIn();
    expect((await visitor.get('/Account/password')).headers.location).toBe('/Account');
    expect((await visitor.get('/Account?done=%3Cb%3Ehi')).text).not.toContain('class="notice"');
  });
});

describe('two-step verification on the account page', () => {
  /** Starts the set-up and returns the set-up page. */
  async function beginSetup(visitor: PageClient): Promise<Page> {
    const begun = await visitor.act('/Account/two-step', {});
    expect(begun.status).toBe(303);
    expect(begun.headers.location).toBe('/Account/two-step');
    const page = await visitor.get('/Account/two-step');
    expect(page.status).toBe(200);
    return page;
  }

  it('sets up with the QR code or the key as text, confirmed by a first code; the recovery codes are shown once', async () => {
    await start();
    const visitor = await signedIn();
    const page = await beginSetup(visitor);
    expect(page.text).toContain('<h1>Set up two-step verification</h1>');
    expect(page.text).toMatch(/<div class="qr"><svg role="img" aria-label="QR code to scan with your authenticator app"/);
    const secret = secretOf(page.text);
    // A reload shows the same key.
    expect(secretOf((await visitor.get('/Account/two-step')).text)).toBe(secret);
    await expect(app.services.secondFactor.status(REFERENCE.memberId)).resolves.toMatchObject({ enabled: false, pending: true });

    const wrong = await visitor.submit(page, { code: '000000' });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('<a href="#code">The code is not right');
    await expect(app.services.secondFactor.status(REFERENCE.memberId)).resolves.toMatchObject({ enabled: false });

    const confirmed = await visitor.submit(wrong, { code: totpCode(secret, now) });
    expect(confirmed.status).toBe(200);
    expect(confirmed.text).toContain('shown only this once');
    const codes = recoveryCodesOf(confirmed.text);
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    expect(confirmed.text).toContain('href="&#x2F;Account?done&#x3D;two-step-on"');
    await expect(app.services.secondFactor.status(REFERENCE.memberId)).resolves.toEqual({ enabled: true, pending: false, recoveryCodesLeft: 10 });

    // Sending the confirmation again, or opening the set-up page, shows nothing new.
    expect((await visitor.submit(page, { code: totpCode(secret, now) })).headers.location).toBe('/Account');
    expect((await visitor.get('/Account/two-step')).headers.location).toBe('/Account');
    const account = await visitor.get('/Account?done=two-step-on');
    expect(account.text).toContain('Two-step verification is on.');
    expect(account.text).toContain('You have 10 unused recovery codes.');
    expect(account.text).not.toContain(codes[0]);
    // Starting again while it is on (the page offers no button for it) changes nothing.
    const csrf = formOf(account.text, '/Account/password').hidden.csrf ?? '';
    expect((await visitor.post('/Account/two-step', { csrf })).headers.location).toBe('/Account');
    await expect(app.services.secondFactor.status(REFERENCE.memberId)).resolves.toEqual({ enabled: true, pending: false, recoveryCodesLeft: 10 });
    expect(accountLines()).toContainEqual(expect.objectContaining({ outcome: 'second-factor-added', member: REFERENCE.memberId }));

    const logged = JSON.stringify(app.logLines);
    for (const text of [secret, ...codes, PASSWORD, visitor.loginCookie ?? '']) expect(logged).not.toContain(text);
  });

  it('turns off only with the password and a code: either missing or wrong is refused, and wrong ones count with the sign-in throttle', async () => {
    await start();
    const visitor = await signedIn();
    const setupPage = await beginSetup(visitor);
    const secret = secretOf(setupPage.text);
    expect((await visitor.submit(setupPage, { code: totpCode(secret, now) })).status).toBe(200);
    now += STEP;

    const missing = await visitor.act('/Account/two-step/off', { password: '', code: '' });
    expect(missing.status).toBe(400);
    expect(missing.text).toContain('<a href="#off-password">Enter your password</a>');
    const wrongPassword = await visitor.act('/Account/two-step/off', { password: 'not it', code: totpCode(secret, now) });
    expect(wrongPassword.status).toBe(401);
    expect(wrongPassword.text).toMatch(/<input id="off-password"[^>]* aria-invalid="true" aria-describedby="off-password-error">/);
    const wrongCode = await visitor.act('/Account/two-step/off', { password: PASSWORD, code: '000000' });
    expect(wrongCode.status).toBe(401);
    expect(wrongCode.text).toMatch(/<input id="off-code"[^>]* aria-invalid="true" aria-describedby="off-code-error">/);
    const wrongRecovery = await visitor.act('/Account/two-step/off', { password: PASSWORD, recovery: 'aaaaa-bbbbb' });
    expect(wrongRecovery.status).toBe(429); // the third failure: the throttle is the sign-in's
    await expect(app.services.secondFactor.status(REFERENCE.memberId)).resolves.toMatchObject({ enabled: true });
  });

  it('turns off with the password and a recovery code', async () => {
    await start();
    const visitor = await signedIn();
    const setupPage = await beginSetup(visitor);
    const codes = recoveryCodesOf((await visitor.submit(setupPage, { code: totpCode(secretOf(setupPage.text), now) })).text);
    const wrong = await visitor.act('/Account/two-step/off', { password: PASSWORD, recovery: 'aaaaa-bbbbb' });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('<details open>');
    expect(wrong.text).toMatch(/<input id="off-recovery"[^>]* aria-invalid="true" aria-describedby="off-recovery-error">/);
    const off = await visitor.act('/Account/two-step/off', { password: PASSWORD, recovery: codes[0] ?? '' });
    expect(off.status).toBe(303);
    expect(off.headers.location).toBe('/Account?done=two-step-off');
    await expect(app.services.secondFactor.status(REFERENCE.memberId)).resolves.toEqual({ enabled: false, pending: false, recoveryCodesLeft: 0 });
    expect((await visitor.get('/Account?done=two-step-off')).text).toContain('<button type="submit">Set up two-step verification</button>');
    expect(accountLines()).toContainEqual(expect.objectContaining({ outcome: 'second-factor-removed', member: REFERENCE.memberId }));
    // Signing in asks for no code any more.
    expect((await new PageClient(app.baseUrl).signIn('ada', PASSWORD)).status).toBe(303);
  });

  it('without a set-up begun, the set-up page goes back to the account page', async () => {
    await start();
    const visitor = await signedIn();
    expect((await visitor.get('/Account/two-step')).headers.location).toBe('/Account');
  });
});

describe('templates and hosts', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'account-templates-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('TEMPLATE_DIR replaces the account page\'s template; the layout stays', async () => {
    await writeFile(join(dir, 'account.mustache'), '<p class="custom">Hello {{memberName}}</p>');
    await start({ TEMPLATE_DIR: dir });
    const visitor = await signedIn();
    const page = await visitor.get('/Account');
    expect(page.text).toContain('<p class="custom">Hello Ada Lovelace</p>');
    expect(page.text).toContain('<html lang="en">');
  });

  it('answers only at the service\'s own address', async () => {
    await start();
    const visitor = await signedIn();
    const res = await visitor.get('/Account', { Host: 'forged.example' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('PUBLIC_URL or ALLOWED_HOSTS');
  });
});
