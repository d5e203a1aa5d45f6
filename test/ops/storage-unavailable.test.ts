/**
 * The store refusing writes while the service runs: SQLite's DATA_DIR on a full file system, PostgreSQL turned
 * read-only. Each protocol answers a write with its own error (a SOAP fault, HTTP 503, the sign-in page's
 * "temporarily unavailable" with 503), the cause is logged once for the whole burst and counted by cause, reads
 * go on answering, and writes work again once the condition ends, with no restart.
 */
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { RECOVERY_QUIET_MS } from '../../src/ops/store-availability.js';
import { openStore } from '../../src/store/open.js';
import { asmxRequest, resultText, type Binding } from '../helpers/asmx-request.js';
import { useFakeTimers } from '../helpers/fake-timers.js';
import { POSTGRES } from '../helpers/postgres.js';
import { writeRefusingDatabase, type WriteRefusingDatabase } from '../helpers/read-only-postgres.js';
import { describeRequiring } from '../helpers/requirements.js';
import { mountSmallTmpfs, TMPFS, type SmallTmpfs } from '../helpers/small-tmpfs.js';
import { startTestApp, type OpenedStore, type TestApp } from '../helpers/test-app.js';
import { nextTurn } from '../helpers/wait.js';
import { PageClient } from '../signin/page-client.js';

const PASSWORD = 'correct horse battery staple';
const BURST = 8;

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
}

function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

function whenStoreRefusesWrites(name: string, condition: Condition): void {
  let app: TestApp;
  let securityPassword: string;
  let token: string;

  const unavailableCount = async () => sample((await app.metrics?.registry.metrics()) ?? '', `store_unavailable_total{reason="${condition.reason}"}`);

  async function call(binding: Binding, operation: string, params: Record<string, string>) {
    const { path, element, ...init } = asmxRequest(app.config.soapNamespace, binding, operation, params);
    const response = await fetch(`${app.baseUrl}${app.config.basePath}${path}`, init);
    const body = await response.text();
    return { status: response.status, contentType: response.headers.get('content-type'), body, result: response.status === 200 ? resultText(body, element) : null };
  }
  const authenticateUser = (binding: Binding) => call(binding, 'AuthenticateUser', { securityPassword, username: 'ada', password: PASSWORD, authenticationToken: '' });
  const errorLines = () => app.logLines.filter((line) => line.level === 'error');
  /** The write's answer, the write made again up to `settling` times while it does not answer `status`. */
  async function settled<A extends { status: number }>(write: () => Promise<A>, status: number): Promise<A> {
    let answer = await write();
    for (let tries = 0; answer.status !== status && tries < condition.settling; tries += 1) answer = await write();
    return answer;
  }

  beforeAll(async () => {
    app = await startTestApp({ store: () => condition.open(), seed: false, env: { OPERATIONS: 'AuthenticateCookie,AuthenticateToken,AuthenticateUser' } });
    ({ password: securityPassword } = await app.services.callers.add('portal'));
    await app.services.members.add({ id: '10042', username: 'ada', email: 'ada@example.org', firstName: 'Ada', lastName: 'Lovelace' });
    await app.services.members.setPassword('10042', PASSWORD);
    ({ token } = await app.services.sessions.create('10042', 'example.org'));
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
      expect(answer.body).toMatch(/<faultstring>Server was unable to process request\. ---&gt; The service cannot write to its database at the moment; try again later\.<\/faultstring>/);
      expect(answer.body).not.toContain(condition.where());
    });

    test('AuthenticateUser over HTTP POST answers 503 with the same text', async () => {
      const answer = await authenticateUser('httppost');
      expect(answer).toMatchObject({ status: 503, contentType: 'text/plain; charset=utf-8', body: 'The service cannot write to its database at the moment; try again later.\n' });
    });

    test('the sign-in page answers 503, saying sign-in is temporarily unavailable', async () => {
      const visitor = new PageClient(app.baseUrl);
      const page = await visitor.signIn('ada', PASSWORD);
      expect(page.status).toBe(503);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.text).toContain('Sign-in is temporarily unavailable');
      expect(visitor.loginCookie).toBeUndefined();
    });

    test('reads go on answering: AuthenticateToken verifies the session', async () => {
      const answer = await call('httpget', 'AuthenticateToken', { securityPassword, token });
      expect(answer.status).toBe(200);
      expect(answer.result).toContain('10042');
    });

    test('a burst of failing writes logs the cause once, naming the database, and counts every one by cause', async () => {
      const before = await unavailableCount();
      for (let i = 0; i < BURST; i += 1) expect((await authenticateUser('httppost')).status).toBe(503);
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
  });
});
