/**
 * PasskeyService where no authenticator is needed: the recent sign-in rule, ceremonies that answer once and only
 * their own purpose, unknown passkeys counted by the sign-in throttle until it locks, and what the identity providers
 * are told of a session a passkey opened. The ceremonies themselves run in Chromium (test/browser/passkeys.test.ts).
 */
import { authenticationMethods } from '../../src/oidc/claims.js';
import type { Services } from '../../src/service/index.js';
import { RECENT_SIGN_IN_MS } from '../../src/service/passkeys.js';
import type { MemberRow, Store } from '../../src/store/store.js';
import { confirmedFactor } from '../helpers/second-factor.js';
import { tempServices } from '../helpers/test-services.js';

const START = Date.UTC(2026, 0, 1);
const THROTTLE = { accountFailures: 3, addressFailures: 10, windowSeconds: 600, lockoutSeconds: 900 };
const RP = { id: 'example.org', origin: 'https://members.example.org' };
const PLACE = { cookieDomain: 'example.org', clientAddress: '192.0.2.1' };

let now = START;
let store: Store;
let services: Services;
let cleanup: () => Promise<void>;
let ada: MemberRow;

beforeEach(async () => {
  now = START;
  ({ store, services, cleanup } = await tempServices({ signin: { throttle: THROTTLE }, clock: () => now }));
  ada = await services.members.add({ id: 'm1', username: 'ada', email: 'ada@example.org' });
});
afterEach(() => cleanup());

const aPasskey = (id: string) => ({ id, memberId: 'm1', publicKey: 'cGs', counter: 0, transports: [], deviceType: 'multiDevice' as const, backedUp: true, name: 'Phone', createdAt: START, lastUsedAt: null });

test('a passkey is added only within ten minutes of the sign-in: options, and the answer', async () => {
  const { session } = await services.sessions.create('m1', 'example.org');
  expect(await services.passkeys.registrationOptions(ada, session, RP)).not.toBeNull();
  now += RECENT_SIGN_IN_MS;
  const ceremony = await services.passkeys.registrationOptions(ada, session, RP);
  expect(ceremony?.options).toMatchObject({ rp: { id: 'example.org' }, authenticatorSelection: { residentKey: 'required', userVerification: 'required' } });
  now += 1;
  expect(await services.passkeys.registrationOptions(ada, session, RP)).toBeNull();
  expect(await services.passkeys.register(ada, session, ceremony!.nonce, {}, RP, 'Phone', { by: 'account' })).toEqual({ ok: false, reason: 'not-recent' });
});

test('a ceremony answers once, only its own purpose and member, and only while fresh', async () => {
  const { session } = await services.sessions.create('m1', 'example.org');
  const bob = await services.members.add({ id: 'm2', username: 'bob' });
  const signIn = await services.passkeys.signInOptions(RP);
  expect(await services.passkeys.register(ada, session, signIn.nonce, {}, RP, 'Phone', { by: 'account' })).toEqual({ ok: false, reason: 'expired' });
  const adas = await services.passkeys.registrationOptions(ada, session, RP);
  expect(await services.passkeys.register(bob, session, adas!.nonce, {}, RP, 'Phone', { by: 'account' })).toEqual({ ok: false, reason: 'expired' });
  const fresh = await services.passkeys.registrationOptions(ada, session, RP);
  expect(await services.passkeys.register(ada, session, fresh!.nonce, { id: 'x' }, RP, 'Phone', { by: 'account' })).toEqual({ ok: false, reason: 'refused' });
  expect(await services.passkeys.register(ada, session, fresh!.nonce, { id: 'x' }, RP, 'Phone', { by: 'account' })).toEqual({ ok: false, reason: 'expired' });
  const old = await services.passkeys.signInOptions(RP);
  now += 5 * 60_000;
  expect(await services.passkeys.signIn(old.nonce, { id: 'eA' }, RP, PLACE)).toEqual({ ok: false, reason: 'expired' });
  expect(await services.passkeys.signIn('', { id: 'eA' }, RP, PLACE)).toEqual({ ok: false, reason: 'expired' });
});

test('unknown passkeys are counted per credential and address until the lock; a lock refuses before any check', async () => {
  const attempt = async (id: string) => services.passkeys.signIn((await services.passkeys.signInOptions(RP)).nonce, { id }, RP, PLACE);
  expect(await attempt('dW5rbm93bg')).toEqual({ ok: false, reason: 'unknown-passkey' });
  expect(await attempt('dW5rbm93bg')).toEqual({ ok: false, reason: 'unknown-passkey' });
  expect(await attempt('dW5rbm93bg')).toEqual({ ok: false, reason: 'throttled', retryAfterSeconds: 900 });
  expect(await attempt('dW5rbm93bg')).toEqual({ ok: false, reason: 'throttled', retryAfterSeconds: 900 });
  const reasons = (await services.events.list({ type: 'signin-failed' })).map((event) => `${event.outcome} ${event.reason}`);
  expect(reasons.sort()).toEqual(['locked passkey-unknown-passkey', 'refused passkey-throttled', 'refused passkey-unknown-passkey', 'refused passkey-unknown-passkey'].sort());
});

test('a disabled member\'s passkey is refused as such, and counted against the member', async () => {
  await store.createPasskey(aPasskey('cGFzc2tleQ'));
  await services.members.setEnabled('m1', false);
  const { nonce } = await services.passkeys.signInOptions(RP);
  expect(await services.passkeys.signIn(nonce, { id: 'cGFzc2tleQ' }, RP, PLACE)).toEqual({ ok: false, reason: 'member-disabled' });
  expect((await services.events.list({ type: 'signin-failed' }))[0]).toMatchObject({ memberId: 'm1', reason: 'passkey-member-disabled' });
});

test('the identity providers are told a passkey opened the session: amr hwk, user, mfa, not the code of a factor confirmed before', async () => {
  await confirmedFactor(services, 'm1', now);
  now += 60_000;
  const issued = await services.sessions.create('m1', 'example.org');
  const byPassword = await services.oidc.sessions.signedIn([issued.cookie], 'example.org');
  expect(byPassword).toMatchObject({ secondFactor: true, passkey: false });
  await store.createPasskey(aPasskey('cGFzc2tleQ'));
  await store.recordPasskeySession(issued.session.id, 'cGFzc2tleQ');
  const byPasskey = await services.oidc.sessions.signedIn([issued.cookie], 'example.org');
  expect(byPasskey).toMatchObject({ secondFactor: false, passkey: true });
  expect(authenticationMethods(byPasskey!)).toEqual({ amr: ['hwk', 'user', 'mfa'], acr: 'http://schemas.openid.net/pape/policies/2007/06/multi-factor' });
  expect(authenticationMethods(byPassword!)).toEqual({ amr: ['pwd', 'otp'], acr: 'http://schemas.openid.net/pape/policies/2007/06/multi-factor' });
  expect(authenticationMethods({ secondFactor: false, passkey: false })).toEqual({ amr: ['pwd'] });
});
