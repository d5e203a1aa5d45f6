/**
 * store copy, backup and check as an operator runs them, over running services: a populated SQLite store copied
 * to PostgreSQL and back, each copy then answering a partner's AuthenticateToken with a session made before
 * (and its security password), a member's sign-in with the old password and a second factor, and an OpenID
 * client's refresh token, with the same server key; a backup taken while calls are served, restored and signed
 * in on; the refusals' exit codes and messages.
 */
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as oidcClient from 'openid-client';
import { createCliContext } from '../../src/cli/context.js';
import { runCli } from '../../src/cli/program.js';
import { openStore, sqlitePath } from '../../src/store/open.js';
import { soap12AuthenticateToken } from '../helpers/asmx-calls.js';
import { capturingIo, type CliResult } from '../helpers/cli-harness.js';
import { FlowClock } from '../helpers/flow-clock.js';
import { PageClient } from '../helpers/page-client.js';
import { freePort } from '../helpers/ports.js';
import { describeWithPostgres } from '../helpers/postgres.js';
import { createTestDatabase, type TestDatabase } from '../helpers/processes.js';
import { REFERENCE } from '../helpers/reference-data.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { authorizationRequest, callbackUrl, PASSWORD, register, relyingParty, signInThrough, startOidcApp } from '../oidc/relying-party.js';
import { registerSp } from '../saml/service-provider.js';

let dir: string;
let database: TestDatabase | undefined;
const key = randomBytes(32);
let keyFile: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'asmx-store-cli-'));
  keyFile = join(dir, 'server.key');
  await writeFile(keyFile, `${key.toString('base64')}\n`, { mode: 0o600 });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
  await database?.drop();
  database = undefined;
});

/** The CLI as the operator runs it, with the settings of a data directory (and DATABASE_URL when given). */
async function cli(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  const io = capturingIo();
  const code = await runCli(args, createCliContext({ SECRET_KEY_FILE: keyFile, ...env }, io), '9.9.9-test');
  return { code, stdout: io.stdout, stderr: io.stderr };
}

/** A store a test app opens on a data directory, or on DATABASE_URL. */
const storeAt = (dataDir: string, databaseUrl?: string) => async () => {
  const store = await openStore({ dataDir, databaseUrl });
  return { store, cleanup: () => store.close() };
};

/** Writes what the app queued (events, last-seen times) and stops it. */
async function stop(app: TestApp): Promise<void> {
  await app.services.events.flush();
  await app.services.sessions.flushLastSeen();
  await app.close();
}

describeWithPostgres('store copy', () => {
  test('a populated SQLite store copied to PostgreSQL and back: partners, members with their second factor and OpenID clients go on working on each copy with the same server key', async () => {
    const port = await freePort();
    const env = { OPERATIONS: 'AuthenticateToken,DeleteUserSession', PUBLIC_URL: `http://127.0.0.1:${port}` };
    const clock = new FlowClock();
    const dataDir = join(dir, 'data');

    // The store as a running service filled it: the reference partner and its session, ada with a password and a
    // second factor, an OpenID client with a grant, a SAML SP and keys, a staff role, events.
    const first = await startOidcApp({ store: storeAt(dataDir), port, secretKey: key, clock: clock.now, env });
    const code = await clock.enrol(first);
    await registerSp(first, 'wiki');
    await first.services.staff.grant(REFERENCE.memberId, 'admin');
    const issued = await register(first, { firstParty: true });
    const request = await authorizationRequest(await relyingParty(first, issued));
    const back = await signInThrough(new PageClient(first.baseUrl), first, request.url, code);
    const tokens = await oidcClient.authorizationCodeGrant(await relyingParty(first, issued), callbackUrl(back), {
      pkceCodeVerifier: request.verifier,
      expectedState: request.state,
      expectedNonce: request.nonce,
    });
    const before = {
      sps: await first.services.saml.sps.list(),
      keys: await first.services.saml.keys.list(),
      staff: await first.services.staff.list(),
      events: await first.services.events.list({ memberId: REFERENCE.memberId }),
    };
    await stop(first);
    expect(before.events.length).toBeGreaterThan(0);

    /** What must work on a copy; returns the refresh token the client holds afterwards. */
    const worksOn = async (open: () => Promise<{ store: import('../../src/store/store.js').Store; cleanup: () => Promise<void> }>, refreshToken: string) => {
      const app = await startTestApp({ store: open, port, secretKey: key, clock: clock.now, env, seed: false });
      try {
        expect(await soap12AuthenticateToken(app.baseUrl, REFERENCE.token)).toBe(REFERENCE.memberId);
        const browser = new PageClient(app.baseUrl);
        const step = await browser.signIn('ada', PASSWORD);
        expect(step.text).toContain('name="code"');
        expect((await browser.submit(step, { code: code() })).status).toBe(303);
        expect(browser.loginCookie).toBeDefined();
        const refreshed = await oidcClient.refreshTokenGrant(await relyingParty(app, issued), refreshToken);
        expect(refreshed.access_token).toEqual(expect.any(String));
        expect({
          sps: await app.services.saml.sps.list(),
          keys: await app.services.saml.keys.list(),
          staff: await app.services.staff.list(),
        }).toEqual({ sps: before.sps, keys: before.keys, staff: before.staff });
        expect(await app.services.events.list({ memberId: REFERENCE.memberId })).toEqual(expect.arrayContaining(before.events));
        await stop(app);
        return refreshed.refresh_token ?? refreshToken;
      } catch (error) {
        await app.close();
        throw error;
      }
    };

    database = await createTestDatabase('asmx_store_cli');
    const there = await cli({ DATA_DIR: dataDir }, 'store', 'copy', '--to', database.url, '--json');
    expect(there).toMatchObject({ code: 0, stderr: '' });
    const report = JSON.parse(there.stdout) as { verified: boolean; source: string; tables: Array<{ name: string; rows: number }> };
    expect(report).toMatchObject({ verified: true, source: sqlitePath(dataDir), startedOver: false, withoutSessions: false });
    expect(report.tables.filter((table) => table.rows > 0).map((table) => table.name)).toEqual(
      expect.arrayContaining(['callers', 'members', 'sessions', 'member_second_factors', 'oidc_clients', 'oidc_payloads', 'saml_sps', 'saml_keys', 'events', 'staff_roles']),
    );
    const refreshToken = await worksOn(storeAt(dir, database.url), tokens.refresh_token ?? '');

    const home = join(dir, 'home');
    await mkdir(home);
    const again = await cli({ DATA_DIR: dataDir }, 'store', 'copy', '--from', database.url, '--to', `file:${home}`);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^Copied [\d,]+ rows of \d+ tables from 127\.0\.0\.1:5432\/asmx_store_cli_\w+ to .*authentication\.sqlite\.\n/);
    expect(again.stdout).toContain("Verified: every table's count and checksum match the source's.\nKeep the server key with it");
    await worksOn(storeAt(home), refreshToken);
  });

  test('refuses with a clear message and a non-zero exit, and no stack trace', async () => {
    const dataDir = join(dir, 'data');
    (await openStore({ dataDir })).close();
    const refusals = [
      [['store', 'copy', '--to', 'postgres://admin:secret-password@127.0.0.1:1/nowhere'], /^error: cannot reach the PostgreSQL database at 127\.0\.0\.1:1\/nowhere \(the target\): connect ECONNREFUSED/],
      [['store', 'copy', '--to', `file:${dataDir}`], /^error: the source and the target are the same database/],
      [['store', 'copy', '--to', 'sqlite.db'], /^error: "sqlite.db" is not a store location: give file:PATH/],
      [['store', 'copy', '--from', `file:${join(dir, 'none.sqlite')}`, '--to', `file:${join(dir, 'x.sqlite')}`], /^error: cannot open the SQLite database .*none\.sqlite as the source/],
      [['store', 'copy'], /error: required option '--to <url>' not specified/],
    ] as const;
    for (const [args, message] of refusals) {
      const result = await cli({ DATA_DIR: dataDir }, ...args);
      expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: args.length === 2 ? 2 : 1, stdout: '' });
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toMatch(/\n\s+at |secret-password/);
    }
  });
});

describe('store backup', () => {
  test('takes a consistent copy of the live SQLite store while calls are served, which restores and signs a member in', async () => {
    const dataDir = join(dir, 'data');
    const app = await startTestApp({ store: storeAt(dataDir), secretKey: key, env: { OPERATIONS: 'AuthenticateToken,AuthenticateUser' } });
    await app.services.members.setPassword(REFERENCE.memberId, PASSWORD);
    const backup = join(dir, 'backup.sqlite');
    let calls = 0;
    let serving = true;
    // Partners' calls and members' sign-ins (each a session written) over HTTP, from another connection, all along.
    const load = (async () => {
      while (serving) {
        expect(await soap12AuthenticateToken(app.baseUrl, REFERENCE.token)).toBe(REFERENCE.memberId);
        expect((await new PageClient(app.baseUrl).signIn('ada', PASSWORD)).status).toBe(303);
        calls += 2;
      }
    })();
    try {
      while (calls < 10) await new Promise((resolve) => setTimeout(resolve, 10));
      const result = await cli({ DATA_DIR: dataDir }, 'store', 'backup', backup, '--json');
      const during = calls;
      while (calls < during + 4) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(result.stdout)).toMatchObject({ file: backup, ok: true, bytes: (await stat(backup)).size });
      expect((await stat(backup)).mode & 0o777).toBe(0o600);
    } finally {
      serving = false;
      await load;
      await app.close();
    }

    // Restored elsewhere, with the same key: the backup checks out, and ada signs in on it.
    const restored = join(dir, 'restored');
    await mkdir(restored);
    await copyFile(backup, sqlitePath(restored));
    const check = await cli({ DATA_DIR: restored }, 'store', 'check');
    expect(check.code).toBe(0);
    expect(check.stdout).toMatch(/^store\s+.*restored\/authentication\.sqlite\ndialect\s+sqlite\nresult\s+ok\n/);
    expect(check.stdout).toMatch(/migrations\s+ok\s+up to date: \d+ migrations, the latest '/);
    const onBackup = await startTestApp({ store: storeAt(restored), secretKey: key, seed: false, env: { OPERATIONS: 'AuthenticateToken' } });
    try {
      expect((await new PageClient(onBackup.baseUrl).signIn('ada', PASSWORD)).status).toBe(303);
      expect(await soap12AuthenticateToken(onBackup.baseUrl, REFERENCE.token)).toBe(REFERENCE.memberId);
    } finally {
      await onBackup.close();
    }
  });

  test('refuses a file that exists and a PostgreSQL store (pointing to pg_dump), writing nothing', async () => {
    const dataDir = join(dir, 'data');
    (await openStore({ dataDir })).close();
    const existing = join(dir, 'existing.sqlite');
    await writeFile(existing, 'kept');
    const refused = await cli({ DATA_DIR: dataDir }, 'store', 'backup', existing);
    expect(refused).toEqual({ code: 1, stdout: '', stderr: `error: cannot write the backup to ${existing}: it exists already: name a new file\n` });
    const postgres = await cli({ DATA_DIR: dataDir, DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' }, 'store', 'backup', join(dir, 'pg.sqlite'));
    expect(postgres.code).toBe(1);
    expect(postgres.stderr).toContain('this store is PostgreSQL: back it up with pg_dump');
  });
});

describe('store check', () => {
  test('says what it checked, as JSON too, and fails on a store never migrated', async () => {
    const dataDir = join(dir, 'data');
    (await openStore({ dataDir })).close();
    const checked = await cli({ DATA_DIR: dataDir }, 'store', 'check', '--json');
    expect(checked.code).toBe(0);
    const report = JSON.parse(checked.stdout) as { ok: boolean; checks: Array<{ name: string; ok: boolean }>; tables: Array<{ name: string; rows: number }> };
    expect(report.checks.map((check) => [check.name, check.ok])).toEqual([
      ['migrations', true],
      ['unfinished copy', true],
      ['integrity', true],
    ]);
    expect(report.tables).toContainEqual({ name: 'members', rows: 0 });
    const empty = join(dir, 'empty.sqlite');
    await writeFile(empty, '');
    const failed = await cli({ DATA_DIR: dataDir }, 'store', 'check', `file:${empty}`);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/result\s+FAILED\n[\s\S]*migrations\s+FAILED\s+.*holds no store: it was never migrated/);
  });
});
