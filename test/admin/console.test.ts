/**
 * The staff console over HTTP: who gets in (staff, signed in with a second factor; 403 for anyone else), the
 * search, a member's page, and the actions: each behind a confirmation page whose POST needs the CSRF proof and
 * the service's own origin.
 */
import { formOf, PageClient, unescapeHtml, type Page } from '../helpers/page-client.js';
import { BOB, REFERENCE } from '../helpers/reference-data.js';
import { confirmedFactor, STEP } from '../helpers/second-factor.js';
import { CALL } from '../helpers/call-context.js';
import { runWith } from '../helpers/cli-harness.js';
import { ConsoleApp, PASSWORD } from './console-app.js';

const harness = new ConsoleApp();

const text = (page: Page) => unescapeHtml(page.text);
const liveSessionsOfAda = async () => (await harness.app.services.sessions.list({ memberId: REFERENCE.memberId })).length;

describe('who gets in', () => {
  it('without a session: the sign-in page, which comes back to the page asked for', async () => {
    const res = await new PageClient(harness.app.baseUrl).get('/Admin/member?id=member-42');
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/Login?ReturnUrl=%2FAdmin%2Fmember%3Fid%3Dmember-42');
  });

  it('a member who is not staff: 403, a page in the layout with the member pages\' security headers', async () => {
    const visitor = new PageClient(harness.app.baseUrl);
    await visitor.signIn('ada', PASSWORD);
    for (const path of ['/Admin', '/admin/member?id=member-7', '/Admin/confirm?id=member-7&action=disable']) {
      const page = await visitor.get(path);
      expect(page.status).toBe(403);
      expect(page.text).toContain('<h1>Staff only</h1>');
      expect(page.headers['content-security-policy']).toContain("default-src 'none'");
      expect(page.headers['x-frame-options']).toBe('DENY');
      expect(page.headers['cache-control']).toBe('no-store');
    }
    const refused = await visitor.post('/Admin/action', { id: BOB.id, action: 'disable' });
    expect(refused.status).toBe(403);
    expect((await harness.app.services.members.get(BOB.id)).enabled).toBe(true);
    expect(harness.app.logLines).toContainEqual(expect.objectContaining({ message: 'staff console refused', outcome: 'not-staff', member: REFERENCE.memberId }));
  });

  it('staff without a second factor: 403, led to set one up; staff who set it up after signing in: asked to sign in again', async () => {
    await harness.app.services.staff.grant(BOB.id, 'admin');
    const visitor = new PageClient(harness.app.baseUrl);
    await visitor.signIn('bob', PASSWORD);
    const none = await visitor.get('/Admin');
    expect(none.status).toBe(403);
    expect(text(none)).toContain('<a href="/Account/two-step">Set up two-step verification</a>');
    harness.now += STEP;
    await confirmedFactor(harness.app.services, BOB.id, harness.now);
    const later = await visitor.get('/Admin');
    expect(later.status).toBe(403);
    expect(later.text).toContain('<h1>Sign in again with your code</h1>');
  });

  it('staff who signed in with a passkey and have no app code get in: a passkey is two factors', async () => {
    await harness.app.services.staff.grant(BOB.id, 'support');
    const visitor = new PageClient(harness.app.baseUrl);
    await visitor.signIn('bob', PASSWORD);
    expect((await visitor.get('/Admin')).status).toBe(403);
    const [session] = await harness.app.services.sessions.list({ memberId: BOB.id });
    await harness.app.store.createPasskey({
      id: 'credential-of-bob',
      memberId: BOB.id,
      publicKey: 'public-key',
      counter: 0,
      transports: ['internal'],
      deviceType: 'multiDevice',
      backedUp: true,
      name: 'Phone',
      createdAt: harness.now,
      lastUsedAt: null,
    });
    await harness.app.store.recordPasskeySession(session!.id, 'credential-of-bob');
    expect((await visitor.get('/Admin')).status).toBe(200);
  });

  it('a revoked role stops working at the next request', async () => {
    const visitor = await harness.staffVisitor();
    expect((await visitor.get('/Admin')).status).toBe(200);
    await harness.app.services.staff.revoke(BOB.id);
    expect((await visitor.get('/Admin')).status).toBe(403);
  });
});

describe('finding a member', () => {
  it('by id, username, email or name, ignoring case; each found links to its page', async () => {
    const visitor = await harness.staffVisitor();
    for (const query of ['member-42', 'ADA', 'Ada@Example.org', 'lovelace', 'ada lovelace']) {
      const page = await visitor.get(`/Admin?q=${encodeURIComponent(query)}`);
      expect(page.status).toBe(200);
      expect(text(page)).toContain('<h2 id="results-title">1 member found</h2>');
      expect(text(page)).toContain('<a href="/Admin/member?id=member-42"><strong>Ada Lovelace</strong></a>');
    }
    const none = await visitor.get('/Admin?q=nobody');
    expect(none.text).toContain('No member found');
  });

  it('a member\'s page shows the profile, the status, the second factor and the live sessions', async () => {
    const visitor = await harness.staffVisitor();
    const page = await visitor.get('/Admin/member?id=member-42');
    expect(page.status).toBe(200);
    const html = text(page);
    expect(html).toContain('<h1>Ada Lovelace</h1>');
    expect(html).toContain('<dd class="mono">member-42</dd>');
    expect(html).toContain('<dd>ada@example.org</dd>');
    expect(html).toContain('<span class="tag tag-on">Enabled</span>');
    expect(html).toContain('<h2 id="sessions-title">Signed in now</h2>');
    expect(html).toMatch(/<p><strong>Since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC<\/strong><\/p>/);
    expect(html).toContain('<a class="button secondary" href="/Admin/confirm?id=member-42&action=sign-out-everywhere">Sign out everywhere</a>');
    expect((await visitor.get('/Admin/member?id=ghost')).status).toBe(404);
  });
});

describe('what a session came through', () => {
  /** The member's page's sessions, each as its three lines read: since, from, through (and the sites reached). */
  const sessionsOnPage = async (visitor: PageClient) => {
    const html = text(await visitor.get('/Admin/member?id=member-42'));
    return [...html.matchAll(/<li>\s*<p><strong>Since [^<]*<\/strong><\/p>\s*<p>From ([^<]*)<\/p>\s*<p>Through ([^<]*)<\/p>\s*(?:<p>Signed in to ([^<]*)<\/p>)?/g)].map(
      ([, from, through, reached]) => ({ from, through, reached }),
    );
  };

  it('the partner whose AuthenticateUser call opened it, the sign-in page, or a session older than the record of it', async () => {
    const visitor = await harness.staffVisitor();
    const call = await harness.app.services.authentication.authenticateUser({ securityPassword: REFERENCE.password, username: 'ada', password: PASSWORD, authenticationToken: null }, CALL);
    expect(call.kind).toBe('member');
    harness.now += 1000;
    await new PageClient(harness.app.baseUrl).signIn('ada', PASSWORD);
    expect(await sessionsOnPage(visitor)).toEqual([
      { from: expect.stringMatching(/^Not known, Not known\. Last seen /), through: 'a way not recorded (the session is older than the record of it).', reached: undefined },
      expect.objectContaining({ through: 'the partner reference-client (its call signed the member in).' }),
      { from: expect.stringMatching(/^127\.0\.0\.1, Firefox on Linux\. /), through: 'the sign-in page.', reached: undefined },
    ]);
  });

  it('the sign-in page for an OpenID client or a SAML SP, by its name', async () => {
    const visitor = await harness.staffVisitor();
    await harness.app.services.sessions.revokeAllOf(REFERENCE.memberId);
    for (const through of [{ kind: 'oidc-client', name: 'Learning' }, { kind: 'saml-sp', name: 'Journal' }] as const) {
      harness.now += 1000;
      await harness.app.services.sessions.create(REFERENCE.memberId, 'example.org', {}, { through });
    }
    expect((await sessionsOnPage(visitor)).map((session) => session.through)).toEqual(['the sign-in page, for the OpenID site Learning.', 'the sign-in page, for the SAML site Journal.']);
  });
});

describe('actions', () => {
  it('sign out everywhere: a confirmation, then a POST with the proof ends every session of the member', async () => {
    const visitor = await harness.staffVisitor();
    expect(await liveSessionsOfAda()).toBe(1);
    const confirm = await visitor.get('/Admin/confirm?id=member-42&action=sign-out-everywhere');
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('<h1>Sign out everywhere: Ada Lovelace?</h1>');
    expect(await liveSessionsOfAda()).toBe(1);
    const done = await visitor.submit(confirm, {});
    expect(done.status).toBe(303);
    expect(done.headers.location).toBe('/Admin/member?id=member-42&done=sign-out-everywhere');
    expect(await liveSessionsOfAda()).toBe(0);
    const page = await visitor.get(done.headers.location ?? '');
    expect(page.text).toContain('<p class="notice" role="status">The member has been signed out everywhere.</p>');
    expect(harness.app.logLines).toContainEqual(expect.objectContaining({ message: 'staff action', outcome: 'done', action: 'sign-out-everywhere', member: REFERENCE.memberId, staff: BOB.id }));
    const [ended] = await harness.app.services.events.list({ memberId: REFERENCE.memberId, type: 'sessions-ended' });
    expect(ended).toMatchObject({ actor: { kind: 'staff', id: BOB.id }, clientAddress: '127.0.0.1', device: 'Firefox on Linux', outcome: '1', reason: 'ended-by-staff' });
    // The member's page shows it in the history, with the staff member as who did it.
    expect(text(page)).toMatch(/<td>Sessions ended<\/td><td>ended-by-staff · 1<\/td><td>127\.0\.0\.1, Firefox on Linux<\/td><td><\/td><td>staff member-7<\/td>/);
  });

  it('refuses a POST without the proof, with a wrong one, or from another origin (403), and does nothing', async () => {
    const visitor = await harness.staffVisitor();
    const confirm = await visitor.get('/Admin/confirm?id=member-42&action=disable');
    const form = formOf(confirm.text);
    const attempts = [
      visitor.post(form.action, { id: REFERENCE.memberId, action: 'disable' }),
      visitor.post(form.action, { ...form.hidden, csrf: 'x'.repeat(form.hidden.csrf?.length ?? 43) }),
      visitor.post(form.action, form.hidden, { Origin: 'https://evil.example.net' }),
    ];
    for (const refused of await Promise.all(attempts)) expect(refused.status).toBe(403);
    // Without the staff member's session, the sign-in page first.
    expect((await new PageClient(harness.app.baseUrl).post(form.action, form.hidden)).status).toBe(303);
    expect((await harness.app.services.members.get(REFERENCE.memberId)).enabled).toBe(true);
    expect(harness.app.logLines.filter((line) => line.outcome === 'refused:csrf')).toHaveLength(3);
  });

  it('disable, then enable: each offered only when it applies', async () => {
    const visitor = await harness.staffVisitor();
    expect((await visitor.submit(await visitor.get('/Admin/confirm?id=member-42&action=disable'), {})).status).toBe(303);
    expect((await harness.app.services.members.get(REFERENCE.memberId)).enabled).toBe(false);
    const page = await visitor.get('/Admin/member?id=member-42');
    expect(text(page)).not.toContain('action=disable');
    expect(text(page)).toContain('action=enable');
    const again = await visitor.submit(await visitor.get('/Admin/confirm?id=member-42&action=disable'), {});
    expect(again.headers.location).toBe('/Admin/member?id=member-42&problem=not-offered');
    expect((await visitor.submit(await visitor.get('/Admin/confirm?id=member-42&action=enable'), {})).status).toBe(303);
    expect((await harness.app.services.members.get(REFERENCE.memberId)).enabled).toBe(true);
    // As the admin reads them: `events list --json`, newest first, the staff member as actor.
    const listed = await runWith({ config: () => harness.app.config, withServices: (fn) => fn(harness.app.services) }, 'events', 'list', '--member', REFERENCE.memberId, '--json');
    const byStaff = (JSON.parse(listed.stdout) as Array<{ type: string; actor: { kind: string; id?: string } }>).filter((event) => event.actor.kind === 'staff');
    expect(byStaff.map((event) => [event.type, event.actor.id])).toEqual([
      ['member-enabled', BOB.id],
      ['member-disabled', BOB.id],
    ]);
  });

  it('reset the second factor removes the member\'s factor', async () => {
    await confirmedFactor(harness.app.services, REFERENCE.memberId, harness.now);
    const visitor = await harness.staffVisitor();
    expect((await visitor.submit(await visitor.get('/Admin/confirm?id=member-42&action=reset-second-factor'), {})).status).toBe(303);
    expect(await harness.app.services.secondFactor.isEnabled(REFERENCE.memberId)).toBe(false);
  });
});
