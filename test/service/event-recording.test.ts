/**
 * Each recording point of the services, through the service call the pages, bindings, provisioning and CLI make:
 * the event it records, with who did it and why, and never a secret.
 */
import { jest } from '@jest/globals';
import type { EventRecord, EventType, Services } from '../../src/service/index.js';
import type { Store } from '../../src/store/store.js';
import { totpCode } from '../helpers/authenticator-app.js';
import { confirmedFactor, wrongCode } from '../helpers/second-factor.js';
import { servicesOver, tempServices } from '../helpers/test-services.js';

const START = Date.UTC(2026, 0, 1, 9);
let now = START;
const clock = () => now;
let services: Services;
let store: Store;
let cleanup: () => Promise<void>;

const PASSWORD = 'correct horse battery';
const PLACE = { cookieDomain: 'example.org', clientAddress: '198.51.100.7', device: 'Firefox on Windows', requestId: 'req-1' };

beforeEach(async () => {
  now = START;
  ({ services, store, cleanup } = await tempServices({ clock, signin: { throttle: { accountFailures: 3, addressFailures: 100, windowSeconds: 900, lockoutSeconds: 900 } } }));
  await services.members.add({ id: 'm1', username: 'ada', email: 'ada@example.org' });
  await services.members.setPassword('m1', PASSWORD);
});
afterEach(() => cleanup());

/** The events after the member's creation, oldest first, as [type, reason] or with the fields asked for. */
async function recorded(filter: { memberId?: string; type?: EventType } = {}): Promise<EventRecord[]> {
  return (await services.events.list({ ...filter, limit: 1000 })).reverse().filter((event) => event.type !== 'member-created');
}
const kinds = async (filter: { memberId?: string; type?: EventType } = {}) => (await recorded(filter)).map((event) => [event.type, event.reason]);

/** No field of any event holds one of these. */
async function expectNoSecret(...secrets: string[]): Promise<void> {
  const text = JSON.stringify(await services.events.list({ limit: 1000 }));
  for (const secret of secrets) expect(text).not.toContain(secret);
}

describe('sign-ins on the pages', () => {
  it('record each refusal with its reason, the client, device and request, and a success with its step', async () => {
    await services.signin.signIn({ ...PLACE, login: 'nobody', password: PASSWORD });
    await services.signin.signIn({ ...PLACE, login: 'ada', password: 'wrong horse battery' });
    await services.signin.signIn({ ...PLACE, login: 'ada', password: PASSWORD });
    expect(await kinds()).toEqual([
      ['signin-failed', 'unknown-login'],
      ['signin-failed', 'wrong-password'],
      ['signin-succeeded', null],
    ]);
    const [unknown, wrong, succeeded] = await recorded();
    expect(unknown).toMatchObject({ memberId: null, actor: { kind: 'anonymous' }, outcome: 'refused' });
    expect(wrong).toMatchObject({ memberId: 'm1', actor: { kind: 'member', id: 'm1' }, clientAddress: '198.51.100.7', device: 'Firefox on Windows', requestId: 'req-1' });
    expect(succeeded).toMatchObject({ memberId: 'm1', outcome: 'password' });
    await expectNoSecret(PASSWORD, 'wrong horse battery', 'nobody');
  });

  it('tell a disabled member, a member without a password, the lock that follows the failures', async () => {
    await services.members.add({ id: 'm2', username: 'bob' });
    await services.signin.signIn({ ...PLACE, login: 'bob', password: PASSWORD });
    await services.members.setEnabled('m1', false);
    await services.signin.signIn({ ...PLACE, login: 'ada', password: PASSWORD });
    await services.members.setEnabled('m1', true);
    for (let i = 0; i < 3; i++) await services.signin.signIn({ ...PLACE, login: 'ada', password: 'wrong horse battery' });
    await services.signin.signIn({ ...PLACE, login: 'ada', password: PASSWORD });
    expect((await recorded({ type: 'signin-failed' })).map((event) => [event.memberId, event.outcome, event.reason])).toEqual([
      ['m2', 'refused', 'no-password'],
      // A disabled member's sign-in counts as a failure too (the answer is the same): the third locks.
      ['m1', 'refused', 'member-disabled'],
      ['m1', 'refused', 'wrong-password'],
      ['m1', 'locked', 'wrong-password'],
      [null, 'refused', 'throttled'],
      [null, 'refused', 'throttled'],
    ]);
  });

  it('record the second step: a wrong code, a recovery code used, a step too late', async () => {
    const { secret, recoveryCodes } = await confirmedFactor(services, 'm1', now);
    const first = await services.signin.signIn({ ...PLACE, login: 'ada', password: PASSWORD });
    if (first.ok || first.reason !== 'second-factor') throw new Error('a second step was expected');
    await services.signin.completeWithCode(first.challenge, wrongCode(secret, now), PLACE);
    await services.signin.completeWithCode(first.challenge, recoveryCodes[0] as string, PLACE);
    now += 10 * 60_000;
    await services.signin.completeWithCode(first.challenge, totpCode(secret, now), PLACE);
    expect(await kinds({ memberId: 'm1' })).toEqual([
      ['signin-failed', 'wrong-code'],
      ['recovery-code-used', null],
      ['signin-succeeded', null],
    ]);
    expect(await kinds({ type: 'signin-failed' })).toEqual([
      ['signin-failed', 'wrong-code'],
      ['signin-failed', 'expired'],
    ]);
    await expectNoSecret(secret, recoveryCodes[0] as string);
  });
});

describe('sign-outs and sessions ended', () => {
  it('record a sign-out by cookie and by token as the member\'s, and revoke-all as the CLI\'s with how many', async () => {
    const one = await services.sessions.create('m1', 'example.org');
    const two = await services.sessions.create('m1', 'example.org');
    await services.sessions.create('m1', 'example.org');
    await services.signin.signOut(one.cookie, { clientAddress: '198.51.100.7', requestId: 'req-2' });
    await services.signin.signOutToken(two.token, {});
    const three = await services.sessions.create('m1', 'example.org');
    await services.sessions.revoke(three.session.id);
    await services.sessions.revokeAllOf('m1');
    const events = await recorded();
    expect(events.map((event) => [event.type, event.actor, event.outcome])).toEqual([
      ['signed-out', { kind: 'member', id: 'm1' }, null],
      ['signed-out', { kind: 'member', id: 'm1' }, null],
      ['sessions-ended', { kind: 'cli' }, '1'],
      ['sessions-ended', { kind: 'cli' }, '1'],
    ]);
    expect(events[2]?.memberId).toBe('m1');
    expect(events[0]).toMatchObject({ clientAddress: '198.51.100.7', requestId: 'req-2' });
    await expectNoSecret(one.cookie, one.token, two.token);
  });
});

describe('the account page', () => {
  it('records a password change, the other sessions it ended, the second factor turned on and off', async () => {
    const kept = await services.sessions.create('m1', 'example.org');
    await services.sessions.create('m1', 'example.org');
    const member = await services.members.get('m1');
    await services.account.changePassword(member, PASSWORD, 'a new horse battery', kept.session, '198.51.100.7', 'Safari on iPhone', 'req-3');
    const { secret } = await services.secondFactor.beginSetup('m1', 'ada@example.org');
    await services.secondFactor.confirmSetup('m1', totpCode(secret, now), { by: 'account', from: { client: '198.51.100.7' } });
    now += 60_000;
    await services.account.removeSecondFactor(member, 'a new horse battery', totpCode(secret, now), '198.51.100.7');
    const events = await recorded();
    expect(events.map((event) => [event.type, event.outcome, event.reason])).toEqual([
      ['password-changed', 'account', null],
      ['sessions-ended', '1', 'password-changed'],
      ['second-factor-enabled', null, null],
      ['second-factor-disabled', null, null],
    ]);
    expect(events[0]).toMatchObject({ actor: { kind: 'member', id: 'm1' }, device: 'Safari on iPhone', requestId: 'req-3' });
    await expectNoSecret(PASSWORD, 'a new horse battery', secret);
  });
});

describe('the account page refusing a change', () => {
  it('records a wrong current password, a wrong code and the throttle, with the change asked for', async () => {
    const kept = await services.sessions.create('m1', 'example.org');
    const member = await services.members.get('m1');
    const { secret } = await services.secondFactor.beginSetup('m1', 'ada@example.org');
    await services.secondFactor.confirmSetup('m1', totpCode(secret, now), { by: 'account', from: { client: '198.51.100.7' } });
    expect(await services.account.changePassword(member, 'not it', 'a new horse battery', kept.session, '198.51.100.7', 'Safari on iPhone', 'req-4')).toMatchObject({ ok: false, reason: 'wrong-password' });
    expect(await services.account.removeSecondFactor(member, PASSWORD, 'not a code', '198.51.100.7')).toMatchObject({ ok: false });
    for (let failures = 0; failures < 10; failures++) await services.account.changePassword(member, 'not it', 'a new horse battery', kept.session, '198.51.100.7');
    const refused = await recorded();
    expect(refused.filter((event) => event.type === 'account-change-refused').slice(0, 2).map((event) => [event.outcome, event.reason])).toEqual([
      ['password-change', 'wrong-password'],
      ['second-factor-off', 'wrong-code'],
    ]);
    expect(refused.find((event) => event.type === 'account-change-refused')).toMatchObject({ memberId: 'm1', actor: { kind: 'member', id: 'm1' }, clientAddress: '198.51.100.7', device: 'Safari on iPhone', requestId: 'req-4' });
    expect(refused.filter((event) => event.reason === 'throttled').length).toBeGreaterThan(0);
    await expectNoSecret('not it', 'a new horse battery', 'not a code');
  });
});

describe('recovery links', () => {
  it('record a request, whatever it named, a link used, and a link refused with why', async () => {
    let token = '';
    const link = (issued: string) => {
      token = issued;
      return `https://id.example.org/reset?token=${issued}`;
    };
    await services.recovery.request({ login: 'nobody', clientAddress: '198.51.100.7', link });
    await services.recovery.request({ login: 'ada', clientAddress: '198.51.100.7', link, requestId: 'req-4' });
    const issued = await services.recovery.issue('m1');
    now += 2 * 3600_000;
    await services.recovery.redeem(issued.token, 'a new horse battery', { client: '198.51.100.7' });
    const fresh = await services.recovery.issue('m1');
    await services.recovery.redeem(fresh.token, 'a new horse battery', { client: '198.51.100.7' }, 'req-5');
    await services.recovery.redeem(fresh.token, 'a new horse battery', { client: '198.51.100.7' });
    expect((await recorded()).map((event) => [event.type, event.memberId, event.outcome, event.reason])).toEqual([
      ['recovery-requested', null, 'not-sent', 'unknown-login'],
      // No mailer in these services: nothing is sent, and the event says why.
      ['recovery-requested', 'm1', 'not-sent', 'no-mail'],
      ['recovery-requested', 'm1', 'issued', null],
      ['recovery-refused', 'm1', null, 'expired-link'],
      ['recovery-requested', 'm1', 'issued', null],
      ['recovery-used', 'm1', null, null],
      ['password-reset', 'm1', 'recovery', null],
      ['sessions-ended', 'm1', '0', 'password-reset'],
      ['recovery-refused', null, null, 'unknown-link'],
    ]);
    await expectNoSecret(issued.token, fresh.token, 'a new horse battery', ...(token ? [token] : []));
  });
});

describe('members and second factors by the CLI, provisioning and an import', () => {
  it('record each change with its actor, naming the fields changed but never their values', async () => {
    await services.members.update('m1', { email: 'countess@example.org' });
    await services.members.setEnabled('m1', false);
    await services.members.setEnabled('m1', true);
    await confirmedFactor(services, 'm1', now);
    await services.secondFactor.remove('m1', { by: 'admin' });
    await services.members.setPassword('m1', 'an admin horse battery', { by: 'admin' });
    await services.members.remove('m1');
    expect((await recorded()).map((event) => [event.type, event.actor, event.outcome])).toEqual([
      ['member-changed', { kind: 'cli' }, 'email'],
      ['member-disabled', { kind: 'cli' }, null],
      ['member-enabled', { kind: 'cli' }, null],
      ['second-factor-reset', { kind: 'cli' }, null],
      ['password-changed', { kind: 'cli' }, 'admin'],
      ['member-removed', { kind: 'cli' }, null],
    ]);
    await expectNoSecret('countess@example.org', 'an admin horse battery');
  });

  it('record a provisioning client\'s writes as its own', async () => {
    const by = { actor: { kind: 'provisioning' as const, id: 'entra' }, requestId: 'req-6' };
    const fields = { externalId: null, username: 'grace', email: 'grace@example.org', firstName: 'Grace', lastName: 'Hopper', displayName: null, formattedName: null, enabled: true, attributes: {} };
    const created = await services.provisioning.create(fields, by);
    if (!created.ok) throw new Error('not created');
    const replaced = await services.provisioning.replace(created.member, { ...fields, lastName: 'Murray Hopper', enabled: false, password: 'a scim horse battery' }, by);
    if (!replaced.ok) throw new Error('not replaced');
    await services.provisioning.remove(created.member.id, undefined, by);
    const events = await services.events.list({ memberId: created.member.id });
    expect(events.reverse().map((event) => [event.type, event.outcome])).toEqual([
      ['member-created', null],
      ['member-changed', 'lastName password'],
      ['member-disabled', null],
      ['member-removed', null],
    ]);
    expect(events.every((event) => event.actor.kind === 'provisioning' && event.actor.id === 'entra' && event.requestId === 'req-6')).toBe(true);
    await expectNoSecret('a scim horse battery', 'Murray Hopper');
  });

  it("record an import's members as the import's", async () => {
    const [outcome] = await services.members.addMany([services.members.prepare({ id: 'm9', username: 'imported' })], { kind: 'import' });
    expect(outcome).toBe('created');
    expect((await services.events.list({ memberId: 'm9' })).map((event) => [event.type, event.actor])).toEqual([['member-created', { kind: 'import' }]]);
  });
});

describe('partners (the ASMX operations)', () => {
  const CALL = { clientAddress: '203.0.113.9', cookieDomain: () => 'example.org', requestId: 'req-7' };

  it("record a call with a wrong or missing security password, naming the operation, and a partner's sign-in and sign-out naming it", async () => {
    const { password } = await services.callers.add('shop');
    await expect(services.authentication.authenticateToken({ securityPassword: 'not the password', token: 'x' }, CALL)).rejects.toThrow();
    await expect(services.authentication.authenticateUser({ securityPassword: null, username: 'ada', password: PASSWORD, authenticationToken: null }, CALL)).rejects.toThrow();
    const signedIn = await services.authentication.authenticateUser({ securityPassword: password, username: 'ada', password: PASSWORD, authenticationToken: null }, CALL);
    await services.authentication.validateUser({ securityPassword: password, username: 'ada', password: 'wrong horse battery' }, CALL);
    if (signedIn.kind !== 'member' || !signedIn.session) throw new Error('signed in expected');
    await services.authentication.deleteUserSession({ securityPassword: password, token: signedIn.session.token }, CALL);
    const events = (await services.events.list({ limit: 100 })).reverse().filter((event) => event.type !== 'member-created');
    expect(events.map((event) => [event.type, event.actor, event.via, event.outcome, event.reason])).toEqual([
      ['site-added', { kind: 'cli' }, 'shop', 'partner', null],
      ['caller-refused', { kind: 'partner' }, null, 'AuthenticateToken', 'wrong-security-password'],
      ['caller-refused', { kind: 'partner' }, null, 'AuthenticateUser', 'missing-security-password'],
      ['signin-succeeded', { kind: 'member', id: 'm1' }, 'shop', 'AuthenticateUser', null],
      ['signin-failed', { kind: 'member', id: 'm1' }, 'shop', 'refused', 'wrong-password'],
      ['signed-out', { kind: 'partner', id: 'shop' }, 'shop', 'DeleteUserSession', null],
    ]);
    expect(events.slice(1).every((event) => event.clientAddress === '203.0.113.9' && event.requestId === 'req-7')).toBe(true);
    await expectNoSecret(password, 'not the password', PASSWORD);
  });
});

it('a sign-in answers while the store cannot take the events', async () => {
  const insert = jest.spyOn(store, 'insertEvents').mockRejectedValue(new Error('database or disk is full'));
  const result = await services.signin.signIn({ ...PLACE, login: 'ada', password: PASSWORD });
  expect(result.ok).toBe(true);
  await services.events.flush();
  expect(insert).toHaveBeenCalled();
  insert.mockRestore();
});

it('with EVENTS_ENABLED=false records nothing, and still lists what was recorded before', async () => {
  await services.events.flush();
  const off = servicesOver(store, { clock, recordEvents: false });
  const { password } = await off.callers.add('shop');
  await off.signin.signIn({ ...PLACE, login: 'ada', password: 'wrong horse battery' });
  await off.signin.signIn({ ...PLACE, login: 'ada', password: PASSWORD });
  await off.authentication.authenticateUser({ securityPassword: password, username: 'ada', password: PASSWORD, authenticationToken: null }, { clientAddress: '203.0.113.9', cookieDomain: () => 'example.org', requestId: 'req-7' });
  await off.members.add({ id: 'm2', username: 'bob' });
  await off.members.setEnabled('m2', false);
  await off.events.flush();
  expect((await off.events.list({ limit: 100 })).map((event) => [event.type, event.memberId])).toEqual([['member-created', 'm1']]);
});
