/**
 * A member with a second factor over the four bindings, in both result formats: `authenticationToken` is the
 * code. Without it (or with a wrong one) the answer is the vendor's in-band error 16000; with the right code
 * the member; the code's failures count on the sign-in throttle, whose lock is 1005 even for the right code.
 */
import { totpCode } from '../helpers/authenticator-app.js';
import { BINDINGS, callAsmx, type AsmxReply as Reply, type Binding } from '../helpers/asmx-request.js';
import { iBridge } from '../helpers/ibridge.js';
import { scrape } from '../helpers/metrics.js';
import { confirmedFactor, STEP } from '../helpers/second-factor.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const PASSWORD = 'correct horse battery staple';
const START = Date.UTC(2026, 0, 1) + 15_000;
const MESSAGE = 'Multi factor Authenticator token is required.';
const IBRIDGE_16000 = `<?xml version="1.0" encoding="UTF-16"?><iBridge><Errors><Error Number="16000" Description="${MESSAGE}" /></Errors></iBridge>`;
const JSON_16000 = JSON.stringify({ status: 'Failure', message: MESSAGE });

for (const format of ['ibridge', 'json'] as const) {
  describe(`RESULT_FORMAT=${format}`, () => {
    let app: TestApp;
    let now = START;
    let securityPassword: string;
    /** Each member's factor's secret, by username: every binding has two members, so that tests share no codes or counts. */
    const secrets = new Map<string, string>();

    const call = (binding: Binding, operation: string, params: Record<string, string>) => callAsmx(app, binding, operation, params);

    /** The member id a success carries, in either format; null for a failure. */
    const memberOf = async (reply: Reply): Promise<string | null> => {
      expect(reply.status).toBe(200);
      if (format === 'json') {
        const parsed = JSON.parse(reply.result ?? 'null') as { status: string; contactid?: string };
        return parsed.status === 'Success' ? (parsed.contactid ?? null) : null;
      }
      return (await iBridge(reply.result)).user?.ID ?? null;
    };

    /** The in-band error number (iBridge) or message (json) of a failure. */
    const failureOf = async (reply: Reply): Promise<string | undefined> => {
      expect(reply.status).toBe(200);
      if (format === 'json') {
        const parsed = JSON.parse(reply.result ?? 'null') as { status: string; message?: string };
        expect(parsed.status).toBe('Failure');
        return parsed.message;
      }
      return (await iBridge(reply.result)).error?.Number;
    };

    const expect16000 = (reply: Reply) => {
      expect(reply.status).toBe(200);
      expect(reply.result).toBe(format === 'json' ? JSON_16000 : IBRIDGE_16000);
      expect((reply.result ?? '').toLowerCase()).not.toContain('success');
    };

    const username = (binding: Binding) => `ada-${binding}`;
    const memberId = (binding: Binding) => `1004${BINDINGS.indexOf(binding)}`;
    /** The member whose account the throttle test locks. */
    const lockedName = (binding: Binding) => `grace-${binding}`;
    const lockedId = (binding: Binding) => `2004${BINDINGS.indexOf(binding)}`;
    const code = (binding: Binding) => totpCode(secrets.get(username(binding)) ?? '', now);
    const credentials = (binding: Binding, authenticationToken?: string) => ({
      securityPassword,
      username: username(binding),
      password: PASSWORD,
      ...(authenticationToken === undefined ? {} : { authenticationToken }),
    });

    // Every call comes from 127.0.0.1: the per-address count is set out of the way, so that each binding's
    // account lock is its own.
    beforeAll(async () => {
      app = await startTestApp({
        env: { OPERATIONS: 'AuthenticateToken,AuthenticateUser,Login', RESULT_FORMAT: format, SIGNIN_MAX_FAILURES_PER_ACCOUNT: '3', SIGNIN_MAX_FAILURES_PER_ADDRESS: '1000' },
        clock: () => now,
      });
      ({ password: securityPassword } = await app.services.callers.add('portal'));
      const members = BINDINGS.flatMap((binding) => [
        [memberId(binding), username(binding)],
        [lockedId(binding), lockedName(binding)],
      ]);
      for (const [id = '', name = ''] of members) {
        await app.services.members.add({ id, username: name, email: `${name}@example.org` });
        await app.services.members.setPassword(id, PASSWORD);
        // A factor set up and confirmed as the account page does, with the app's first code.
        secrets.set(name, (await confirmedFactor(app.services, id, now)).secret);
      }
    });
    afterAll(() => app.close());

    describe.each(BINDINGS)('%s', (binding) => {
      test.each(['AuthenticateUser', 'Login'])('%s without authenticationToken, or with an empty one, is 16000', async (operation) => {
        now += STEP;
        // HTTP GET and POST require every declared parameter: there the token is sent empty.
        if (binding === 'soap11' || binding === 'soap12') expect16000(await call(binding, operation, credentials(binding)));
        expect16000(await call(binding, operation, credentials(binding, '')));
        expect(await app.services.sessions.list({ memberId: memberId(binding) })).toEqual([]);
      });

      test('a wrong code is 16000; the right one signs in, and the same code again is 16000', async () => {
        now += STEP;
        const right = code(binding);
        const wrong = right === '000000' ? '000001' : '000000';
        expect16000(await call(binding, 'AuthenticateUser', credentials(binding, wrong)));

        const signedIn = await call(binding, 'AuthenticateUser', credentials(binding, right));
        expect(await memberOf(signedIn)).toBe(memberId(binding));
        const token =
          format === 'json'
            ? String((JSON.parse(signedIn.result ?? '{}') as { pa_token?: string }).pa_token)
            : ((await iBridge(signedIn.result)).user?.TOKEN ?? '');
        expect(await memberOf(await call(binding, 'AuthenticateToken', { securityPassword, token }))).toBe(memberId(binding));

        expect16000(await call(binding, 'AuthenticateUser', credentials(binding, right)));
        now += STEP;
        expect(await memberOf(await call(binding, 'Login', credentials(binding, code(binding))))).toBe(memberId(binding));
      });

      test('wrong codes lock the account: then the answer is the lock (1005), even with the right code', async () => {
        now += STEP;
        const login = lockedName(binding);
        const right = totpCode(secrets.get(login) ?? '', now);
        const wrong = right === '000000' ? '000001' : '000000';
        const attempt = (authenticationToken: string) => call(binding, 'AuthenticateUser', { securityPassword, username: login, password: PASSWORD, authenticationToken });
        // SIGNIN_MAX_FAILURES_PER_ACCOUNT=3: two wrong codes are 16000, the third locks.
        expect16000(await attempt(wrong));
        expect16000(await attempt(wrong));
        const locking = await attempt(wrong);
        const lockedMessage = /^Sign-in is locked after repeated failures for this account or address; try again in \d+ seconds$/;
        if (format === 'json') expect(await failureOf(locking)).toMatch(lockedMessage);
        else expect(await failureOf(locking)).toBe('1005');

        const withRightCode = await attempt(right);
        if (format === 'json') expect(await failureOf(withRightCode)).toMatch(lockedMessage);
        else {
          expect(await failureOf(withRightCode)).toBe('1005');
          expect((await iBridge(withRightCode.result)).error?.Description).toMatch(lockedMessage);
        }
        expect(await app.services.sessions.list({ memberId: lockedId(binding) })).toEqual([]);
        // The right code was not used up by the locked call.
        await expect(app.services.secondFactor.check(lockedId(binding), right)).resolves.toEqual({ ok: true, kind: 'totp' });
      });
    });

    test('the call log and the metrics name the outcome second-factor-required, and never the code', async () => {
      now += STEP;
      const right = code('soap11');
      await call('soap11', 'Login', credentials('soap11', ''));
      await call('soap11', 'Login', credentials('soap11', right));
      expect(app.logLines).toContainEqual(
        expect.objectContaining({ message: 'call', operation: 'Login', caller: 'portal', outcome: 'second-factor-required' }),
      );
      expect(JSON.stringify(app.logLines)).not.toContain(right);
      const metrics = await scrape(app.baseUrl);
      expect(metrics).toMatch(/asmx_calls_total\{binding="soap11",operation="Login",outcome="second_factor_required"\} [1-9]/);
    });
  });
}

describe('AUTHENTICATION_TOKEN_PARAMETER=false (CRM4M\'s three parameters) and ValidateUser', () => {
  let app: TestApp;
  const now = START;

  beforeAll(async () => {
    app = await startTestApp({
      env: { OPERATIONS: 'AuthenticateUser,ValidateUser', AUTHENTICATION_TOKEN_PARAMETER: 'false', RESULT_FORMAT: 'json' },
      clock: () => now,
      seed: false,
    });
  });
  afterAll(() => app.close());

  test.each(BINDINGS)('a member with a factor gets 16000 whatever is sent, one without signs in (%s)', async (binding) => {
    const { password: securityPassword } = await app.services.callers.add(`portal-${binding}`);
    const [withFactor, without] = [`ada-${binding}`, `grace-${binding}`];
    for (const name of [withFactor, without]) {
      await app.services.members.add({ id: name, username: name });
      await app.services.members.setPassword(name, PASSWORD);
    }
    const { secret } = await app.services.secondFactor.beginSetup(withFactor, withFactor);
    await app.services.secondFactor.confirmSetup(withFactor, totpCode(secret, now - STEP));
    const call = async (operation: string, params: Record<string, string>) => {
      const reply = await callAsmx(app, binding, operation, { securityPassword, password: PASSWORD, ...params });
      expect(reply.status).toBe(200);
      return reply.result;
    };
    // The code is not a parameter of the operation: sent anyway, it is not read.
    expect(await call('AuthenticateUser', { username: withFactor, authenticationToken: totpCode(secret, now) })).toBe(JSON_16000);
    expect(await call('ValidateUser', { username: withFactor })).toBe(JSON_16000);
    expect(JSON.parse((await call('AuthenticateUser', { username: without })) ?? 'null')).toMatchObject({ status: 'Success', contactid: without });
    expect(JSON.parse((await call('ValidateUser', { username: without })) ?? 'null')).toMatchObject({ status: 'Success', contactid: without });
  });
});
