/**
 * The sign-in and sign-out pages over HTTP: cookies and their attributes, CSRF, return addresses, the
 * markup that makes the form accessible, security headers, templates and escaping.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { composeInstance } from '../../src/compose.js';
import { loadConfig, type Environment } from '../../src/config/config.js';
import { hashPassword } from '../../src/service/passwords.js';
import { StartupError } from '../../src/startup-error.js';
import type { Store } from '../../src/store/store.js';
import { memberOfCookie as memberOfCookieAt } from '../helpers/asmx-calls.js';
import { cookieValue, setCookie } from '../helpers/cookies.js';
import { PAGE_ENV } from '../helpers/page-client.js';
import { REFERENCE } from '../helpers/reference-data.js';
import { tempSqliteStore } from '../helpers/temp-store.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const PASSWORD = 'correct horse battery staple';
const PORTAL = 'https://portal.example.org';
const SHOP = 'https://shop.example.org';

let app: TestApp;

async function start(env: Environment = {}): Promise<void> {
  app = await startTestApp({ env: { ...PAGE_ENV, ...env } });
  await app.store.setMemberPassword(REFERENCE.memberId, await hashPassword(PASSWORD), Date.now());
  await app.services.callers.addOrigin('reference-client', PORTAL, { receivesToken: true });
  await app.services.callers.addOrigin('reference-client', SHOP);
}
afterEach(() => app.close());

const http = () => request(app.baseUrl);

/** Runs fn over a fresh store of its own, closed and removed afterwards. */
async function withStore<T>(fn: (store: Store) => Promise<T>): Promise<T> {
  const temp = await tempSqliteStore();
  try {
    return await fn(temp.store);
  } finally {
    await temp.cleanup();
  }
}

/** What a browser holds after opening the sign-in page: the CSRF cookie and the form's hidden token. */
async function openForm(path = '/Login'): Promise<{ cookie: string; csrf: string }> {
  const res = await http().get(path).expect(200);
  const line = setCookie(res, 'signin-csrf');
  const csrf = /name="csrf" value="([^"]+)"/.exec(res.text)?.[1];
  if (!line || !csrf) throw new Error('the sign-in page set no CSRF cookie or field');
  return { cookie: `signin-csrf=${cookieValue(line)}`, csrf };
}

async function postLogin(fields: Record<string, string>, options: { origin?: string; form?: { cookie: string; csrf: string } } = {}) {
  const form = options.form ?? (await openForm());
  let req = http().post('/Login').type('form').set('Cookie', form.cookie);
  if (options.origin) req = req.set('Origin', options.origin);
  return req.send({ csrf: form.csrf, login: 'ada', password: PASSWORD, ...fields });
}

const memberOfCookie = (cookie: string, domain: string) => memberOfCookieAt(app.baseUrl, cookie, domain);

const sessionsOfMember = async () => (await app.services.sessions.list({ memberId: REFERENCE.memberId })).length;

describe('signing in', () => {
  it('sets the login cookie with the configured domain, Path=/, HttpOnly, SameSite=Lax and Secure, for the session only', async () => {
    await start();
    const res = await postLogin({});
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/Login');
    const line = setCookie(res, '.ASPXAUTH');
    expect(line).toBeDefined();
    const attributes = line?.split('; ').slice(1).sort();
    expect(attributes).toEqual(['Domain=.example.org', 'HttpOnly', 'Path=/', 'SameSite=Lax', 'Secure']);
    const cookie = cookieValue(line);
    await expect(memberOfCookie(cookie, '.example.org')).resolves.toBe(REFERENCE.memberId);
    await expect(memberOfCookie(cookie, '.other.org')).resolves.toBe('');
  });

  it('"keep me signed in" makes the cookie persistent for the session\'s absolute lifetime', async () => {
    await start({ SESSION_ABSOLUTE_TIMEOUT: '7d', SESSION_IDLE_TIMEOUT: '1d' });
    const line = setCookie(await postLogin({ remember: 'yes' }), '.ASPXAUTH');
    expect(line).toContain('; Max-Age=604800;');
    expect(line).toMatch(/; Expires=\w{3}, \d\d \w{3} \d{4} /);
  });

  it('drops Secure with COOKIE_SECURE=false, also on the CSRF cookie', async () => {
    await start({ COOKIE_SECURE: 'false' });
    const form = await http().get('/Login');
    expect(setCookie(form, 'signin-csrf')).not.toMatch(/Secure/);
    const line = setCookie(await postLogin({}), '.ASPXAUTH');
    expect(line).toBeDefined();
    expect(line).not.toMatch(/Secure/);
  });

  it('without COOKIE_DOMAIN sets a host-only cookie and a session for the request\'s host', async () => {
    await start({ COOKIE_DOMAIN: '' });
    const line = setCookie(await postLogin({}), '.ASPXAUTH');
    expect(line).not.toMatch(/Domain=/);
    await expect(memberOfCookie(cookieValue(line), '127.0.0.1')).resolves.toBe(REFERENCE.memberId);
  });

  it('uses the configured cookie name and paths', async () => {
    await start({ LOGIN_COOKIE_NAME: 'MEMBERAUTH', LOGIN_PATH: '/account/sign-in', LOGOUT_PATH: '/account/sign-out' });
    expect((await http().get('/Login')).status).toBe(404);
    const form = await openForm('/account/sign-in');
    const page = await http().get('/account/sign-in');
    expect(page.text).toContain('action="&#x2F;account&#x2F;sign-in"');
    expect(setCookie(page, 'signin-csrf')).toContain('Path=/account/sign-in');
    const res = await http().post('/account/sign-in').type('form').set('Cookie', form.cookie).send({ csrf: form.csrf, login: 'ada', password: PASSWORD });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/account/sign-in');
    expect(setCookie(res, 'MEMBERAUTH')).toBeDefined();
  });

  it('logs one line per attempt: outcome, member on success, client; never the password, cookie or token', async () => {
    await start();
    const ok = await postLogin({});
    await postLogin({ password: 'wrong-password' });
    const lines = app.logLines.filter((line) => line.message === 'sign-in');
    expect(lines).toEqual([
      expect.objectContaining({ outcome: 'signed-in', member: REFERENCE.memberId, client: '127.0.0.1' }),
      expect.objectContaining({ outcome: 'invalid', client: '127.0.0.1' }),
    ]);
    expect(lines[1]).not.toHaveProperty('member');
    const logged = JSON.stringify(app.logLines);
    for (const secret of [PASSWORD, 'wrong-password', cookieValue(setCookie(ok, '.ASPXAUTH'))]) expect(logged).not.toContain(secret);
  });
});

describe('the Token cookie (TOKEN_COOKIE_NAME, PROFILE=isgweb)', () => {
  it('signing in also sets the session token in the Token cookie, with the login cookie\'s attributes', async () => {
    await start({ TOKEN_COOKIE_NAME: 'Token' });
    const res = await postLogin({});
    const line = setCookie(res, 'Token');
    expect(line?.split('; ').slice(1).sort()).toEqual(['Domain=.example.org', 'HttpOnly', 'Path=/', 'SameSite=Lax', 'Secure']);
    const byToken = await app.services.sessions.checkToken(cookieValue(line));
    const byCookie = await app.services.sessions.checkCookie(cookieValue(setCookie(res, '.ASPXAUTH')), '.example.org');
    expect(byToken).toMatchObject({ ok: true, found: { member: { id: REFERENCE.memberId } } });
    // One session: the token cookie and the login cookie name the same one.
    expect(byToken.ok && byCookie.ok && byToken.found.session.id === byCookie.found.session.id).toBe(true);
  });

  it('is not set without TOKEN_COOKIE_NAME', async () => {
    await start();
    expect(setCookie(await postLogin({}), 'Token')).toBeUndefined();
  });

  it('signing out with only the Token cookie ends that session and clears it', async () => {
    await start({ TOKEN_COOKIE_NAME: 'Token' });
    const token = cookieValue(setCookie(await postLogin({}), 'Token'));
    const res = await http().get('/Logout').set('Cookie', `Token=${token}`);
    expect(res.status).toBe(303);
    expect(setCookie(res, 'Token')).toMatch(/^Token=;.*Expires=Thu, 01 Jan 1970/);
    await expect(app.services.sessions.checkToken(token)).resolves.toEqual({ ok: false, reason: 'revoked' });
  });

  it('PROFILE=isgweb sets it and honours ReturnPage', async () => {
    await start({ PROFILE: 'isgweb', SOAP_NAMESPACE: undefined, RESULT_FORMAT: undefined });
    const res = await postLogin({ ReturnPage: `${SHOP}/members` });
    expect(res.headers.location).toBe(`${SHOP}/members`);
    expect(setCookie(res, 'Token')).toBeDefined();
  });
});

describe('return addresses', () => {
  it('sends a partner registered for tokens the session token, and a plain partner none', async () => {
    await start();
    const withToken = await postLogin({ ReturnUrl: `${PORTAL}/welcome?lang=en&token=forged#top` });
    expect(withToken.status).toBe(303);
    const location = new URL(withToken.headers.location ?? '');
    expect(location.origin + location.pathname + location.hash).toBe(`${PORTAL}/welcome#top`);
    expect(location.searchParams.getAll('token')).toHaveLength(1);
    const token = location.searchParams.get('token') ?? '';
    await expect(app.services.sessions.checkToken(token)).resolves.toMatchObject({ ok: true });

    const plain = await postLogin({ ReturnUrl: `${SHOP}/cart` });
    expect(plain.headers.location).toBe(`${SHOP}/cart`);
  });

  it.each(['//evil.com', '/\\evil.com', 'https://evil.com/', 'https://portal.example.org.evil.com/', 'javascript:alert(1)'])(
    'refuses %s and goes to the default page',
    async (returnUrl) => {
      await start();
      expect((await postLogin({ ReturnUrl: returnUrl })).headers.location).toBe('/Login');
    },
  );

  it('reads returnUrl and ReturnPage too, from the query into the form', async () => {
    await start({ DEFAULT_RETURN_PATH: '/home' });
    for (const name of ['ReturnUrl', 'returnUrl', 'ReturnPage']) {
      const page = await http().get('/Login').query({ [name]: `${SHOP}/x?a=1&b=2` });
      expect(page.text).toContain('<input type="hidden" name="ReturnUrl" value="https:&#x2F;&#x2F;shop.example.org&#x2F;x?a&#x3D;1&amp;b&#x3D;2">');
    }
    expect((await postLogin({ ReturnPage: `${SHOP}/y` })).headers.location).toBe(`${SHOP}/y`);
    expect((await postLogin({})).headers.location).toBe('/home');
  });
});

describe('CSRF protection', () => {
  it.each([
    ['no token', (form: { cookie: string; csrf: string }) => ({ form: { ...form, csrf: '' } })],
    ['a wrong token', (form: { cookie: string; csrf: string }) => ({ form: { ...form, csrf: `${form.csrf.slice(0, -2)}AA` } })],
    ['no CSRF cookie', (form: { cookie: string; csrf: string }) => ({ form: { ...form, cookie: 'other=1' } })],
    ['another visitor\'s cookie', (form: { cookie: string; csrf: string }) => ({ form: { ...form, cookie: 'signin-csrf=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' } })],
    ['a foreign Origin', (form: { cookie: string; csrf: string }) => ({ form, origin: 'https://evil.com' })],
    ['Origin null', (form: { cookie: string; csrf: string }) => ({ form, origin: 'null' })],
  ])('refuses %s with 403, a clear page and no session', async (_what, tamper) => {
    await start();
    const before = await sessionsOfMember();
    const res = await postLogin({}, tamper(await openForm()));
    expect(res.status).toBe(403);
    expect(res.text).toContain('This sign-in form has expired');
    expect(res.text).toContain('href="&#x2F;Login"');
    expect(setCookie(res, '.ASPXAUTH')).toBeUndefined();
    await expect(sessionsOfMember()).resolves.toBe(before);
  });

  it('accepts the service\'s own Origin', async () => {
    await start();
    expect((await postLogin({}, { origin: app.baseUrl })).status).toBe(303);
  });

  it('keeps the nonce of a visitor who has one, so that forms open in other tabs stay valid', async () => {
    await start();
    const form = await openForm();
    const again = await http().get('/Login').set('Cookie', form.cookie);
    expect(setCookie(again, 'signin-csrf')).toBeUndefined();
    expect(again.text).toContain(`name="csrf" value="${form.csrf}"`);
  });
});

describe('failures', () => {
  it('re-renders the form with 401, the error tied to the field and summarised, the username kept, the password not', async () => {
    await start();
    const res = await postLogin({ login: 'ada"><b>', password: 'wrong-password' });
    expect(res.status).toBe(401);
    expect(res.text).toContain('<div class="error-summary" role="alert" aria-labelledby="error-summary-title">');
    expect(res.text).toContain('<a href="#password">The username, email address or password is not correct</a>');
    expect(res.text).toMatch(/<p class="error" id="password-error">.*The username, email address or password is not correct<\/p>/);
    expect(res.text).toContain('value="ada&quot;&gt;&lt;b&gt;" autocomplete="username"');
    expect(res.text).toMatch(/<input id="login"[^>]* aria-invalid="true" aria-describedby="password-error">/);
    expect(res.text).toMatch(/<input id="password"[^>]* aria-invalid="true" aria-describedby="password-error">/);
    expect(res.text).not.toContain('wrong-password');
    expect(res.text).toContain('<title>Error: Sign in');
  });

  it('gives an unknown user the very same page as a wrong password', async () => {
    await start();
    const form = await openForm();
    const unknown = await postLogin({ login: 'someone', password: 'x' }, { form });
    const wrong = await postLogin({ login: 'ada', password: 'x' }, { form });
    expect(wrong.status).toBe(unknown.status);
    const comparable = (html: string) => html.replace(/nonce="[^"]+"/, '').replace(/value="(someone|ada)"/, 'value=""');
    expect(comparable(wrong.text)).toBe(comparable(unknown.text));
  });

  it('asks for missing fields with 400, each error on its field', async () => {
    await start();
    const res = await postLogin({ login: ' ', password: '' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('<a href="#login">Enter your username or email address</a>');
    expect(res.text).toContain('<a href="#password">Enter your password</a>');
    expect(res.text).toMatch(/<input id="password"[^>]* aria-invalid="true" aria-describedby="password-error">/);
  });

  it('throttles with 429, Retry-After and a clear message', async () => {
    await start();
    await postLogin({ password: 'wrong-1' });
    await postLogin({ password: 'wrong-2' });
    const locked = await postLogin({ password: 'wrong-3' });
    expect(locked.status).toBe(429);
    expect(locked.headers['retry-after']).toBe('900');
    expect(locked.text).toContain('Too many failed attempts to sign in. Try again in 15 minutes.');
    const right = await postLogin({});
    expect(right.status).toBe(429);
    expect(setCookie(right, '.ASPXAUTH')).toBeUndefined();
  });
});

describe('the pages', () => {
  it('sends the security headers, on pages and redirects', async () => {
    await start();
    for (const res of [await http().get('/Login'), await postLogin({}), await http().get('/Logout'), await http().get('/')]) {
      const csp = res.headers['content-security-policy'] ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('script-src');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['referrer-policy']).toBe('same-origin');
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });

  it('answers the site root with a page that leads to the sign-in page and the endpoint\'s help page', async () => {
    await start({ BASE_PATH: '/iservices', ORGANIZATION_NAME: 'Guild of Makers' });
    const res = await http().get('/').expect(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('<title>Welcome – Guild of Makers</title>');
    expect(res.text).toContain('<h1>Guild of Makers</h1>');
    expect(res.text).toContain('<a class="button" href="&#x2F;Login">Sign in</a>');
    expect(res.text).toContain('<a href="&#x2F;iservices&#x2F;Authentication.asmx">Authentication web service</a>');
    const help = await http().get('/iservices/Authentication.asmx').expect(200);
    expect(help.text).toContain('The following operations are supported.');
    await http().get('/Login').expect(200);
    await http().get('/nothing-here').expect(404);
  });

  it('has an accessible form: language, labelled fields, autocomplete, a real button, a responsive viewport', async () => {
    await start();
    const res = await http().get('/Login');
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const html = res.text;
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(html).toContain('<label for="login">Username or email</label>');
    expect(html).toMatch(/<input id="login" name="login" type="text" value="" autocomplete="username"[^>]*required>/);
    expect(html).toContain('<label for="password">Password</label>');
    expect(html).toMatch(/<input id="password" name="password" type="password" autocomplete="current-password" required>/);
    expect(html).toContain('<label for="remember">Keep me signed in</label>');
    expect(html).toContain('<button type="submit">Sign in</button>');
    expect(html).toContain(':focus-visible');
    expect(html).not.toContain('role="alert"');
    expect(html).not.toMatch(/<script/i);
    const nonce = /nonce-([^']+)'/.exec(res.headers['content-security-policy'] ?? '')?.[1];
    expect(html).toContain(`<style nonce="${nonce}">`);
  });

  it('brands the page: organisation name in title and heading, logo, accent colour', async () => {
    await start({ ORGANIZATION_NAME: 'Guild of Makers', LOGO_URL: 'https://cdn.example.org/logo.png', ACCENT_COLOR: '#ffcc00' });
    const res = await http().get('/Login');
    expect(res.text).toContain('<title>Sign in – Guild of Makers</title>');
    expect(res.text).toContain('<h1>Sign in to Guild of Makers</h1>');
    expect(res.text).toContain('<img src="https:&#x2F;&#x2F;cdn.example.org&#x2F;logo.png" alt="">');
    // A light accent gets dark text on it, and dark links and focus rings.
    expect(res.text).toContain('--accent: #ffcc00; --on-accent: #000000; --ink: #1a1a1a;');
    expect(res.headers['content-security-policy']).toContain("img-src 'self' https://cdn.example.org;");
  });

  it('without ORGANIZATION_NAME, the title, heading and header leave the name out', async () => {
    await start();
    const res = await http().get('/Login');
    expect(res.text).toContain('<title>Sign in</title>');
    expect(res.text).toContain('<h1>Sign in</h1>');
    expect(res.text).toMatch(/<header class="brand">\s*<\/header>/);
  });

  it('escapes a hostile organisation name and member name', async () => {
    await start({ ORGANIZATION_NAME: '<script>alert("org")</script>' });
    await app.services.members.add({ id: 'evil', username: 'mallory', firstName: '<img src=x onerror=alert(1)>', lastName: '"&' });
    await app.store.setMemberPassword('evil', await hashPassword(PASSWORD), Date.now());
    const login = await http().get('/Login');
    expect(login.text).not.toContain('<script>');
    expect(login.text).toContain('&lt;script&gt;alert(&quot;org&quot;)&lt;&#x2F;script&gt;');
    const cookie = cookieValue(setCookie(await postLogin({ login: 'mallory' }), '.ASPXAUTH'));
    const page = await http().get('/Login').set('Cookie', `.ASPXAUTH=${cookie}`);
    expect(page.text).not.toContain('<img src=x');
    expect(page.text).toContain('&lt;img src&#x3D;x onerror&#x3D;alert(1)&gt; &quot;&amp;');
  });

  it('shows a signed-in visitor who they are and a sign-out button instead of the form', async () => {
    await start();
    const cookie = cookieValue(setCookie(await postLogin({}), '.ASPXAUTH'));
    const res = await http().get('/Login').query({ ReturnUrl: `${SHOP}/x` }).set('Cookie', `other=1; .ASPXAUTH=${cookie}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<strong>Ada Lovelace</strong>');
    expect(res.text).toMatch(/<form method="post" action="&#x2F;Logout">\s*<input type="hidden" name="ReturnUrl" value="https:&#x2F;&#x2F;shop.example.org&#x2F;x">\s*<button type="submit">Sign out<\/button>/);
    expect(res.text).not.toContain('name="password"');
  });

  it('shows the form again once the session has ended', async () => {
    await start();
    const cookie = cookieValue(setCookie(await postLogin({}), '.ASPXAUTH'));
    await app.services.sessions.revokeAllOf(REFERENCE.memberId);
    expect((await http().get('/Login').set('Cookie', `.ASPXAUTH=${cookie}`)).text).toContain('name="password"');
  });
});

describe('signing out', () => {
  it.each(['GET', 'POST'])('%s revokes the session, clears the cookie and returns without a token', async (method) => {
    await start();
    const signIn = await postLogin({});
    const cookie = cookieValue(setCookie(signIn, '.ASPXAUTH'));
    const { token } = (await app.services.sessions.checkCookie(cookie, '.example.org')) as { token: string };
    const res =
      method === 'GET'
        ? await http().get('/Logout').query({ ReturnUrl: `${PORTAL}/bye` }).set('Cookie', `.ASPXAUTH=${cookie}`)
        : await http().post('/Logout').type('form').set('Cookie', `.ASPXAUTH=${cookie}`).send({ ReturnUrl: `${PORTAL}/bye` });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(`${PORTAL}/bye`);
    const cleared = setCookie(res, '.ASPXAUTH') ?? '';
    expect(cleared).toMatch(/^\.ASPXAUTH=;/);
    expect(cleared).toContain('Domain=.example.org');
    expect(cleared).toContain('Path=/');
    expect(cleared).toContain('Expires=Thu, 01 Jan 1970 00:00:00 GMT');
    await expect(memberOfCookie(cookie, '.example.org')).resolves.toBe('');
    await expect(app.services.sessions.checkToken(token)).resolves.toEqual({ ok: false, reason: 'revoked' });
    expect(app.logLines).toContainEqual(expect.objectContaining({ message: 'sign-out', outcome: 'signed-out', client: '127.0.0.1' }));
  });

  it('without a session, or to a refused address, still clears the cookie and goes to the default page', async () => {
    await start();
    const res = await http().get('/Logout').query({ returnUrl: 'https://evil.com/' });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/Login');
    expect(setCookie(res, '.ASPXAUTH')).toMatch(/Expires=Thu, 01 Jan 1970/);
  });
});

describe('templates', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'signin-templates-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('a template in TEMPLATE_DIR replaces the built-in one of the same name; the others stay', async () => {
    await writeFile(join(dir, 'login.mustache'), '<p class="custom">Welcome to {{organizationName}}</p><input name="csrf" value="{{csrfToken}}">');
    await start({ TEMPLATE_DIR: dir, ORGANIZATION_NAME: 'A & B' });
    const res = await http().get('/Login');
    expect(res.text).toContain('<p class="custom">Welcome to A &amp; B</p>');
    expect(res.text).toContain('<html lang="en">');
    expect(res.text).not.toContain('name="password"');
  });

  it('a missing TEMPLATE_DIR stops the start with a clear message', async () => {
    const config = loadConfig({ TEMPLATE_DIR: join(dir, 'missing'), LOG_LEVEL: 'silent' });
    await start();
    const error = await withStore((store) => composeInstance({ config, store, secretKey: randomBytes(32) })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StartupError);
    expect((error as Error).message).toBe(`TEMPLATE_DIR ${join(dir, 'missing')}: no such directory`);
  });

  it('a template that does not parse stops the start', async () => {
    await writeFile(join(dir, 'message.mustache'), '{{#open}} never closed');
    const config = loadConfig({ TEMPLATE_DIR: dir, LOG_LEVEL: 'silent' });
    await start();
    await expect(withStore((store) => composeInstance({ config, store, secretKey: randomBytes(32) }))).rejects.toThrow(/message\.mustache/);
  });
});

describe('the host the pages answer for', () => {
  it('without PUBLIC_URL or ALLOWED_HOSTS, a forged Host gets no sign-in, no cookie and no redirect to its ReturnUrl', async () => {
    await start();
    const form = await openForm();
    const res = await http()
      .post('/Login')
      .set('Host', 'forged.example')
      .set('Origin', 'http://forged.example')
      .set('Cookie', form.cookie)
      .type('form')
      .send({ csrf: form.csrf, login: 'ada', password: PASSWORD, ReturnUrl: 'http://forged.example/collect' });
    expect(res.status).toBe(400);
    expect(res.headers.location).toBeUndefined();
    expect(setCookie(res, '.ASPXAUTH')).toBeUndefined();
    expect(res.text).toContain('PUBLIC_URL or ALLOWED_HOSTS');
    expect((await http().get('/Login').set('Host', 'forged.example')).status).toBe(400);
  });

  it('with ALLOWED_HOSTS, the pages answer for a listed host and every request for another is refused', async () => {
    await start({ ALLOWED_HOSTS: 'members.example.org' });
    expect((await http().get('/Login').set('Host', 'members.example.org')).status).toBe(200);
    const refused = await http().get('/Login').set('Host', 'forged.example');
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('Bad Request - Invalid Hostname');
    expect((await http().get('/Authentication.asmx?wsdl').set('Host', 'forged.example')).status).toBe(400);
    expect((await http().get('/healthz').set('Host', '10.1.2.3:8080')).status).toBe(200);
  });
});
