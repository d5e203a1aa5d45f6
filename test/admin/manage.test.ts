/**
 * The staff console's management pages over HTTP: admin staff only (403 for support); staff, partner sites
 * (callers) and provisioning clients managed through a confirmation and a CSRF-checked POST, a new password or
 * token shown once; the service's refusals said on the page.
 */
import { formOf, PageClient, unescapeHtml, type Page } from '../helpers/page-client.js';
import { BOB, REFERENCE } from '../helpers/reference-data.js';
import { ConsoleApp } from './console-app.js';

const harness = new ConsoleApp();

const text = (page: Page) => unescapeHtml(page.text);

/** Opens the confirmation of an action with these fields, and posts it. */
async function confirmed(visitor: PageClient, fields: Record<string, string>): Promise<Page> {
  const confirm = await visitor.get(`/Admin/manage/confirm?${new URLSearchParams(fields)}`);
  expect(confirm.status).toBe(200);
  return visitor.submit(confirm, {});
}

it('is for admin staff: support staff get 403, and the search links it for admins only', async () => {
  const support = await harness.staffVisitor('support');
  expect((await support.get('/Admin/manage')).status).toBe(403);
  expect((await support.get('/Admin')).text).not.toContain('Manage the service');
  expect((await support.post('/Admin/manage/action', { action: 'staff-grant', member: REFERENCE.memberId, role: 'admin' })).status).toBe(403);
  await expect(harness.app.services.staff.roleOf(REFERENCE.memberId)).resolves.toBeNull();
  await harness.app.services.staff.grant(BOB.id, 'admin');
  expect(text(await support.get('/Admin'))).toContain('<a href="/Admin/manage">Manage the service</a>');
  expect((await support.get('/Admin/manage')).status).toBe(200);
});

it('grants and takes away a staff role', async () => {
  const admin = await harness.staffVisitor('admin');
  const granted = await confirmed(admin, { action: 'staff-grant', member: REFERENCE.memberId, role: 'support' });
  expect(granted.headers.location).toBe('/Admin/manage?done=staff-grant');
  await expect(harness.app.services.staff.roleOf(REFERENCE.memberId)).resolves.toBe('support');
  expect(text(await admin.get('/Admin/manage'))).toContain('<a href="/Admin/member?id=member-42">ada</a>');
  await confirmed(admin, { action: 'staff-revoke', member: REFERENCE.memberId });
  await expect(harness.app.services.staff.roleOf(REFERENCE.memberId)).resolves.toBeNull();
  const unknown = await confirmed(admin, { action: 'staff-grant', member: 'ghost', role: 'admin' });
  expect(unknown.status).toBe(404);
  expect(unknown.text).toContain('No member has this id: ghost');
  // Each recorded with the admin as its actor, from where they acted.
  const events = await harness.app.services.events.list({ memberId: REFERENCE.memberId });
  expect(events.filter((event) => event.type.startsWith('staff-')).map(({ type, actor, outcome, clientAddress }) => ({ type, actor, outcome, clientAddress }))).toEqual([
    { type: 'staff-revoked', actor: { kind: 'staff', id: BOB.id }, outcome: null, clientAddress: '127.0.0.1' },
    { type: 'staff-granted', actor: { kind: 'staff', id: BOB.id }, outcome: 'support', clientAddress: '127.0.0.1' },
  ]);
});

it('adds a partner site with a security password shown once, allows an origin, makes a new password, removes it', async () => {
  const admin = await harness.staffVisitor('admin');
  const added = await confirmed(admin, { action: 'caller-add', caller: 'shop' });
  expect(added.status).toBe(200);
  expect(added.headers['cache-control']).toBe('no-store');
  const password = /<input id="issued" type="text" value="([^"]+)"/.exec(added.text)?.[1] ?? '';
  await expect(harness.app.services.callers.verify(unescapeHtml(password))).resolves.toMatchObject({ name: 'shop' });
  await confirmed(admin, { action: 'caller-add-origin', caller: 'shop', origin: 'https://shop.example.org' });
  expect(await harness.app.services.callers.listOrigins('shop')).toEqual([expect.objectContaining({ origin: 'https://shop.example.org' })]);
  const rotated = await confirmed(admin, { action: 'caller-rotate', caller: 'shop' });
  expect(rotated.text).toContain('New security password of shop');
  expect((await confirmed(admin, { action: 'caller-add', caller: 'shop' })).status).toBe(409);
  await confirmed(admin, { action: 'caller-remove', caller: 'shop' });
  expect(await harness.app.services.callers.list()).not.toContainEqual(expect.objectContaining({ name: 'shop' }));
  // Never the password in the log.
  expect(JSON.stringify(harness.app.logLines)).not.toContain(unescapeHtml(password));
  // Each change recorded with the admin as actor, newest first.
  const changes = (await harness.app.services.events.list({})).filter((event) => event.via === 'shop');
  expect(changes.map(({ type, outcome, reason, actor }) => [type, outcome, reason, actor])).toEqual([
    ['site-removed', 'partner', null, { kind: 'staff', id: BOB.id }],
    ['site-changed', 'partner', 'new-password', { kind: 'staff', id: BOB.id }],
    ['site-changed', 'partner', 'origin-allowed', { kind: 'staff', id: BOB.id }],
    ['site-added', 'partner', null, { kind: 'staff', id: BOB.id }],
  ]);
  expect(JSON.stringify(changes)).not.toContain(unescapeHtml(password));
});

it('adds a provisioning client with its token shown once', async () => {
  const admin = await harness.staffVisitor('admin');
  const added = await confirmed(admin, { action: 'provisioner-add', provisioner: 'entra' });
  const token = /<input id="issued" type="text" value="([^"]+)"/.exec(added.text)?.[1] ?? '';
  await expect(harness.app.services.provisioners.authenticate(unescapeHtml(token), '192.0.2.1')).resolves.toEqual({ ok: true, client: 'entra' });
  await confirmed(admin, { action: 'provisioner-rotate', provisioner: 'entra' });
  await confirmed(admin, { action: 'provisioner-remove', provisioner: 'entra' });
  const changes = (await harness.app.services.events.list({})).filter((event) => event.via === 'entra');
  expect(changes.map(({ type, outcome, reason, actor }) => [type, outcome, reason, actor])).toEqual([
    ['site-removed', 'provisioning-client', null, { kind: 'staff', id: BOB.id }],
    ['site-changed', 'provisioning-client', 'new-token', { kind: 'staff', id: BOB.id }],
    ['site-added', 'provisioning-client', null, { kind: 'staff', id: BOB.id }],
  ]);
});

it('refuses a POST without the CSRF proof, and a form with a field left empty', async () => {
  const admin = await harness.staffVisitor('admin');
  const confirm = await admin.get('/Admin/manage/confirm?action=caller-add&caller=shop');
  const { csrf: _csrf, ...withoutProof } = formOf(confirm.text).hidden;
  expect((await admin.post('/Admin/manage/action', withoutProof)).status).toBe(403);
  expect((await admin.get('/Admin/manage/confirm?action=caller-add&caller=%20')).status).toBe(400);
  expect(await harness.app.services.callers.list()).not.toContainEqual(expect.objectContaining({ name: 'shop' }));
});
