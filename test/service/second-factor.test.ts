/**
 * Members' second factor (SecondFactorService): set-up and its confirmation, the recovery codes, single use of
 * every code (also across instances sharing a store), and what the store keeps of the secret. On both stores:
 * a replay must be refused by the store, atomically.
 */
import { randomBytes } from 'node:crypto';
import type { Services } from '../../src/service/index.js';
import { RECOVERY_CODE_COUNT } from '../../src/service/second-factor.js';
import { Secrets } from '../../src/service/secrets.js';
import { totpStep } from '../../src/service/totp.js';
import type { Store } from '../../src/store/store.js';
import { totpCode } from '../helpers/authenticator-app.js';
import { describeWithPostgres } from '../helpers/postgres.js';
import { confirmedFactor, STEP } from '../helpers/second-factor.js';
import { serviceErrorOf } from '../helpers/service-error.js';
import { tempSqliteStore } from '../helpers/temp-store.js';
import { servicesOver } from '../helpers/test-services.js';

/** The middle of a time step: a code of "now" is not at the edge of the window. */
const START = Date.UTC(2026, 0, 1) + 15_000;
const THROTTLE = { accountFailures: 3, addressFailures: 10, windowSeconds: 600, lockoutSeconds: 900 };
/** ORGANIZATION_NAME: the issuer authenticator apps show. */
const ISSUER = 'The Society';
const RECOVERY_CODE = /^[a-hjkmnp-z2-9]{5}-[a-hjkmnp-z2-9]{5}$/;

for (const kind of ['sqlite', 'postgres'] as const) {
  const describeStore = kind === 'postgres' ? describeWithPostgres : describe;

  describeStore(`SecondFactorService on ${kind}`, () => {
    let now = START;
    let store: Store;
    let cleanup: () => Promise<void>;
    let key: Buffer;
    let services: Services;

    /** The services of an instance under this server key. */
    const instanceWith = (secretKey: Buffer = key): Services =>
      servicesOver(store, { secretKey, signin: { throttle: THROTTLE, totpIssuer: ISSUER }, clock: () => now });

    beforeEach(async () => {
      now = START;
      ({ store, cleanup } = kind === 'postgres' ? await (await import('../helpers/postgres.js')).tempPostgresStore() : await tempSqliteStore());
      key = randomBytes(32);
      services = instanceWith();
      await services.members.add({ id: 'm1', username: 'ada', email: 'ada@example.org' });
      await services.members.add({ id: 'm2', username: 'bob', email: 'bob@example.org' });
    });
    afterEach(() => cleanup());

    /** Sets up and confirms the member's factor now; the next step begins, so that its code is not the confirming one's. */
    async function enable(memberId = 'm1', over: Services = services): Promise<{ secret: string; recoveryCodes: string[] }> {
      const factor = await confirmedFactor(over, memberId, now);
      now += STEP;
      return factor;
    }

    describe('set-up', () => {
      it('begins with a base32 secret and its otpauth URI, pending until confirmed', async () => {
        await expect(services.secondFactor.status('m1')).resolves.toEqual({ enabled: false, pending: false, recoveryCodesLeft: 0 });
        const setup = await services.secondFactor.beginSetup('m1', 'ada@example.org');
        expect(setup.secret).toMatch(/^[A-Z2-7]{32}$/);
        const uri = new URL(setup.uri);
        expect(`${uri.protocol}//${uri.host}`).toBe('otpauth://totp');
        expect(decodeURIComponent(uri.pathname)).toBe('/The Society:ada@example.org');
        expect(uri.searchParams.get('secret')).toBe(setup.secret);
        expect(uri.searchParams.get('issuer')).toBe('The Society');
        await expect(services.secondFactor.status('m1')).resolves.toEqual({ enabled: false, pending: true, recoveryCodesLeft: 0 });
        await expect(services.secondFactor.isEnabled('m1')).resolves.toBe(false);
        // Shown again on a reload, unchanged.
        await expect(services.secondFactor.pendingSetup('m1', 'ada@example.org')).resolves.toEqual(setup);
        await expect(services.secondFactor.pendingSetup('m2', 'bob@example.org')).resolves.toBeNull();
      });

      it('a pending factor is asked for by nobody: even its right code is refused by check', async () => {
        const { secret } = await services.secondFactor.beginSetup('m1', 'ada');
        await expect(services.secondFactor.check('m1', totpCode(secret, now))).resolves.toEqual({ ok: false });
      });

      it('is confirmed by the right code only, which gives ten distinct recovery codes', async () => {
        const { secret } = await services.secondFactor.beginSetup('m1', 'ada');
        const right = totpCode(secret, now);
        const wrong = String((Number(right) + 1) % 1_000_000).padStart(6, '0');
        await expect(services.secondFactor.confirmSetup('m1', wrong)).resolves.toBeNull();
        await expect(services.secondFactor.confirmSetup('m1', 'not a code')).resolves.toBeNull();
        await expect(services.secondFactor.confirmSetup('m1', totpCode(secret, now + 5 * STEP))).resolves.toBeNull();
        await expect(services.secondFactor.status('m1')).resolves.toEqual({ enabled: false, pending: true, recoveryCodesLeft: 0 });

        const codes = await services.secondFactor.confirmSetup('m1', right);
        expect(codes).toHaveLength(RECOVERY_CODE_COUNT);
        expect(RECOVERY_CODE_COUNT).toBe(10);
        for (const code of codes ?? []) expect(code).toMatch(RECOVERY_CODE);
        expect(new Set(codes).size).toBe(10);
        await expect(services.secondFactor.status('m1')).resolves.toEqual({ enabled: true, pending: false, recoveryCodesLeft: 10 });
        await expect(services.secondFactor.isEnabled('m1')).resolves.toBe(true);
        await expect(services.secondFactor.pendingSetup('m1', 'ada')).resolves.toBeNull();
      });

      it('the confirming code is used: it does not also sign in', async () => {
        const { secret } = await services.secondFactor.beginSetup('m1', 'ada');
        const code = totpCode(secret, now);
        await services.secondFactor.confirmSetup('m1', code);
        await expect(services.secondFactor.check('m1', code)).resolves.toEqual({ ok: false });
      });

      it('begins again with a new secret: the old one no longer confirms', async () => {
        const first = await services.secondFactor.beginSetup('m1', 'ada');
        const second = await services.secondFactor.beginSetup('m1', 'ada');
        expect(second.secret).not.toBe(first.secret);
        const firstCode = totpCode(first.secret, now);
        if (firstCode !== totpCode(second.secret, now)) await expect(services.secondFactor.confirmSetup('m1', firstCode)).resolves.toBeNull();
        await expect(services.secondFactor.confirmSetup('m1', totpCode(second.secret, now))).resolves.toHaveLength(10);
      });

      it('refuses to begin while a confirmed factor is in place, and to confirm what is not pending', async () => {
        expect((await serviceErrorOf(services.secondFactor.confirmSetup('m1', '123456'))).code).toBe('SECOND_FACTOR_NOT_PENDING');
        const { secret } = await enable();
        expect((await serviceErrorOf(services.secondFactor.beginSetup('m1', 'ada'))).code).toBe('SECOND_FACTOR_ENABLED');
        expect((await serviceErrorOf(services.secondFactor.confirmSetup('m1', totpCode(secret, now)))).code).toBe('SECOND_FACTOR_NOT_PENDING');
        // Neither touched the factor: its codes still work.
        await expect(services.secondFactor.check('m1', totpCode(secret, now))).resolves.toEqual({ ok: true, kind: 'totp' });
      });
    });

    describe('the secret as stored', () => {
      it('is sealed under the server key: the row holds neither the secret nor its letters', async () => {
        const { secret } = await services.secondFactor.beginSetup('m1', 'ada');
        const row = await store.getSecondFactor('m1');
        expect(row).toMatchObject({ memberId: 'm1', createdAt: START, confirmedAt: null, lastStep: null });
        const sealed = row?.secretSealed ?? '';
        expect(sealed).not.toBe('');
        expect(sealed).not.toContain(secret);
        expect(sealed.toUpperCase()).not.toContain(secret);
        expect(sealed).not.toContain(secret.slice(0, 8));
        expect(JSON.stringify(row)).not.toContain(secret);
      });

      it('is useless under another key: nothing is accepted', async () => {
        const { secret, recoveryCodes } = await enable();
        const other = instanceWith(randomBytes(32));
        await expect(other.secondFactor.check('m1', totpCode(secret, now))).resolves.toEqual({ ok: false });
        await expect(other.secondFactor.check('m1', recoveryCodes[0] ?? '')).resolves.toEqual({ ok: false });
        await expect(other.secondFactor.pendingSetup('m1', 'ada')).resolves.toBeNull();
      });

      it('records the confirmation and the last step used', async () => {
        const { secret } = await enable();
        const confirmedAt = START;
        expect(await store.getSecondFactor('m1')).toMatchObject({ confirmedAt, lastStep: totpStep(START) });
        await services.secondFactor.check('m1', totpCode(secret, now));
        expect(await store.getSecondFactor('m1')).toMatchObject({ confirmedAt, lastStep: totpStep(now) });
      });
    });

    describe('codes from the app', () => {
      it("accepts the current, previous and next step's code, with spaces, each step once", async () => {
        const { secret } = await enable();
        now += 10 * STEP;
        const code = totpCode(secret, now - STEP);
        await expect(services.secondFactor.check('m1', code)).resolves.toEqual({ ok: true, kind: 'totp' });
        await expect(services.secondFactor.check('m1', ` ${totpCode(secret, now).slice(0, 3)} ${totpCode(secret, now).slice(3)} `)).resolves.toEqual({
          ok: true,
          kind: 'totp',
        });
        await expect(services.secondFactor.check('m1', totpCode(secret, now + STEP))).resolves.toEqual({ ok: true, kind: 'totp' });
      });

      it('refuses a replayed code, and a code of a step before the last one used', async () => {
        const { secret } = await enable();
        const code = totpCode(secret, now);
        await expect(services.secondFactor.check('m1', code)).resolves.toEqual({ ok: true, kind: 'totp' });
        await expect(services.secondFactor.check('m1', code)).resolves.toEqual({ ok: false });
        now += 1_000;
        await expect(services.secondFactor.check('m1', code)).resolves.toEqual({ ok: false });

        now += STEP;
        const later = totpCode(secret, now + STEP);
        const earlier = totpCode(secret, now);
        await expect(services.secondFactor.check('m1', later)).resolves.toEqual({ ok: true, kind: 'totp' });
        if (earlier !== later) await expect(services.secondFactor.check('m1', earlier)).resolves.toEqual({ ok: false });
      });

      it('refuses a replay on another instance sharing the store', async () => {
        const { secret } = await enable();
        const elsewhere = instanceWith();
        const code = totpCode(secret, now);
        await expect(services.secondFactor.check('m1', code)).resolves.toEqual({ ok: true, kind: 'totp' });
        await expect(elsewhere.secondFactor.check('m1', code)).resolves.toEqual({ ok: false });
        now += STEP;
        const next = totpCode(secret, now);
        await expect(elsewhere.secondFactor.check('m1', next)).resolves.toEqual({ ok: true, kind: 'totp' });
        await expect(services.secondFactor.check('m1', next)).resolves.toEqual({ ok: false });
      });

      it('accepts one of two instances checking the same code at once', async () => {
        const { secret } = await enable();
        const elsewhere = instanceWith();
        const code = totpCode(secret, now);
        const results = await Promise.all([services.secondFactor.check('m1', code), elsewhere.secondFactor.check('m1', code)]);
        expect(results.filter((result) => result.ok)).toHaveLength(1);
      });

      it('refuses wrong, far-off, malformed and other members\' codes, and anything for a member without a factor', async () => {
        const { secret } = await enable();
        const right = totpCode(secret, now);
        const wrong = String((Number(right) + 1) % 1_000_000).padStart(6, '0');
        for (const code of [wrong, totpCode(secret, now + 3 * STEP), totpCode(secret, now - 3 * STEP), '', '12345', '1234567', '12a456']) {
          if (code === right) continue;
          await expect(services.secondFactor.check('m1', code)).resolves.toEqual({ ok: false });
        }
        await expect(services.secondFactor.check('m2', right)).resolves.toEqual({ ok: false });
        await expect(services.secondFactor.check('nobody', right)).resolves.toEqual({ ok: false });
        // None of the refusals used the step: the right code still works.
        await expect(services.secondFactor.check('m1', right)).resolves.toEqual({ ok: true, kind: 'totp' });
      });
    });

    describe('recovery codes', () => {
      it('each works once, in any case, with or without the dash, and the count goes down', async () => {
        const { recoveryCodes } = await enable();
        const [first = '', second = '', third = ''] = recoveryCodes;
        await expect(services.secondFactor.check('m1', first)).resolves.toEqual({ ok: true, kind: 'recovery' });
        await expect(services.secondFactor.check('m1', first)).resolves.toEqual({ ok: false });
        await expect(services.secondFactor.check('m1', first.toUpperCase())).resolves.toEqual({ ok: false });
        await expect(services.secondFactor.status('m1')).resolves.toEqual({ enabled: true, pending: false, recoveryCodesLeft: 9 });

        await expect(services.secondFactor.check('m1', second.toUpperCase())).resolves.toEqual({ ok: true, kind: 'recovery' });
        await expect(services.secondFactor.check('m1', ` ${third.replace('-', '')} `)).resolves.toEqual({ ok: true, kind: 'recovery' });
        await expect(services.secondFactor.check('m1', third)).resolves.toEqual({ ok: false });
        await expect(services.secondFactor.status('m1')).resolves.toEqual({ enabled: true, pending: false, recoveryCodesLeft: 7 });
      });

      it('another member cannot use them, even with a factor of their own', async () => {
        const { recoveryCodes } = await enable('m1');
        const bob = await enable('m2');
        const [code = ''] = recoveryCodes;
        await expect(services.secondFactor.check('m2', code)).resolves.toEqual({ ok: false });
        await expect(services.secondFactor.check('m1', bob.recoveryCodes[0] ?? '')).resolves.toEqual({ ok: false });
        // Bob's try did not use ada's code up.
        await expect(services.secondFactor.check('m1', code)).resolves.toEqual({ ok: true, kind: 'recovery' });
      });

      it('refuses codes it never issued, and codes of the wrong length', async () => {
        const { recoveryCodes } = await enable();
        const [code = ''] = recoveryCodes;
        for (const guess of ['abcde-fghjk', code.slice(0, 10), `${code}x`, 'zzzzz', '-----']) {
          if (guess.replace('-', '') === code.replace('-', '')) continue;
          await expect(services.secondFactor.check('m1', guess)).resolves.toEqual({ ok: false });
        }
        await expect(services.secondFactor.status('m1')).resolves.toMatchObject({ recoveryCodesLeft: 10 });
      });

      it('one made of digits only works too, typed with or without its dash or with a space', async () => {
        // About one code in 770,000 draws only the alphabet's digits: stored here directly, as confirmSetup would.
        const digitCodes = ['2345678923', '3456789234', '4567892345'];
        const hashes = digitCodes.map((code) => new Secrets(key).hash('recovery-code', `m1\0${code}`));
        await services.secondFactor.beginSetup('m1', 'ada');
        await expect(store.confirmSecondFactor('m1', now, totpStep(now), hashes)).resolves.toBe(true);
        await expect(services.secondFactor.check('m1', '2345678923')).resolves.toEqual({ ok: true, kind: 'recovery' });
        await expect(services.secondFactor.check('m1', '34567 89234')).resolves.toEqual({ ok: true, kind: 'recovery' });
        await expect(services.secondFactor.check('m1', '45678-92345')).resolves.toEqual({ ok: true, kind: 'recovery' });
        await expect(services.secondFactor.check('m1', '2345678923')).resolves.toEqual({ ok: false });
      });

      it('go with the factor: removed, they no longer work, nor after a new set-up', async () => {
        const { recoveryCodes } = await enable();
        await expect(services.secondFactor.remove('m1')).resolves.toBe(true);
        await expect(services.secondFactor.remove('m1')).resolves.toBe(false);
        await expect(services.secondFactor.status('m1')).resolves.toEqual({ enabled: false, pending: false, recoveryCodesLeft: 0 });
        await expect(services.secondFactor.check('m1', recoveryCodes[0] ?? '')).resolves.toEqual({ ok: false });
        const again = await enable();
        await expect(services.secondFactor.check('m1', recoveryCodes[1] ?? '')).resolves.toEqual({ ok: false });
        await expect(services.secondFactor.status('m1')).resolves.toMatchObject({ recoveryCodesLeft: 10 });
        expect(again.recoveryCodes).not.toContain(recoveryCodes[1]);
      });
    });

    describe('status', () => {
      it('counts the recovery codes left of a confirmed factor only', async () => {
        await services.secondFactor.beginSetup('m1', 'ada');
        await expect(services.secondFactor.status('m1')).resolves.toEqual({ enabled: false, pending: true, recoveryCodesLeft: 0 });
        await services.secondFactor.remove('m1');
        const { recoveryCodes } = await enable();
        for (const code of recoveryCodes.slice(0, 4)) await services.secondFactor.check('m1', code);
        await expect(services.secondFactor.status('m1')).resolves.toEqual({ enabled: true, pending: false, recoveryCodesLeft: 6 });
        await expect(services.secondFactor.status('m2')).resolves.toEqual({ enabled: false, pending: false, recoveryCodesLeft: 0 });
      });

      it('the factor goes with the member', async () => {
        const { recoveryCodes } = await enable();
        await services.members.remove('m1');
        await expect(store.getSecondFactor('m1')).resolves.toBeNull();
        await expect(store.countRecoveryCodes('m1')).resolves.toBe(0);
        await services.members.add({ id: 'm1', username: 'ada' });
        await expect(services.secondFactor.status('m1')).resolves.toEqual({ enabled: false, pending: false, recoveryCodesLeft: 0 });
        await expect(services.secondFactor.check('m1', recoveryCodes[0] ?? '')).resolves.toEqual({ ok: false });
      });
    });
  });
}
