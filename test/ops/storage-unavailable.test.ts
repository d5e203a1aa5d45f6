/**
 * The store refusing writes while the service runs: SQLite's DATA_DIR on a full file system, its database locked
 * by another program, PostgreSQL turned read-only. Each protocol answers a write with its own error (a SOAP fault,
 * HTTP 503, the sign-in page's "temporarily unavailable" with 503, OAuth's `temporarily_unavailable`, the same page to a SAML request), the cause is logged once for the whole burst and counted by cause, reads
 * go on answering, and writes work again once the condition ends, with no restart.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { RECOVERY_QUIET_MS } from '../../src/ops/store-availability.js';
import { openStore, SQLITE_FILENAME } from '../../src/store/open.js';
import { StoreUnavailableError } from '../../src/store/unavailable.js';
import { callAsmx, type Binding } from '../helpers/asmx-request.js';
import { useFakeTimers } from '../helpers/fake-timers.js';
import { sample } from '../helpers/metrics.js';
import { PageClient } from '../helpers/page-client.js';
import { freePort } from '../helpers/ports.js';
import { POSTGRES } from '../helpers/postgres.js';
import { writeRefusingDatabase, type WriteRefusingDatabase } from '../helpers/read-only-postgres.js';
import { describeRequiring } from '../helpers/requirements.js';
import { mountSmallTmpfs, TMPFS, type SmallTmpfs } from '../helpers/small-tmpfs.js';
import { holdWriteLock, type HeldLock } from '../helpers/sqlite-lock.js';
import { startTestApp, type OpenedStore, type TestApp } from '../helpers/test-app.js';
import { nextTurn } from '../helpers/wait.js';
import { registerSp, type ServiceProvider } from '../saml/service-provider.js';

const PASSWORD = 'correct horse battery staple';
const BURST = 8;
const REDIRECT_URI = 'https://platform.example.org/callback';

interface Condition {
  /** The store the app runs on, opened where the condition can be brought about. */
  open(): Promise<OpenedStore>;
  /** What the log and the metric call the cause. */
  reason: string;
  /** The database as the log line names it. */
  where(): string;
  start(): Promise<void>;
  end(): Promise<void>;
  /** How many writes may still fail once the condition ended, before the store has put it behind it. */
  settling: number;
  /** Whether a write waits a while for the condition to end (a lock to be released) before it is refused. */
  waits: boolean;
}

function whenStoreRefusesWrites(name: string, condition: Condition): void {
  let app: TestApp;
  let securityPassword: string;
  let token: string;
  let oidcClient: { id: string };
  let scimToken: string;
  let oidcBrowser: PageClient;
  let interactionPath: string;
  let samlSp: ServiceProvider;
  const authorizationQuery = (state: string) =>
    new URLSearchParams({
      client_id: oidcClient.id,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: 'openid',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      state,
    });

  /** The count so far: the series is written once first counted, so before that it is 0. */
  const unavailableCount = async () => sample((await app.metrics?.registry.metrics()) ?? '', `store_unavailable_total{reason="${condition.reason}"}`) ?? 0;

  const call = (binding: Binding, operation: string, params: Record<string, string>) => callAsmx(app, binding, operation, params);
  const authenticateUser = (binding: Binding) => call(binding, 'AuthenticateUser', { securityPassword, username: 'ada', password: PASSWORD, authenticationToken: '' });
  const errorLines = () => app.logLines.filter((line) => line.level === 'error');
  /** The write's answer, the write made again up to `settling` times while it does not answer `status`. */
  async function settled<A extends { status: number }>(write: () => Promise<A>, status: number): Promise<A> {
    let answer = await write();
    for (let tries = 0; answer.status !== status && tries < condition.settling; tries += 1) answer = await write();
    return answer;
  }

  beforeAll(async () => {
    const port = await freePort();
    const env = { OPERATIONS: 'AuthenticateCookie,AuthenticateToken,AuthenticateUser', PUBLIC_URL: `http://127.0.0.1:${port}` };
    app = await startTestApp({ store: () => condition.open(), seed: false, port, env });
    ({ password: securityPassword } = await app.services.callers.add('portal'));
    ({ token: scimToken } = await app.services.provisioners.add('entra'));
    ({ client: oidcClient } = await app.services.oidc.clients.add('platform', { redirectUris: [REDIRECT_URI], public: true }));
    await app.services.members.add({ id: '10042', username: 'ada', email: 'ada@example.org', firstName: 'Ada', lastName: 'Lovelace' });
    await app.services.members.setPassword('10042', PASSWORD);
    ({ token } = await app.services.sessions.create('10042', 'example.org'));
    // A member signed in on the sign-in page, whose browser an OpenID client has just sent to its sign-in step.
    oidcBrowser = new PageClient(app.baseUrl);
    expect((await oidcBrowser.signIn('ada', PASSWORD)).status).toBe(303);
    const interaction = await oidcBrowser.get(`/oidc/auth?${authorizationQuery('abc')}`);
    interactionPath = interaction.headers.location ?? '';
    expect(interactionPath).toMatch(/^\/oidc\/interaction\//);
    samlSp = await registerSp(app, 'events');
    await condition.start();
  });
  afterAll(async () => {
    jest.useRealTimers();
    await condition.end();
    await app.close();
  });

  describe(name, () => {
    test('AuthenticateUser over SOAP 1.1 answers a server fault saying the service is unavailable', async () => {
      const answer = await authenticateUser('soap11');
      expect(answer.status).toBe(500);
      expect(answer.contentType).toMatch(/^text\/xml/);
      expect(answer.body).toMatch(/<faultcode>soap:Server<\/faultcode>/);
      expect(answer.body).toMatch(/<faultstring>Server was unable to process request\. ---&gt; The service cannot use its database at the moment; try again later\.<\/faultstring>/);
      expect(answer.body).not.toContain(condition.where());
    });

    test('AuthenticateUser over HTTP POST answers 503 with the same text', async () => {
      const answer = await authenticateUser('httppost');
      expect(answer).toMatchObject({ status: 503, contentType: 'text/plain; charset=utf-8', body: 'The service cannot use its database at the moment; try again later.\n' });
    });

    test('the sign-in page answers 503, saying sign-in is temporarily unavailable', async () => {
      const visitor = new PageClient(app.baseUrl);
      const page = await visitor.signIn('ada', PASSWORD);
      expect(page.status).toBe(503);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.text).toContain('Sign-in is temporarily unavailable');
      expect(visitor.loginCookie).toBeUndefined();
    });

    test("an OpenID client's authorization request goes back to the client with OAuth's temporarily_unavailable", async () => {
      const answer = await fetch(`${app.baseUrl}/oidc/auth?${authorizationQuery('xyz')}`, { redirect: 'manual' });
      expect(answer.status).toBe(303);
      const back = new URL(answer.headers.get('location') ?? '');
      expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
      expect(Object.fromEntries(back.searchParams)).toMatchObject({ error: 'temporarily_unavailable', state: 'xyz' });
      expect(back.searchParams.get('error_description')).not.toContain(condition.where());
    });

    test('a member signed in before, going on with an OpenID sign-in, is shown the 503 page; a client gets JSON', async () => {
      const asClient = await oidcBrowser.get(interactionPath, { accept: 'application/json' });
      expect([asClient.status, JSON.parse(asClient.text)]).toEqual([
        503,
        { error: 'temporarily_unavailable', error_description: expect.stringMatching(/^The service cannot use its database/) },
      ]);
      const page = await oidcBrowser.get(interactionPath, { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' });
      expect(page.status).toBe(503);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.text).toContain('Sign-in is temporarily unavailable');
    });

    test("a SAML SP's AuthnRequest and LogoutRequest are shown the 503 page in the layout, not ASP.NET's 500", async () => {
      const profile = { issuer: samlSp.entityId, nameID: '10042', nameIDFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent', sessionIndex: '_s1' };
      for (const url of [await samlSp.saml.getAuthorizeUrlAsync('', undefined, {}), await samlSp.saml.getLogoutUrlAsync(profile, '', {})]) {
        const { pathname, search } = new URL(url);
        const page = await new PageClient(app.baseUrl).get(pathname + search);
        expect(page.status).toBe(503);
        expect(page.headers['content-type']).toMatch(/^text\/html/);
        expect(page.text).toContain('<main class="card">');
        expect(page.text).toContain('Sign-in is temporarily unavailable');
        expect(page.text).not.toContain(condition.where());
      }
    });

    test('a SCIM client creating a User is answered 503 in SCIM\'s error format; its reads are answered', async () => {
      const scim = (method: string, path: string, body?: object) =>
        fetch(`${app.baseUrl}/scim/v2${path}`, {
          method,
          headers: { authorization: `Bearer ${scimToken}`, 'content-type': 'application/scim+json' },
          ...(body ? { body: JSON.stringify(body) } : {}),
        }).then(async (answer) => ({ status: answer.status, body: (await answer.json()) as Record<string, unknown> }));
      const created = await scim('POST', '/Users', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'grace@example.org' });
      expect(created).toEqual({
        status: 503,
        body: { schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '503', detail: expect.stringMatching(/cannot use its database/) },
      });
      expect(JSON.stringify(created.body)).not.toContain(condition.where());
      const found = await scim('GET', '/Users?filter=userName%20eq%20%22ada%22');
      expect([found.status, found.body['totalResults']]).toEqual([200, 1]);
    });

    test('reads go on answering: AuthenticateToken verifies the session', async () => {
      const answer = await call('httpget', 'AuthenticateToken', { securityPassword, token });
      expect(answer.status).toBe(200);
      expect(answer.result).toContain('10042');
    });

    if (condition.waits) {
      test('while a write waits, the calls that only read are answered', async () => {
        const answered: string[] = [];
        // A write begun in the service's own process, so that it reaches the store before the read below is even sent.
        const write = app.services.sessions.create('10042', 'example.org').then(
          () => answered.push('write'),
          (error: unknown) => answered.push(error instanceof StoreUnavailableError ? 'write refused' : String(error)),
        );
        const read = await call('httpget', 'AuthenticateToken', { securityPassword, token });
        answered.push('read');
        expect(read.result).toContain('10042');
        expect(await fetch(`${app.baseUrl}/readyz`).then((response) => response.status)).toBe(200);
        await write;
        expect(answered).toEqual(['read', 'write refused']);
      });
    }

    test('a burst of failing writes logs the cause once, naming the database, and counts every one by cause', async () => {
      const before = await unavailableCount();
      const burst = await Promise.all(Array.from({ length: BURST }, () => authenticateUser('httppost')));
      expect(burst.map((answer) => answer.status)).toEqual(Array(BURST).fill(503));
      await nextTurn();
      expect(await unavailableCount()).toBeGreaterThanOrEqual(before + BURST);
      expect(errorLines()).toEqual([
        expect.objectContaining({ message: 'store unavailable', reason: condition.reason, database: condition.where(), error: expect.stringContaining(condition.where()) }),
      ]);
      const calls = app.logLines.filter((line) => line.message === 'call' && line.operation === 'AuthenticateUser');
      expect(calls.length).toBeGreaterThanOrEqual(BURST + 2);
      expect(calls.every((line) => line.level === 'info' && line.outcome === 'unavailable')).toBe(true);
    });

    test('writes work again once the condition ends, without a restart, and the recovery is logged once', async () => {
      useFakeTimers();
      await condition.end();
      const answer = await settled(() => authenticateUser('httppost'), 200);
      expect(answer.status).toBe(200);
      expect(answer.result).toContain('10042');
      const visitor = new PageClient(app.baseUrl);
      expect((await settled(() => visitor.signIn('ada', PASSWORD), 303)).status).toBe(303);
      expect(visitor.loginCookie).toBeDefined();

      await jest.advanceTimersByTimeAsync(RECOVERY_QUIET_MS);
      await nextTurn();
      const recovered = app.logLines.filter((line) => line.message === 'store available again');
      expect(recovered).toEqual([expect.objectContaining({ level: 'info', reason: condition.reason, database: condition.where(), failures: expect.any(Number) })]);
      expect(errorLines()).toHaveLength(1);
    });
  });
}

describeRequiring([TMPFS], 'SQLite, its DATA_DIR on a full file system', () => {
  let disk: SmallTmpfs;
  whenStoreRefusesWrites('a full disk', {
    open: async () => {
      disk = mountSmallTmpfs();
      const store = await openStore({ dataDir: disk.path });
      return {
        store,
        cleanup: async () => {
          await store.close();
          disk.remove();
        },
      };
    },
    reason: 'disk-full',
    where: () => join(disk.path, 'authentication.sqlite'),
    start: () => disk.fill(),
    end: () => disk.free(),
    settling: 0,
    waits: false,
  });
});

describe('SQLite, its database locked by another program', () => {
  let dataDir: string;
  let lock: HeldLock | undefined;
  whenStoreRefusesWrites('a locked database', {
    open: async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'authentication-asmx-'));
      const store = await openStore({ dataDir });
      return {
        store,
        cleanup: async () => {
          await store.close();
          await rm(dataDir, { recursive: true, force: true });
        },
      };
    },
    reason: 'locked',
    where: () => join(dataDir, SQLITE_FILENAME),
    start: async () => {
      lock = await holdWriteLock(join(dataDir, SQLITE_FILENAME));
    },
    end: async () => {
      await lock?.release();
      lock = undefined;
    },
    settling: 0,
    waits: true,
  });
});

describeRequiring([POSTGRES], 'PostgreSQL refusing writes', () => {
  let database: WriteRefusingDatabase;
  whenStoreRefusesWrites('a read-only database', {
    open: async () => {
      database = await writeRefusingDatabase();
      return { store: database.store, cleanup: () => database.cleanup() };
    },
    reason: 'read-only',
    where: () => database.where,
    start: () => database.refuseWrites(),
    end: () => database.acceptWrites(),
    // The pool's connections opened while the database refused writes: each is replaced once a write fails on it.
    settling: 10,
    waits: false,
  });
});
