/**
 * The staff console's forms that add an OpenID client and a SAML SP over HTTP: the CLI's options as fields, each
 * problem said on its field, a confirmation, a CSRF-checked POST, the client's secret shown once and never
 * logged, and an event with the admin as actor.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { formOf, PageClient, unescapeHtml, type Page } from '../helpers/page-client.js';
import { BOB } from '../helpers/reference-data.js';
import { spMetadata } from '../helpers/sp-metadata.js';
import { ConsoleApp } from './console-app.js';

const harness = new ConsoleApp();

const text = (page: Page) => unescapeHtml(page.text);

/** Opens a site's form from the management page and posts it with these fields: the confirmation, or the form again. */
async function reviewed(visitor: PageClient, kind: 'oidc-client' | 'saml-sp', fields: Record<string, string>): Promise<Page> {
  const manage = await visitor.get('/Admin/manage');
  expect(text(manage)).toContain(`href="/Admin/manage/add?kind=${kind}"`);
  const form = await visitor.get(`/Admin/manage/add?kind=${kind}`);
  expect(form.status).toBe(200);
  return visitor.submit(form, fields);
}

describe('an OpenID client', () => {
  it('is added after its confirmation: its client id, and its secret shown once, never logged; recorded with the admin as actor', async () => {
    const admin = await harness.staffVisitor('admin');
    const confirm = await reviewed(admin, 'oidc-client', {
      name: 'Learning',
      redirectUris: 'https://learn.example.org/callback\r\nhttps://learn.example.org/other',
      postLogoutRedirectUris: 'https://learn.example.org/',
      firstParty: 'yes',
    });
    expect(confirm.status).toBe(200);
    expect(text(confirm)).toContain('<h1>Add the OpenID client?</h1>');
    expect(text(confirm)).toContain('Learning can sign members in with OpenID Connect, sending them back to https://learn.example.org/callback, https://learn.example.org/other');
    expect(await harness.app.services.oidc.clients.list()).toEqual([]);
    const added = await admin.submit(confirm, {});
    expect(added.status).toBe(200);
    expect(added.headers['cache-control']).toBe('no-store');
    const client = await harness.app.services.oidc.clients.get('Learning');
    expect(client).toMatchObject({ redirectUris: ['https://learn.example.org/callback', 'https://learn.example.org/other'], postLogoutRedirectUris: ['https://learn.example.org/'], firstParty: true });
    expect(text(added)).toContain(`<dd class="mono">${client.id}</dd>`);
    const secret = unescapeHtml(/<input id="issued" type="text" value="([^"]+)"/.exec(added.text)?.[1] ?? '');
    expect(harness.app.services.oidc.clients.secretMatches(client.secretHash ?? '', secret)).toBe(true);
    expect(JSON.stringify(harness.app.logLines)).not.toContain(secret);
    expect(harness.app.logLines).toContainEqual(expect.objectContaining({ message: 'staff action', outcome: 'done', action: 'oidc-client-add', name: 'Learning', staff: BOB.id }));
    const [event] = await harness.app.services.events.list({ type: 'site-added' });
    expect(event).toMatchObject({ actor: { kind: 'staff', id: BOB.id }, via: 'Learning', outcome: 'oidc-client', clientAddress: '127.0.0.1' });
    expect(JSON.stringify(event)).not.toContain(secret);
  });

  it('a public client gets no secret', async () => {
    const admin = await harness.staffVisitor('admin');
    const added = await admin.submit(await reviewed(admin, 'oidc-client', { name: 'App', redirectUris: 'https://app.example.org/cb', public: 'yes' }), {});
    expect(added.status).toBe(200);
    expect(added.text).not.toContain('id="issued"');
    expect((await harness.app.services.oidc.clients.get('App')).secretHash).toBeNull();
  });

  it('says each problem on its field, keeping what was typed, and adds nothing', async () => {
    const admin = await harness.staffVisitor('admin');
    const form = await reviewed(admin, 'oidc-client', { name: ' ', redirectUris: 'https://learn.example.org/cb\nlearn.example.org', backchannelLogoutUri: 'https://learn.example.org/bc#x' });
    expect(form.status).toBe(400);
    const html = text(form);
    expect(html).toContain('<h2 id="error-summary-title">There is a problem</h2>');
    expect(html).toContain('<li><a href="#site-name">Enter the client\'s name.</a></li>');
    expect(html).toMatch(/<li><a href="#site-redirectUris">learn\.example\.org [^<]+<\/a><\/li>/);
    expect(html).toMatch(/<li><a href="#site-backchannelLogoutUri">https:\/\/learn\.example\.org\/bc#x [^<]+<\/a><\/li>/);
    expect(html).toContain('<textarea id="site-redirectUris" name="redirectUris" rows="4" autocapitalize="none" spellcheck="false" aria-invalid="true" aria-describedby="site-redirectUris-hint site-redirectUris-error">https://learn.example.org/cb\nlearn.example.org</textarea>');
    expect(html).toContain('<p class="error" id="site-name-error"><span class="visually-hidden">Error:</span> Enter the client\'s name.</p>');
    expect(await harness.app.services.oidc.clients.list()).toEqual([]);
  });

  it('a name taken: the form again, the problem on the name', async () => {
    const admin = await harness.staffVisitor('admin');
    await harness.app.services.oidc.clients.add('Learning', { redirectUris: ['https://learn.example.org/cb'] });
    const again = await admin.submit(await reviewed(admin, 'oidc-client', { name: 'Learning', redirectUris: 'https://other.example.org/cb' }), {});
    expect(again.status).toBe(409);
    expect(text(again)).toMatch(/<li><a href="#site-name">[^<]*Learning: choose another name\.<\/a><\/li>/);
    expect((await harness.app.services.oidc.clients.list()).map((client) => client.redirectUris)).toEqual([['https://learn.example.org/cb']]);
  });

  it('refuses a POST without the CSRF proof or from another origin, and support staff (403)', async () => {
    const admin = await harness.staffVisitor('admin');
    const confirm = await reviewed(admin, 'oidc-client', { name: 'Learning', redirectUris: 'https://learn.example.org/cb' });
    const { csrf: _csrf, ...withoutProof } = formOf(confirm.text).hidden;
    expect((await admin.post('/Admin/manage/add', withoutProof)).status).toBe(403);
    expect((await admin.post('/Admin/manage/add', formOf(confirm.text).hidden, { Origin: 'https://evil.example.net' })).status).toBe(403);
    await harness.app.services.staff.grant(BOB.id, 'support');
    expect((await admin.get('/Admin/manage/add?kind=oidc-client')).status).toBe(403);
    expect((await admin.post('/Admin/manage/add', formOf(confirm.text).hidden)).status).toBe(403);
    expect(await harness.app.services.oidc.clients.list()).toEqual([]);
  });
});

describe('a SAML site', () => {
  it('is added from its metadata pasted, with the choices made, after a confirmation that says what it registers', async () => {
    const admin = await harness.staffVisitor('admin');
    const confirm = await reviewed(admin, 'saml-sp', {
      name: 'Events',
      metadata: spMetadata('https://events.example.org/sp', { encryption: false }),
      nameIdFormat: 'emailAddress',
      attributes: 'mail=email\nmemberId=id',
      sign: 'assertion',
    });
    expect(confirm.status).toBe(200);
    const said = text(confirm);
    expect(said).toContain('Events (entity id https://events.example.org/sp) can sign members in with SAML 2.0: named to it emailAddress, given mail, memberId; the assertion signed, assertions not encrypted, unsigned requests taken.');
    expect(said).toContain('Note: the metadata has no encryption certificate');
    const added = await admin.submit(confirm, {});
    expect(added.status).toBe(200);
    expect(text(added)).toContain('<dd class="mono">https://events.example.org/sp</dd>');
    expect(text(added)).toContain('<li>the metadata has no encryption certificate: assertions are sent signed, not encrypted</li>');
    const sp = await harness.app.services.saml.sps.find('Events');
    expect(sp?.metadataXml).toBe(spMetadata('https://events.example.org/sp', { encryption: false }));
    expect(sp?.settings).toMatchObject({
      nameIdFormat: 'emailAddress',
      attributes: [{ name: 'mail', nameFormat: 'basic', field: 'email' }, { name: 'memberId', nameFormat: 'basic', field: 'id' }],
      signResponse: false,
      signAssertion: true,
      encryptAssertion: false,
    });
    const [event] = await harness.app.services.events.list({ type: 'site-added' });
    expect(event).toMatchObject({ actor: { kind: 'staff', id: BOB.id }, via: 'Events', outcome: 'saml-sp' });
    // Removed from the management page: recorded too.
    const removed = await admin.submit(await admin.get('/Admin/manage/confirm?action=saml-sp-remove&name=Events'), {});
    expect(removed.status).toBe(303);
    expect((await harness.app.services.events.list({ type: 'site-removed' }))[0]).toMatchObject({ actor: { kind: 'staff', id: BOB.id }, via: 'Events', outcome: 'saml-sp' });
  });

  it('is added from its metadata at a URL, fetched once, at the review', async () => {
    let fetched = 0;
    const server: Server = createServer((_, res) => {
      fetched += 1;
      res.end(spMetadata('https://forum.example.org/sp'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const admin = await harness.staffVisitor('admin');
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/Shibboleth.sso/Metadata`;
      const confirm = await reviewed(admin, 'saml-sp', { name: 'Forum', metadataUrl: url });
      expect(confirm.status).toBe(200);
      expect((await admin.submit(confirm, {})).status).toBe(200);
      expect(fetched).toBe(1);
      expect((await harness.app.services.saml.sps.find('Forum'))?.entityId).toBe('https://forum.example.org/sp');
    } finally {
      server.close();
    }
  });

  it('says what is wrong with the metadata, an attribute or a missing document, on its field', async () => {
    const admin = await harness.staffVisitor('admin');
    const neither = await reviewed(admin, 'saml-sp', { name: 'Events' });
    expect(neither.status).toBe(400);
    expect(text(neither)).toContain('<li><a href="#site-metadataUrl">Give the metadata URL or paste the metadata document: one of them.</a></li>');
    const broken = await reviewed(admin, 'saml-sp', { name: 'Events', metadata: '<md:EntityDescriptor', attributes: 'mail=colour' });
    expect(broken.status).toBe(400);
    expect(text(broken)).toMatch(/<li><a href="#site-metadata">the metadata is refused: [^<]+<\/a><\/li>/);
    expect(text(broken)).toContain('<li><a href="#site-attributes">mail=colour is not NAME=FIELD, FIELD one of id, username, email, firstName, lastName, displayName, isMember, roles.</a></li>');
    const unreachable = await reviewed(admin, 'saml-sp', { name: 'Events', metadataUrl: 'http://events.example.org/metadata' });
    expect(unreachable.status).toBe(400);
    expect(text(unreachable)).toMatch(/<li><a href="#site-metadataUrl">http:\/\/events\.example\.org\/metadata: [^<]+<\/a><\/li>/);
    expect(await harness.app.services.saml.sps.list()).toEqual([]);
  });
});
