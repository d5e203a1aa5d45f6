/**
 * Passkeys over HTTP, where no browser is needed to refuse: the options' CSRF check and address, what the answer's
 * form may hold (malformed or oversized JSON, an unknown credential, no ceremony), the account page's recent sign-in
 * rule, the scripts' cache, and the pages at an IP address, which offer no passkeys. The browser's own ceremonies
 * are test/browser/passkeys.test.ts.
 */
import { cookieHeader, postForm } from '../helpers/form-post.js';
import { adaAndBobWithPassword, REFERENCE } from '../helpers/reference-data.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const PASSWORD = 'correct horse battery staple';

let app: TestApp;
let now = Date.now();
beforeAll(async () => {
  app = await startTestApp({ clock: () => now });
  await adaAndBobWithPassword(app.services, PASSWORD);
});
afterAll(() => app?.close());

/** The service at localhost, where passkeys can be used (the test app listens on 127.0.0.1). */
const origin = () => `http://localhost:${app.port}`;

function post(path: string, fields: Record<string, string>, cookie: string, at = origin()): Promise<Response> {
  return postForm(at, path, fields, cookie);
}

/** A page's HTML with the entities Mustache writes in attributes read back. */
const unescaped = (html: string) => html.replaceAll('&#x2F;', '/').replaceAll('&#x3D;', '=').replaceAll('&amp;', '&');

/** A page's CSRF proof and the nonce cookie that goes with it. */
async function formOf(path: string, cookie = '', at = origin()): Promise<{ csrf: string; cookie: string; html: string }> {
  const res = await fetch(`${at}${path}`, { headers: { Cookie: cookie } });
  const html = unescaped(await res.text());
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  return { csrf, cookie: [cookie, cookieHeader(res)].filter(Boolean).join('; '), html };
}

/** A sign-in ceremony begun: the CSRF proof, and the cookies (CSRF nonce and ceremony nonce). */
async function ceremony(): Promise<{ csrf: string; cookie: string; options: { challenge: string; rpId: string; userVerification: string } }> {
  const form = await formOf('/Login');
  const res = await post('/Login/passkey/options', { csrf: form.csrf }, form.cookie);
  expect(res.status).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
  const { options } = (await res.json()) as { options: { challenge: string; rpId: string; userVerification: string } };
  return { csrf: form.csrf, cookie: `${form.cookie}; ${cookieHeader(res)}`, options };
}

async function signedInAda(): Promise<string> {
  const form = await formOf('/Login');
  const res = await post('/Login', { csrf: form.csrf, login: 'ada', password: PASSWORD }, form.cookie);
  expect(res.status).toBe(303);
  return cookieHeader(res);
}

const failures = async () => (await app.services.events.list({ type: 'signin-failed' })).map((event) => event.reason);

describe('signing in with a passkey, over HTTP', () => {
  it('offers options for a user-verified passkey of this relying party, under the sign-in form\'s CSRF check', async () => {
    const { options, cookie } = await ceremony();
    expect(options).toMatchObject({ rpId: 'localhost', userVerification: 'required' });
    expect(cookie).toMatch(/passkey-signin=[A-Za-z0-9_-]{43}/);
    const forged = await post('/Login/passkey/options', { csrf: 'forged' }, '');
    expect(forged.status).toBe(403);
    expect(await forged.json()).toEqual({ error: 'For your security, the page could not be checked. Reload it and try again.' });
  });

  it('offers nothing at an IP address, where browsers refuse passkeys: no scripts, no script-src, no button', async () => {
    const page = await fetch(`${app.baseUrl}/Login`);
    const html = await page.text();
    expect(html).not.toContain('<script');
    expect(html).not.toContain('passkey');
    expect(page.headers.get('content-security-policy')).not.toContain('script-src');
    const form = await formOf('/Login', '', app.baseUrl);
    const res = await post('/Login/passkey/options', { csrf: form.csrf }, form.cookie, app.baseUrl);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'Passkeys cannot be used at this address.' });
  });

  it('at localhost, loads the scripts under the page\'s nonce, which are cached for a year', async () => {
    const page = await fetch(`${origin()}/Login`);
    const html = unescaped(await page.text());
    const csp = page.headers.get('content-security-policy') ?? '';
    const nonce = /script-src 'nonce-([^']+)'; connect-src 'self';/.exec(csp)?.[1];
    expect(nonce).toBeDefined();
    const scripts = [...html.matchAll(/<script nonce="([^"]+)" src="([^"]+)" defer><\/script>/g)];
    expect(scripts.map(([, scriptNonce]) => scriptNonce)).toEqual([nonce, nonce]);
    expect(html).toContain('autocomplete="username webauthn"');
    for (const [, , src] of scripts) {
      const res = await fetch(`${origin()}${src}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    }
    expect(await (await fetch(`${origin()}${scripts[0]![2]}`)).text()).toContain('SimpleWebAuthnBrowser');
  });

  it('refuses an answer that is not JSON, or JSON of anything but an object, whatever its size, within the form limit', async () => {
    for (const response of ['', 'not json', '[1,2]', '"text"', 'null', '{"id":', '{'.repeat(4000)]) {
      const { csrf, cookie } = await ceremony();
      const res = await post('/Login/passkey', { csrf, response }, cookie);
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('What the browser sent for the passkey could not be read');
    }
    const { csrf, cookie } = await ceremony();
    const huge = await post('/Login/passkey', { csrf, response: JSON.stringify({ id: 'a'.repeat(200_000) }) }, cookie);
    expect(huge.status).toBe(413);
  });

  it('refuses an answer naming no stored passkey, or one of any shape the checks refuse, counting each as a failure', async () => {
    const answers = [{ id: 'bm90LWEtcGFzc2tleQ', rawId: 'bm90LWEtcGFzc2tleQ', type: 'public-key', response: {} }, { id: 12 }, { id: '!!' }, { response: { userHandle: 'x' } }];
    for (const answer of answers) {
      const { csrf, cookie } = await ceremony();
      const res = await post('/Login/passkey', { csrf, response: JSON.stringify(answer) }, cookie);
      expect(res.status).toBe(401);
      expect(await res.text()).toContain('This passkey is not known here');
      expect(cookieHeader(res)).not.toContain('.ASPXAUTH=');
    }
    expect((await failures()).filter((reason) => reason === 'passkey-unknown-passkey')).toHaveLength(answers.length);
  });

  it('refuses an answer without its ceremony (no nonce, a nonce of another browser, one taken already), before reading it', async () => {
    const { csrf, cookie } = await ceremony();
    const withoutNonce = cookie.split('; ').filter((pair) => !pair.startsWith('passkey-signin=')).join('; ');
    const response = JSON.stringify({ id: 'bm90LWEtcGFzc2tleQ' });
    for (const sent of [withoutNonce, `${withoutNonce}; passkey-signin=${'A'.repeat(43)}`]) {
      const res = await post('/Login/passkey', { csrf, response }, sent);
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('Signing in with the passkey took too long, or the page was too old');
    }
    expect((await post('/Login/passkey', { csrf, response }, cookie)).status).toBe(401);
    expect((await post('/Login/passkey', { csrf, response }, cookie)).status).toBe(400);
  });

  it('refuses a ceremony five minutes old', async () => {
    const { csrf, cookie } = await ceremony();
    now += 5 * 60_000;
    const res = await post('/Login/passkey', { csrf, response: JSON.stringify({ id: 'bm90LWEtcGFzc2tleQ' }) }, cookie);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('took too long');
  });

  it('refuses an answer without the sign-in form\'s CSRF proof, or from another origin', async () => {
    const { csrf, cookie } = await ceremony();
    const forged = await post('/Login/passkey', { csrf: 'forged', response: '{}' }, cookie);
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain('could not be read');
    const crossSite = await fetch(`${origin()}/Login/passkey`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'https://elsewhere.example', Cookie: cookie },
      body: new URLSearchParams({ csrf, response: '{"id":"eA"}' }).toString(),
    });
    expect(crossSite.status).toBe(400);
    // Refused before the service took the ceremony: it still answers, once, from the service's own origin.
    expect((await post('/Login/passkey', { csrf, response: '{"id":"eA"}' }, cookie)).status).toBe(401);
  });
});

describe('adding a passkey on the account page, over HTTP', () => {
  it('asks for a recent sign-in: options and the form are refused ten minutes after it, the page says to sign in again', async () => {
    const session = await signedInAda();
    const account = await formOf('/Account', session);
    expect(account.html).toContain('Add a passkey');
    const fresh = await post('/Account/passkeys/options', { csrf: account.csrf }, account.cookie);
    expect(fresh.status).toBe(200);
    const { options } = (await fresh.json()) as { options: { user: { id: string }; authenticatorSelection: object; rp: object } };
    expect(options.user.id).toBe(Buffer.from(REFERENCE.memberId).toString('base64url'));
    expect(options.authenticatorSelection).toMatchObject({ residentKey: 'required', userVerification: 'required' });
    expect(options.rp).toEqual({ id: 'localhost', name: 'Member sign-in' });

    now += 10 * 60_000 + 1;
    const later = await formOf('/Account', session);
    expect(later.html).not.toContain('Add a passkey</button>');
    expect(later.html).toContain(`href="/Login?ReturnUrl=%2FAccount&prompt=login">Sign in again to add a passkey</a>`);
    const stale = await post('/Account/passkeys/options', { csrf: later.csrf }, later.cookie);
    expect(stale.status).toBe(403);
    const added = await post('/Account/passkeys/add', { csrf: later.csrf, response: '{"id":"x"}' }, `${later.cookie}; ${cookieHeader(fresh)}`);
    expect(added.status).toBe(400);
    expect(await added.text()).toContain('adding a passkey needs a fresh sign-in');
    expect(await app.services.passkeys.list(REFERENCE.memberId)).toEqual([]);
  });

  it('renames and removes only the member\'s own passkeys, refusing an empty or too long name', async () => {
    await app.store.createPasskey({ id: 'Y3JlZA', memberId: REFERENCE.memberId, publicKey: 'cGs', counter: 0, transports: [], deviceType: 'multiDevice', backedUp: true, name: 'Phone', createdAt: now, lastUsedAt: null });
    const session = await signedInAda();
    const page = await formOf('/Account', session);
    expect(page.html).toContain('<strong>Phone</strong> <span class="tag">Synced</span>');
    expect((await post('/Account/passkeys/rename', { csrf: page.csrf, passkey: 'Y3JlZA', name: '  ' }, page.cookie)).status).toBe(400);
    const long = await post('/Account/passkeys/rename', { csrf: page.csrf, passkey: 'Y3JlZA', name: 'x'.repeat(61) }, page.cookie);
    expect(long.status).toBe(400);
    expect(await long.text()).toContain('<a href="#passkey-name-1">A passkey&#39;s name can have at most 60 characters</a>');
    const renamed = await post('/Account/passkeys/rename', { csrf: page.csrf, passkey: 'Y3JlZA', name: ' Work   phone ' }, page.cookie);
    expect(renamed.headers.get('location')).toBe('/Account?done=passkey-renamed');
    expect((await app.services.passkeys.list(REFERENCE.memberId))[0]?.name).toBe('Work phone');

    const bob = await formOf('/Login');
    const bobSession = cookieHeader(await post('/Login', { csrf: bob.csrf, login: 'bob', password: PASSWORD }, bob.cookie));
    const bobPage = await formOf('/Account', bobSession);
    expect((await post('/Account/passkeys/remove', { csrf: bobPage.csrf, passkey: 'Y3JlZA' }, bobPage.cookie)).status).toBe(400);
    expect((await post('/Account/passkeys/remove', { csrf: page.csrf, passkey: 'Y3JlZA' }, page.cookie)).headers.get('location')).toBe('/Account?done=passkey-removed');
    expect(await app.services.passkeys.list(REFERENCE.memberId)).toEqual([]);
    const [removed] = await app.services.events.list({ type: 'passkey-removed' });
    expect(removed).toMatchObject({ memberId: REFERENCE.memberId, actor: { kind: 'member', id: REFERENCE.memberId } });
  });
});
