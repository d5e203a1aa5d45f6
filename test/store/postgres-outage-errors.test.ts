/**
 * What pg and PostgreSQL report when the server goes away, taken from a real server of the test's own (stopped,
 * shutting down, its connections cut, over its connection limit) rather than written by hand, each told as the
 * store being unavailable: the server cannot be reached (refused, not answering, starting up or shutting down),
 * the connections ended (a shutdown, a connection closed or reset), or it is out of resources. The store throws StoreUnavailableError in their place, on plain statements and in
 * transactions alike, and works again once the server is back, on the same pool.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import pg from 'pg';
import type { SessionRow } from '../../src/store/rows.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { postgresUnavailableReason } from '../../src/store/postgres/unavailable-reasons.js';
import { StoreUnavailableError } from '../../src/store/unavailable.js';
import { freePort } from '../helpers/ports.js';
import { POSTGRES_SERVER, startPrivatePostgres, type PrivatePostgres } from '../helpers/private-postgres.js';
import { describeRequiring } from '../helpers/requirements.js';
import { waitUntil } from '../helpers/wait.js';

/** A client on its own, whose 'error' events (a connection ended while idle) are kept rather than thrown. */
async function connected(url: string): Promise<{ client: pg.Client; events: Error[] }> {
  const client = new pg.Client({ connectionString: url });
  const events: Error[] = [];
  client.on('error', (error) => events.push(error));
  await client.connect();
  return { client, events };
}

/** The error the promise rejects with (it must reject). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

const SESSION: SessionRow = {
  id: 's1',
  memberId: 'ada',
  cookieDomain: 'example.org',
  cookieHash: 'cookie-hash',
  tokenHash: 'token-hash',
  tokenSealed: 'sealed',
  cookieSealed: null,
  createdAt: 1,
  lastSeenAt: 1,
  expiresAt: 2,
  revokedAt: null,
  clientAddress: null,
  userAgent: null,
};

describeRequiring([POSTGRES_SERVER], "PostgreSQL's errors when its server goes away", () => {
  let server: PrivatePostgres;

  beforeAll(async () => {
    server = await startPrivatePostgres();
  }, 60_000);
  afterAll(() => server?.remove(), 60_000);
  // Each test finds the server running, whatever the one before it left.
  afterEach(() => server.start(), 60_000);

  test('a fast stop ends the statement in flight (57P01, the connection lost); then connections are refused (unreachable)', async () => {
    const { client } = await connected(server.url);
    const pid = ((await client.query('SELECT pg_backend_pid() AS pid')).rows[0] as { pid: number }).pid;
    const inFlight = rejection(client.query('SELECT pg_sleep(60)'));
    await waitUntil(async () => {
      const { client: probe } = await connected(server.url);
      const { rows } = await probe.query("SELECT count(*)::INT AS n FROM pg_stat_activity WHERE pid = $1 AND wait_event = 'PgSleep'", [pid]);
      await probe.end();
      return (rows[0] as { n: number }).n === 1;
    }, 'the statement to be running', { timeoutMs: 20_000 });
    await server.stop({ mode: 'fast' });
    const ended = await inFlight;
    expect(ended).toMatchObject({ code: '57P01' });
    expect(postgresUnavailableReason(ended)).toBe('connection-lost');

    const refused = await rejection(new pg.Client({ connectionString: server.url }).connect());
    expect(refused).toMatchObject({ code: 'ECONNREFUSED' });
    expect(postgresUnavailableReason(refused)).toBe('unreachable');
  }, 60_000);

  test('a server shutting down and waiting for its sessions refuses new ones (57P03, unreachable)', async () => {
    const { client: holder } = await connected(server.url);
    await server.stop({ mode: 'smart', wait: false });
    let refusal: unknown;
    try {
      await waitUntil(
        async () => {
          const attempt = new pg.Client({ connectionString: server.url });
          attempt.on('error', () => {});
          refusal = await attempt.connect().then(
            () => attempt.end().then(() => undefined),
            (error: unknown) => error,
          );
          return refusal !== undefined;
        },
        'the server to refuse connections',
        { timeoutMs: 20_000 },
      );
    } finally {
      await holder.end();
      await server.stop({ mode: 'fast' });
    }
    expect(refusal).toMatchObject({ code: '57P03' });
    expect(postgresUnavailableReason(refusal)).toBe('unreachable');
  }, 60_000);

  describe('a connection cut on the way (a proxy in front of the server drops it)', () => {
    let proxy: Server;
    let url: string;
    /** Every socket the proxy made, for afterAll; the pairs of the connections not cut yet. */
    const sockets = new Set<Socket>();
    let uncut: Array<{ client: Socket; upstream: Socket }> = [];
    beforeAll(async () => {
      const port = await freePort();
      proxy = createServer((client) => {
        const upstream = connect(server.port, '127.0.0.1');
        client.pipe(upstream).pipe(client);
        client.on('error', () => {});
        upstream.on('error', () => {});
        sockets.add(client).add(upstream);
        uncut.push({ client, upstream });
      });
      await new Promise<void>((resolve) => proxy.listen(port, '127.0.0.1', resolve));
      url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    });
    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    });

    test.each([
      ['closed', (socket: Socket) => socket.end(), { message: 'Connection terminated unexpectedly' }],
      ['reset', (socket: Socket) => socket.resetAndDestroy(), { code: 'ECONNRESET' }],
    ])('%s under a statement, and under an idle connection, is the connection lost', async (_how, cut, expected) => {
      const working = await connected(url);
      const idle = await connected(url);
      const inFlight = rejection(working.client.query('SELECT pg_sleep(60)'));
      for (const { client, upstream } of uncut) {
        upstream.unpipe(client);
        upstream.destroy();
        cut(client);
      }
      uncut = [];
      const dropped = await inFlight;
      expect(dropped).toMatchObject(expected);
      expect(postgresUnavailableReason(dropped)).toBe('connection-lost');
      await waitUntil(() => idle.events.length > 0, 'the idle connection to report its end', { timeoutMs: 20_000 });
      expect(idle.events).toEqual([expect.objectContaining(expected)]);
      expect(idle.events.map(postgresUnavailableReason)).toEqual(['connection-lost']);
    });
  });

  test('a role over its connection limit is refused (53300, out of resources)', async () => {
    const { client: admin } = await connected(server.url);
    await admin.query('CREATE ROLE limited LOGIN CONNECTION LIMIT 1');
    try {
      const url = server.url.replace('postgres@', 'limited@');
      const { client: first } = await connected(url);
      const refused = await rejection(new pg.Client({ connectionString: url }).connect());
      expect(refused).toMatchObject({ code: '53300' });
      expect(postgresUnavailableReason(refused)).toBe('out-of-resources');
      await first.end();
    } finally {
      await admin.query('DROP ROLE limited');
      await admin.end();
    }
  }, 60_000);

  describe('a server that accepts connections and never answers', () => {
    let silent: Server;
    const sockets = new Set<Socket>();
    let url: string;
    beforeAll(async () => {
      const port = await freePort();
      silent = createServer((socket) => void sockets.add(socket));
      await new Promise<void>((resolve) => silent.listen(port, '127.0.0.1', resolve));
      url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    });
    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    });

    test("is pg's connection time-out, for the attempt and for the wait for a free connection (unreachable)", async () => {
      const pool = new pg.Pool({ connectionString: url, connectionTimeoutMillis: 200, max: 1 });
      const attempt = rejection(pool.query('SELECT 1'));
      const waiting = await rejection(pool.query('SELECT 1'));
      expect(waiting).toMatchObject({ message: 'timeout exceeded when trying to connect' });
      expect(await attempt).toMatchObject({ message: 'Connection terminated due to connection timeout' });
      expect([postgresUnavailableReason(waiting), postgresUnavailableReason(await attempt)]).toEqual(['unreachable', 'unreachable']);
      await pool.end();
    });

    test('the store says so', async () => {
      const store = new PostgresStore({ connectionString: url, connectionTimeoutMs: 200 });
      try {
        expect(await rejection(store.ping())).toMatchObject({ name: 'StoreUnavailableError', reason: 'unreachable', code: 'Connection terminated due to connection timeout' });
      } finally {
        await store.close();
      }
    });
  });

  test('the store throws StoreUnavailableError while the server is stopped, on plain statements and in transactions, and works again once it is back', async () => {
    const store = new PostgresStore({ connectionString: server.url });
    try {
      await store.migrate();
      await store.createMember({ id: 'ada', username: 'ada', email: '', firstName: '', lastName: '', enabled: true, createdAt: 1, attributes: {} });
      // Idle connections in the pool, which the stop ends while nobody uses them.
      await Promise.all([store.ping(), store.ping(), store.getMember('ada')]);
      await server.stop({ mode: 'fast' });
      const failures = [await rejection(store.getMember('ada')), await rejection(store.createSessions([SESSION])), await rejection(store.ping())];
      for (const failure of failures) {
        expect(failure).toBeInstanceOf(StoreUnavailableError);
        expect(failure).toMatchObject({ reason: 'unreachable', code: 'ECONNREFUSED' });
      }
      await server.start();
      expect((await store.getMember('ada'))?.username).toBe('ada');
      await store.createSessions([SESSION]);
    } finally {
      await store.close();
    }
  }, 60_000);
});
