/**
 * Signing in with a second factor over HTTP: the code step after the password (which carries no password),
 * codes used once, recovery codes, the shared throttle, challenges that expire or are forged, MFA=required's
 * set-up step, and the log lines.
 */
import type { Environment } from '../../src/config/config.js';
import { totpCode } from '../helpers/authenticator-app.js';
import { setCookie } from '../helpers/cookies.js';
import { formOf, PAGE_ENV, PageClient, recoveryCodesOf, secretOf, type Page } from '../helpers/page-client.js';
import { BOB, REFERENCE } from '../helpers/reference-data.js';
import { confirmedFactor, STEP } from '../helpers/second-factor.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const PASSWORD = 'correct horse battery staple';
const PORTAL = 'https://portal.example.org';

let app: TestApp;
/** The service's clock: tests move it on by a step between codes, as time would. */
let now = 0;

async function start(env: Environment = {}): Promise<void> {
  now = Date.now();
  app = await startTestApp({ env: { ...PAGE_ENV, ...env }, clock: () => now });
  await app.services.members.setPassword(REFERENCE.memberId, PASSWORD);
  await app.services.callers.addOrigin('reference-client', PORTAL, { receivesToken: true });
}
afterEach(() => app.close());

/** Gives ada a confirmed second factor, as the account page would; returns its key and recovery codes. */
async function enrol(): Promise<{ secret: string; recoveryCodes: string[] }> {
  const factor = await confirmedFactor(app.services, REFERENCE.memberId, now);
  now += STEP;
  return factor;
}

/** The code of the service's present moment. */
const codeNow = (secret: string) => totpCode(secret, now);

const signInLines = () => app.logLines.filter((line) => line.message === 'sign-in');
const liveSessions = async () => (await app.services.sessions.list({ memberId: REFERENCE.memberId })).length;

describe('the code step', () => {
  it('comes after a right password, without a session, and carries a challenge instead of the password', async () => {
    await start();
    await enrol();
    const before = await liveSessions();
    const visitor = new PageClient(app.baseUrl);
    const page = await visitor.signIn('ada', PASSWORD);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h1>Enter your code</h1>');
    expect(setCookie(page, '.ASPXAUTH')).toBeUndefined();
    await expect(liveSessions()).resolves.toBe(before);
    expect(page.text).not.toContain(PASSWORD);
    expect(page.text).not.toContain('name="password"');
    const form = formOf(page.text);
    expect(form.action).toBe('/Login');
    expect(Object.keys(form.hidden).sort()).toEqual(['challenge', 'csrf', 'step']);
    expect(form.hidden.step).toBe('code');
    expect(form.hidden.challenge).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  });

  it('opens the session after the code, recording where it began, and goes to the return address with "keep me signed in"', async () => {
    await start({ SESSION_ABSOLUTE_TIMEOUT: '7d', SESSION_IDLE_TIMEOUT: '1d' });
    const { secret } = await enrol();
    const visitor = new PageClient(app.baseUrl);
    const page = await visitor.signIn('ada', PASSWORD, { remember: 'yes', ReturnUrl: `${PORTAL}/welcome` });
    expect(formOf(page.text).hidden).toMatchObject({ remember: 'yes', ReturnUrl: `${PORTAL}/welcome` });
    const done = await visitor.submit(page, { code: codeNow(secret) });
    expect(done.status).toBe(303);
    const location = new URL(done.headers.location ?? '');
    expect(location.origin + location.pathname).toBe(`${PORTAL}/welcome`);
    expect(location.searchParams.get('token')).toBeTruthy();
    expect(setCookie(done, '.ASPXAUTH')).toContain('Max-Age=604800');
    const check = await app.services.sessions.checkCookie(visitor.loginCookie ?? '', '.example.org');
    if (!check.ok) throw new Error(`no session: ${check.reason}`);
    expect(check.found.member.id).toBe(REFERENCE.memberId);
    expect(check.found.session).toMatchObject({ clientAddress: '127.0.0.1', userAgent: expect.stringContaining('Firefox/128.0') });
  });

  it('refuses a code used already (replayed), even within its window, with 401 and the error on the field', async () => {
    await start();
    const { secret } = await enrol();
    const code = codeNow(secret);
    const first = new PageClient(app.baseUrl);
    expect((await first.submit(await first.signIn('ada', PASSWORD), { code })).status).toBe(303);
    const second = new PageClient(app.baseUrl);
    const replay = await second.submit(await second.signIn('ada', PASSWORD), { code });
    expect(replay.status).toBe(401);
    expect(replay.text).toContain('The code is not right, or it has been used already');
    expect(replay.text).toMatch(/<input id="code"[^>]* aria-invalid="true" aria-describedby="code-hint code-error">/);
    expect(replay.text).toContain('<a href="#code">');
    expect(second.loginCookie).toBeUndefined();
    // The next step's code is a new one.
    now += STEP;
    expect((await second.submit(replay, { code: codeNow(secret) })).status).toBe(303);
    expect(second.loginCookie).toBeDefined();
  });

  it('takes a recovery code once, in any case and spacing, and says so on the recovery field when it is refused', async () => {
    await start();
    const { recoveryCodes } = await enrol();
    const [code = ''] = recoveryCodes;
    const first = new PageClient(app.baseUrl);
    const signedIn = await first.submit(await first.signIn('ada', PASSWORD), { recovery: ` ${code.toUpperCase()} ` });
    expect(signedIn.status).toBe(303);
    expect(first.loginCookie).toBeDefined();
    await expect(app.services.secondFactor.status(REFERENCE.memberId)).resolves.toMatchObject({ recoveryCodesLeft: 9 });

    const again = new PageClient(app.baseUrl);
    const refused = await again.submit(await again.signIn('ada', PASSWORD), { recovery: code });
    expect(refused.status).toBe(401);
    expect(refused.text).toContain('<details open>');
    expect(refused.text).toContain('The recovery code is not right, or it has been used already');
    expect(refused.text).toMatch(/<input id="recovery"[^>]* aria-invalid="true" aria-describedby="recovery-hint recovery-error">/);
    expect(again.loginCookie).toBeUndefined();
  });

  it('asks for a missing code with 400', async () => {
    await start();
    await enrol();
    const visitor = new PageClient(app.baseUrl);
    const res = await visitor.submit(await visitor.signIn('ada', PASSWORD), { code: ' ' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('Enter the 6-digit code from your authenticator app');
  });

  it('counts wrong codes with the password\'s throttle: SIGNIN_MAX_FAILURES_PER_ACCOUNT of them lock, even the right code, and a right password does not reset the count', async () => {
    await start();
    const { secret } = await enrol();
    const visitor = new PageClient(app.baseUrl);
    let page = await visitor.signIn('ada', PASSWORD);
    page = await visitor.submit(page, { code: '000000' });
    expect(page.status).toBe(401);
    page = await visitor.submit(page, { code: '000001' });
    expect(page.status).toBe(401);
    // Signing in again with the right password does not give new guesses.
    page = await visitor.signIn('ada', PASSWORD);
    expect(page.status).toBe(200);
    const locked = await visitor.submit(page, { code: '000002' });
    expect(locked.status).toBe(429);
    expect(locked.headers['retry-after']).toBe('900');
    expect(locked.text).toContain('Too many failed attempts to sign in. Try again in 15 minutes.');
    const right = await visitor.submit(locked, { code: codeNow(secret) });
    expect(right.status).toBe(429);
    expect(visitor.loginCookie).toBeUndefined();
    // The password step is locked too: one count for both.
    expect((await visitor.signIn('ada', PASSWORD)).status).toBe(429);
    expect(signInLines().map((line) => line.outcome)).toEqual([
      'second-factor',
      'invalid-code',
      'invalid-code',
      'second-factor',
      'throttled',
      'throttled',
      'throttled',
    ]);
  });

  it('sends an expired challenge back to the password with 400, and opens no session', async () => {
    await start();
    const { secret } = await enrol();
    const visitor = new PageClient(app.baseUrl);
    const page = await visitor.signIn('ada', PASSWORD, { ReturnUrl: `${PORTAL}/x` });
    now += 5 * 60_000 + 1000;
    const res = await visitor.submit(page, { code: codeNow(secret) });
    expect(res.status).toBe(400);
    expect(res.text).toContain('Signing in took too long, or the page was too old. Sign in again.');
    expect(res.text).toContain('name="password"');
    expect(res.text).toContain(`<input type="hidden" name="ReturnUrl" value="https:&#x2F;&#x2F;portal.example.org&#x2F;x">`);
    expect(visitor.loginCookie).toBeUndefined();
    expect(signInLines().at(-1)).toMatchObject({ outcome: 'expired', step: 'code' });
  });

  it.each([
    ['a changed payload', (challenge: string) => `A${challenge.slice(1)}`],
    ['a changed proof', (challenge: string) => `${challenge.slice(0, -2)}${challenge.endsWith('AA') ? 'BB' : 'AA'}`],
    ['no proof', (challenge: string) => challenge.split('.')[0] ?? ''],
    ['nothing', () => ''],
  ])('refuses a challenge with %s as expired', async (_what, tamper) => {
    await start();
    const { secret } = await enrol();
    const visitor = new PageClient(app.baseUrl);
    const page = await visitor.signIn('ada', PASSWORD);
    const form = formOf(page.text);
    const res = await visitor.post('/Login', { ...form.hidden, challenge: tamper(form.hidden.challenge ?? ''), code: codeNow(secret) });
    expect(res.status).toBe(400);
    expect(res.text).toContain('Sign in again.');
    expect(visitor.loginCookie).toBeUndefined();
  });

  it('refuses a set-up challenge on the code step', async () => {
    await start({ MFA: 'required' });
    await app.services.members.add(BOB);
    await app.services.members.setPassword(BOB.id, PASSWORD);
    const visitor = new PageClient(app.baseUrl);
    const setup = await visitor.signIn('bob', PASSWORD);
    const secret = secretOf(setup.text);
    const res = await visitor.submit(setup, { step: 'code', code: totpCode(secret, now) });
    expect(res.status).toBe(400);
    expect(visitor.loginCookie).toBeUndefined();
  });

  it('refuses the code step without the CSRF proof, or from another origin', async () => {
    await start();
    const { secret } = await enrol();
    const visitor = new PageClient(app.baseUrl);
    const page = await visitor.signIn('ada', PASSWORD);
    const noProof = await visitor.submit(page, { csrf: '', code: codeNow(secret) });
    expect(noProof.status).toBe(403);
    const foreign = await visitor.submit(page, { code: codeNow(secret) }, { headers: { Origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    expect(visitor.loginCookie).toBeUndefined();
    expect(signInLines().slice(-2)).toEqual([
      expect.objectContaining({ outcome: 'refused:csrf', step: 'code' }),
      expect.objectContaining({ outcome: 'refused:csrf', step: 'code' }),
    ]);
  });

  it('is an accessible form: label, hint, one-time-code autocomplete, numeric keypad, no script', async () => {
    await start();
    await enrol();
    const page = await new PageClient(app.baseUrl).signIn('ada', PASSWORD);
    expect(page.text).toContain('<title>Enter your code</title>');
    expect(page.text).toContain('<label for="code">Code from your authenticator app</label>');
    expect(page.text).toContain(
      '<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" autocapitalize="none" spellcheck="false" aria-describedby="code-hint">',
    );
    expect(page.text).toContain('<summary>Use a recovery code instead</summary>');
    expect(page.text).toContain('<label for="recovery">Recovery code</label>');
    expect(page.text).toContain('<button type="submit">Continue</button>');
    expect(page.text).not.toMatch(/<script/i);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.headers['cache-control']).toBe('no-store');
  });

  it('members without a second factor sign in with the password alone (MFA=optional)', async () => {
    await start();
    const visitor = new PageClient(app.baseUrl);
    expect((await visitor.signIn('ada', PASSWORD)).status).toBe(303);
    expect(visitor.loginCookie).toBeDefined();
  });
});

describe('MFA=required', () => {
  async function setupPage(visitor: PageClient, fields: Record<string, string> = {}): Promise<Page> {
    const page = await visitor.signIn('ada', PASSWORD, fields);
    expect(page.status).toBe(200);
    return page;
  }

  it('takes a member without a second factor to the set-up, with no session until it is confirmed', async () => {
    await start({ MFA: 'required' });
    const before = await liveSessions();
    const visitor = new PageClient(app.baseUrl);
    const page = await setupPage(visitor, { ReturnUrl: `${PORTAL}/home` });
    expect(page.text).toContain('<h1>Set up two-step verification</h1>');
    expect(page.text).toContain('We ask every member to sign in with a code from their phone');
    expect(page.text).toMatch(/<div class="qr"><svg role="img" aria-label="QR code to scan with your authenticator app"[^>]*viewBox="0 0 \d+ \d+"[^>]*><path /);
    const secret = secretOf(page.text);
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(page.text).toContain(`<p class="secret" id="secret-grouped">${secret.match(/.{4}/g)?.join(' ')}</p>`);
    expect(formOf(page.text).hidden).toMatchObject({ step: 'setup', ReturnUrl: `${PORTAL}/home` });
    expect(visitor.loginCookie).toBeUndefined();
    await expect(liveSessions()).resolves.toBe(before);

    // A reload (another sign-in) shows the same key: the app may have it already.
    expect(secretOf((await setupPage(new PageClient(app.baseUrl))).text)).toBe(secret);

    const wrong = await visitor.submit(page, { code: '000000' });
    expect(wrong.status).toBe(401);
    expect(secretOf(wrong.text)).toBe(secret);
    expect(visitor.loginCookie).toBeUndefined();

    const confirmed = await visitor.submit(wrong, { code: totpCode(secret, now) });
    expect(confirmed.status).toBe(200);
    expect(confirmed.text).toContain('<h1>Save your recovery codes</h1>');
    const codes = recoveryCodesOf(confirmed.text);
    expect(codes).toHaveLength(10);
    expect(visitor.loginCookie).toBeDefined();
    const next = /<a class="button" href="([^"]+)">/.exec(confirmed.text)?.[1] ?? '';
    const target = new URL(next.replace(/&#x2F;/g, '/').replace(/&#x3D;/g, '=').replace(/&amp;/g, '&'));
    expect(target.origin + target.pathname).toBe(`${PORTAL}/home`);
    expect(target.searchParams.get('token')).toBeTruthy();
    await expect(app.services.secondFactor.status(REFERENCE.memberId)).resolves.toEqual({ enabled: true, pending: false, recoveryCodesLeft: 10 });

    // From now on, sign-in asks for a code.
    now += STEP;
    const later = new PageClient(app.baseUrl);
    const code = await later.signIn('ada', PASSWORD);
    expect(code.text).toContain('<h1>Enter your code</h1>');
    expect((await later.submit(code, { recovery: codes[3] ?? '' })).status).toBe(303);

    const logged = JSON.stringify(app.logLines);
    for (const secretText of [PASSWORD, secret, ...codes, visitor.loginCookie ?? '', formOf(page.text).hidden.challenge ?? '']) {
      expect(logged).not.toContain(secretText);
    }
    expect(app.logLines).toContainEqual(expect.objectContaining({ message: 'account', outcome: 'second-factor-added', member: REFERENCE.memberId }));
  });

  it('cannot be skipped: the set-up challenge signs nobody in without its code, and an empty code is asked for', async () => {
    await start({ MFA: 'required' });
    const visitor = new PageClient(app.baseUrl);
    const page = await setupPage(visitor);
    const empty = await visitor.submit(page, { code: '' });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('Enter the 6-digit code from your authenticator app');
    expect(visitor.loginCookie).toBeUndefined();
    expect(await liveSessions()).toBe(1); // the reference data's own session
  });
});

describe('log lines and metrics', () => {
  it('one sign-in line per step, with the outcome and the step; never a password, code, key, challenge or cookie', async () => {
    await start();
    const { secret, recoveryCodes } = await enrol();
    const visitor = new PageClient(app.baseUrl);
    const page = await visitor.signIn('ada', PASSWORD);
    const wrong = await visitor.submit(page, { code: '123456' });
    const code = codeNow(secret);
    await visitor.submit(wrong, { code });
    expect(signInLines()).toEqual([
      expect.objectContaining({ outcome: 'second-factor', step: 'code', member: REFERENCE.memberId, client: '127.0.0.1' }),
      expect.objectContaining({ outcome: 'invalid-code', step: 'code', client: '127.0.0.1' }),
      expect.objectContaining({ outcome: 'signed-in', step: 'code', member: REFERENCE.memberId, client: '127.0.0.1' }),
    ]);
    const logged = JSON.stringify(app.logLines);
    for (const secretText of [PASSWORD, secret, code, '123456', ...recoveryCodes, visitor.loginCookie ?? '', formOf(page.text).hidden.challenge ?? '']) {
      expect(logged).not.toContain(secretText);
    }
    const metrics = await app.metrics?.registry.getSingleMetricAsString('signin_attempts_total');
    expect(metrics).toContain('signin_attempts_total{outcome="second_factor"} 1');
    expect(metrics).toContain('signin_attempts_total{outcome="invalid_code"} 1');
    expect(metrics).toContain('signin_attempts_total{outcome="signed_in"} 1');
    expect(metrics).toContain('signin_attempts_total{outcome="expired"} 0');
  });
});
