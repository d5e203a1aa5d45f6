/**
 * No step of start-up reads a whole table: an instance restarting over a million members and sessions must be
 * ready as fast as one over none. Each test runs serve() (src/main.ts) over a seeded store up to the end of its
 * first purge, asks /readyz (the readiness ping), stops it, and then checks every statement the instance ran:
 * opening the store and migrating it (nothing left to apply), the deployment key's claimSetting, the ping, and
 * the purge of sessions, throttles and the OpenID provider's records.
 */
import Database from 'better-sqlite3';
import { EventEmitter } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Environment } from '../src/config/config.js';
import { serve } from '../src/main.js';
import { openStore, SQLITE_FILENAME } from '../src/store/open.js';
import type { NewMember, SessionRow, Store } from '../src/store/store.js';
import { logCapture } from './helpers/log-capture.js';
import { freePort } from './helpers/ports.js';
import { adminQuery, createTestSchema, describeWithPostgres, POSTGRES_TEST_URL } from './helpers/postgres.js';
import { queryPlan, recordSqliteStatements, scannedTables } from './helpers/sqlite-statements.js';
import { waitUntil } from './helpers/wait.js';

const NOW = Date.now();
const HOUR = 3_600_000;
const COUNT = 3000;

const members: NewMember[] = Array.from({ length: COUNT }, (_, index) => ({
  id: `m${index}`,
  username: `member-${index}`,
  email: `member-${index}@example.org`,
  firstName: 'Ada',
  lastName: 'Lovelace',
  enabled: true,
  createdAt: NOW - HOUR,
  attributes: {},
}));

/** One live session per member, as a store in service has them: nothing for the purge to delete. */
const sessions: SessionRow[] = members.map((member, index) => ({
  id: `s${index}`,
  memberId: member.id,
  cookieDomain: 'example.org',
  cookieHash: `cookie-hash-${index}`,
  tokenHash: `token-hash-${index}`,
  tokenSealed: `sealed-token-${index}`,
  cookieSealed: `sealed-cookie-${index}`,
  createdAt: NOW - HOUR,
  lastSeenAt: NOW - 60_000,
  expiresAt: NOW + HOUR,
  revokedAt: null,
  clientAddress: '192.0.2.10',
  userAgent: 'Mozilla/5.0',
}));

async function seed(store: Store): Promise<void> {
  await store.createMembers(members);
  await store.createSessions(sessions);
  await store.close();
}

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'asmx-startup-'));
});
afterEach(() => rm(dataDir, { recursive: true, force: true }));

/** serve() until its first purge has run and /readyz has answered, then stopped as SIGTERM stops it. */
async function startAndStop(env: Environment): Promise<void> {
  const port = await freePort();
  const signals = new EventEmitter();
  const { lines, stream } = logCapture();
  // PURGE_INTERVAL=1: the first purge runs a second after the start, rather than five.
  const config = loadConfig({ PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'debug', PURGE_INTERVAL: '1', ...env });
  let stopped = false;
  const serving = serve(config, { signals, logStream: stream }).finally(() => (stopped = true));
  const logged = (message: string) => async () => {
    if (stopped) await serving;
    return lines.some((line) => line.message === message);
  };
  await waitUntil(logged('listening'), 'serve() to start', { timeoutMs: 10_000 });
  await waitUntil(logged('purge'), 'the first purge', { timeoutMs: 10_000 });
  expect(lines.find((line) => line.message === 'purge')).toMatchObject({ sessions: 0, throttles: 0, oidc: 0 });
  expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
  signals.emit('SIGTERM', 'SIGTERM');
  await serving;
}

test('on SQLite, no statement of start-up scans a table but schema_migrations', async () => {
  await seed(await openStore({ dataDir }));
  const recorder = recordSqliteStatements();
  try {
    await startAndStop({});
  } finally {
    recorder.stop();
  }

  const db = new Database(join(dataDir, SQLITE_FILENAME), { readonly: true });
  const plans = recorder.statements.map((statement) => ({ sql: statement.source, scans: scannedTables(queryPlan(db, statement)) }));
  db.close();
  // The recorder saw the instance at work: the deployment key's claim and the purge of sessions among the rest.
  expect(plans.map((plan) => plan.sql)).toEqual(
    expect.arrayContaining([expect.stringMatching(/^INSERT INTO deployment_settings/), expect.stringMatching(/^DELETE FROM sessions/)]),
  );
  // Reading which versions are applied reads schema_migrations whole (one row per release), after finding it in
  // sqlite_master (one row per table and index).
  expect(plans.filter((plan) => plan.scans.some((table) => table !== 'schema_migrations' && table !== 'sqlite_master'))).toEqual([]);
  // exec() runs the migrations' scripts: with none left to apply, none.
  expect(recorder.scripts).toEqual([]);
});

describeWithPostgres('on PostgreSQL', () => {
  let schema: { schema: string; drop: () => Promise<void> };

  beforeEach(async () => {
    schema = await createTestSchema();
  });

  afterEach(async () => {
    await schema.drop();
  });

  /**
   * Resolves once every connection named `name` has ended. A backend adds its counts to pg_stat_user_tables as it
   * exits, before it leaves pg_stat_activity; pg's pool.end() resolves sooner, without waiting for that.
   */
  async function connectionsEnded(name: string): Promise<void> {
    const open = async () => (await adminQuery(`SELECT pid FROM pg_stat_activity WHERE application_name = '${name}'`)).rowCount;
    await waitUntil(async () => (await open()) === 0, `the connections named ${name} to end`);
  }

  /** The schema's tables with how often they were read whole, and through an index. */
  async function scans(): Promise<Record<string, { seq: number; idx: number }>> {
    const result = await adminQuery(
      `SELECT relname, seq_scan, COALESCE(idx_scan, 0) AS idx_scan FROM pg_stat_user_tables WHERE schemaname = '${schema.schema}'`,
    );
    const rows = result.rows as Array<{ relname: string; seq_scan: string; idx_scan: string }>;
    return Object.fromEntries(rows.map((row) => [row.relname, { seq: Number(row.seq_scan), idx: Number(row.idx_scan) }]));
  }

  test('no statement of start-up scans a table but the small bookkeeping ones', async () => {
    // The URL's application_name names the store's connections (it wins over the store's own): they can be waited for.
    const url = new URL(POSTGRES_TEST_URL);
    url.searchParams.set('options', `-c search_path=${schema.schema}`);
    url.searchParams.set('application_name', schema.schema);
    const databaseUrl = url.toString();
    await seed(await openStore({ dataDir, databaseUrl }));
    await adminQuery(`INSERT INTO throttles (key, failures, window_started_at) SELECT 'k' || n, 1, ${NOW} FROM generate_series(1, ${COUNT}) AS n`, schema.schema);
    // The OpenID provider's live access tokens, as many: nothing for the purge to delete either.
    const tokens = `SELECT 'AccessToken', 'at' || n, '{}', ${NOW + HOUR} FROM generate_series(1, ${COUNT}) AS n`;
    await adminQuery(`INSERT INTO oidc_payloads (model, id, payload, expires_at) ${tokens}`, schema.schema);
    // A live recovery link for every member: nothing for the purge to delete either.
    const links = `SELECT id, 'rt-' || id, ${NOW}, ${NOW + HOUR} FROM members`;
    await adminQuery(`INSERT INTO recovery_tokens (member_id, token_hash, created_at, expires_at) ${links}`, schema.schema);
    // The SAML identity provider's pending requests, as many and live: nothing for the purge to delete either.
    await adminQuery(`INSERT INTO saml_sps (id, name, entity_id, metadata, settings, created_at) VALUES ('sp', 'sp', 'https://sp.example.org/', '', '{}', ${NOW})`, schema.schema);
    const requests = `SELECT 'h' || n, 'sp', 'r' || n, 'authn', '', ${NOW}, ${NOW + HOUR} FROM generate_series(1, ${COUNT}) AS n`;
    await adminQuery(`INSERT INTO saml_requests (handle, sp_id, request_id, kind, payload_sealed, created_at, expires_at) ${requests}`, schema.schema);
    // Events within their retention, as many: nothing for the purge to delete either.
    const events = `SELECT 'e' || n, ${NOW}, 'signin-failed', 'anonymous', 'm' || (n % 100) FROM generate_series(1, ${COUNT}) AS n`;
    await adminQuery(`INSERT INTO events (id, occurred_at, type, actor_kind, member_id) ${events}`, schema.schema);
    // The statistics autovacuum keeps in service: without them, the planner guesses the purge matches a third of the rows.
    await adminQuery('ANALYZE members; ANALYZE sessions; ANALYZE throttles; ANALYZE oidc_payloads; ANALYZE recovery_tokens; ANALYZE saml_requests; ANALYZE events', schema.schema);
    await connectionsEnded(schema.schema);
    const before = await scans();

    await startAndStop({ DATABASE_URL: databaseUrl, SECRET_KEY: 'a'.repeat(64) });
    await connectionsEnded(schema.schema);
    const after = await scans();

    const scanned = Object.keys(after).filter((table) => after[table]!.seq > (before[table]?.seq ?? 0));
    // Reading which versions are applied reads schema_migrations (one row per release) whole; its one-row lock,
    // deployment_settings (one row), oidc_keys and saml_keys (the few signing keys) may be too, should the planner
    // prefer that for a single page.
    const small = ['schema_migrations', 'schema_migrations_lock', 'deployment_settings', 'oidc_keys', 'saml_keys'];
    expect(scanned.filter((table) => !small.includes(table))).toEqual([]);
    // The instance's counts were in when read: the purge's index reads are there.
    expect(after['sessions']!.idx).toBeGreaterThan(before['sessions']!.idx);
    expect(after['throttles']!.idx).toBeGreaterThan(before['throttles']!.idx);
    expect(after['oidc_payloads']!.idx).toBeGreaterThan(before['oidc_payloads']!.idx);
    expect(after['recovery_tokens']!.idx).toBeGreaterThan(before['recovery_tokens']!.idx);
    expect(after['saml_requests']!.idx).toBeGreaterThan(before['saml_requests']!.idx);
  });
});
