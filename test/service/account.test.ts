/**
 * What a signed-in member may do on their own account (AccountService): change the password, which ends their
 * other sessions; see and end their sessions; turn the second factor off, with the password and a code. A
 * wrong password or code counts against the member's sign-in throttle.
 */
import type { Services } from '../../src/service/index.js';
import { hashPassword, verifyPassword } from '../../src/service/passwords.js';
import type { MemberRow, SessionRow, Store } from '../../src/store/store.js';
import { confirmedFactor, STEP, wrongCode } from '../helpers/second-factor.js';
import { totpCode } from '../helpers/authenticator-app.js';
import { tempServices } from '../helpers/test-services.js';

const START = Date.UTC(2026, 0, 1) + 15_000;
const THROTTLE = { accountFailures: 3, addressFailures: 10, windowSeconds: 600, lockoutSeconds: 900 };
const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a new and longer passphrase';
const ADDRESS = '192.0.2.1';

let now = START;
let store: Store;
let cleanup: () => Promise<void>;
let services: Services;
let ada: MemberRow;
let passwordHash: string;

beforeAll(async () => {
  passwordHash = await hashPassword(PASSWORD);
});

beforeEach(async () => {
  now = START;
  ({ store, services, cleanup } = await tempServices({ signin: { throttle: THROTTLE }, clock: () => now }));
  ada = await services.members.add({ id: 'm1', username: 'ada', email: 'ada@example.org' }, passwordHash);
  await services.members.add({ id: 'm2', username: 'bob' }, passwordHash);
});
afterEach(() => cleanup());

async function sessionsOf(memberId: string, count: number): Promise<SessionRow[]> {
  const rows: SessionRow[] = [];
  for (let i = 0; i < count; i += 1) {
    rows.push((await services.sessions.create(memberId, 'example.org')).session);
    now += 1_000;
  }
  return rows;
}

const liveIds = async (memberId: string) => (await services.sessions.list({ memberId })).map((session) => session.id).sort();

async function storedPasswordIs(password: string): Promise<boolean> {
  const stored = (await store.getMemberCredentials('m1'))?.passwordHash;
  return stored ? (await verifyPassword(stored, password)).ok : false;
}

describe('changePassword', () => {
  it('sets the new password, ends the other sessions and keeps the one given', async () => {
    const [keep, other1, other2] = await sessionsOf('m1', 3);
    const bobs = await sessionsOf('m2', 1);
    const changed = await services.account.changePassword(ada, PASSWORD, NEW_PASSWORD, keep!, ADDRESS);
    expect(changed.ok && [...changed.endedSessions].sort()).toEqual([other1!.id, other2!.id].sort());

    await expect(liveIds('m1')).resolves.toEqual([keep!.id]);
    const rows = await store.listSessions({ memberId: 'm1' });
    for (const ended of [other1!, other2!]) expect(rows.find((s) => s.id === ended.id)).toMatchObject({ revokedAt: now });
    // Other members' sessions are not touched.
    await expect(liveIds('m2')).resolves.toEqual(bobs.map((s) => s.id));
    await expect(storedPasswordIs(NEW_PASSWORD)).resolves.toBe(true);
    await expect(services.signin.checkCredentials({ login: 'ada', password: PASSWORD, clientAddress: ADDRESS })).resolves.toEqual({ ok: false, reason: 'invalid' });
    await expect(services.signin.checkCredentials({ login: 'ada', password: NEW_PASSWORD, clientAddress: ADDRESS })).resolves.toMatchObject({ ok: true });
  });

  it('refuses a wrong current password, changing nothing', async () => {
    const [keep, other] = await sessionsOf('m1', 2);
    await expect(services.account.changePassword(ada, 'wrong password', NEW_PASSWORD, keep!, ADDRESS)).resolves.toEqual({ ok: false, reason: 'wrong-password' });
    await expect(liveIds('m1')).resolves.toEqual([keep!.id, other!.id].sort());
    await expect(storedPasswordIs(PASSWORD)).resolves.toBe(true);
  });

  it('counts wrong current passwords on the sign-in throttle: the lock refuses even the right one, and sign-in too', async () => {
    const [keep] = await sessionsOf('m1', 1);
    const change = (current: string, address = ADDRESS) => services.account.changePassword(ada, current, NEW_PASSWORD, keep!, address);
    await expect(change('wrong 1', '198.51.100.1')).resolves.toEqual({ ok: false, reason: 'wrong-password' });
    await expect(change('wrong 2', '198.51.100.2')).resolves.toEqual({ ok: false, reason: 'wrong-password' });
    await expect(change('wrong 3', '198.51.100.3')).resolves.toEqual({ ok: false, reason: 'throttled', retryAfterSeconds: 900 });
    now += 60_000;
    await expect(change(PASSWORD, '198.51.100.4')).resolves.toEqual({ ok: false, reason: 'throttled', retryAfterSeconds: 840 });
    await expect(storedPasswordIs(PASSWORD)).resolves.toBe(true);
    await expect(services.signin.checkCredentials({ login: 'ada', password: PASSWORD, clientAddress: '203.0.113.1' })).resolves.toEqual({
      ok: false,
      reason: 'throttled',
      retryAfterSeconds: 840,
    });
    now += 14 * 60_000;
    await expect(change(PASSWORD)).resolves.toEqual({ ok: true, endedSessions: [] });
  });

  it('refuses a new password too short or too long, without counting a failure', async () => {
    const [keep] = await sessionsOf('m1', 1);
    for (let i = 0; i < 3; i += 1) {
      await expect(services.account.changePassword(ada, PASSWORD, 'short', keep!, ADDRESS)).resolves.toEqual({ ok: false, reason: 'too-short' });
    }
    await expect(services.account.changePassword(ada, PASSWORD, 'x'.repeat(1025), keep!, ADDRESS)).resolves.toEqual({ ok: false, reason: 'too-long' });
    await expect(storedPasswordIs(PASSWORD)).resolves.toBe(true);
    await expect(services.account.changePassword(ada, PASSWORD, NEW_PASSWORD, keep!, ADDRESS)).resolves.toMatchObject({ ok: true });
  });
});

describe('sessions', () => {
  it('lists the live sessions newest first; ends one of the member\'s own only, and the others but one', async () => {
    const [first, second, third] = await sessionsOf('m1', 3);
    const [bobs] = await sessionsOf('m2', 1);
    expect((await services.account.liveSessions('m1')).map((s) => s.id)).toEqual([third!.id, second!.id, first!.id]);

    await expect(services.account.endSession('m1', bobs!.id)).resolves.toBe(false);
    await expect(liveIds('m2')).resolves.toEqual([bobs!.id]);
    await expect(services.account.endSession('m1', second!.id)).resolves.toBe(true);
    await expect(services.account.endSession('m1', second!.id)).resolves.toBe(false);
    await expect(services.account.endSession('m1', 'no-such-session')).resolves.toBe(false);

    await expect(services.account.endOtherSessions('m1', third!.id)).resolves.toEqual([first!.id]);
    await expect(liveIds('m1')).resolves.toEqual([third!.id]);
    await expect(liveIds('m2')).resolves.toEqual([bobs!.id]);
  });
});

describe('removeSecondFactor', () => {
  let secret: string;
  let recoveryCodes: string[];

  beforeEach(async () => {
    ({ secret, recoveryCodes } = await confirmedFactor(services, 'm1', now));
    now += STEP;
  });

  it('needs the password and a code: neither alone turns the factor off', async () => {
    await expect(services.account.removeSecondFactor(ada, 'wrong password', totpCode(secret, now), ADDRESS)).resolves.toEqual({
      ok: false,
      reason: 'wrong-password',
    });
    await expect(services.account.removeSecondFactor(ada, PASSWORD, wrongCode(secret, now), ADDRESS)).resolves.toEqual({ ok: false, reason: 'wrong-code' });
    await expect(services.secondFactor.status('m1')).resolves.toEqual({ enabled: true, pending: false, recoveryCodesLeft: 10 });

    await expect(services.account.removeSecondFactor(ada, PASSWORD, totpCode(secret, now), ADDRESS)).resolves.toEqual({ ok: true });
    await expect(services.secondFactor.status('m1')).resolves.toEqual({ enabled: false, pending: false, recoveryCodesLeft: 0 });
  });

  it('takes a recovery code as the code', async () => {
    await expect(services.account.removeSecondFactor(ada, PASSWORD, recoveryCodes[0] ?? '', ADDRESS)).resolves.toEqual({ ok: true });
    await expect(services.secondFactor.isEnabled('m1')).resolves.toBe(false);
  });

  it('a code that was wrong with the password wrong is not used up', async () => {
    const code = totpCode(secret, now);
    await services.account.removeSecondFactor(ada, 'wrong password', code, ADDRESS);
    await expect(services.account.removeSecondFactor(ada, PASSWORD, code, ADDRESS)).resolves.toEqual({ ok: true });
  });

  it('counts wrong passwords and wrong codes on the sign-in throttle', async () => {
    await expect(services.account.removeSecondFactor(ada, 'wrong', totpCode(secret, now), '198.51.100.1')).resolves.toMatchObject({ reason: 'wrong-password' });
    await expect(services.account.removeSecondFactor(ada, PASSWORD, wrongCode(secret, now), '198.51.100.2')).resolves.toMatchObject({ reason: 'wrong-code' });
    await expect(services.account.removeSecondFactor(ada, PASSWORD, wrongCode(secret, now), '198.51.100.3')).resolves.toEqual({
      ok: false,
      reason: 'throttled',
      retryAfterSeconds: 900,
    });
    await expect(services.account.removeSecondFactor(ada, PASSWORD, totpCode(secret, now), '198.51.100.4')).resolves.toEqual({
      ok: false,
      reason: 'throttled',
      retryAfterSeconds: 900,
    });
    await expect(services.secondFactor.isEnabled('m1')).resolves.toBe(true);
  });
});
