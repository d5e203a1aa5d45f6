import pg from 'pg';
import type { InsertedMembers, SessionTouch, SqlDialect, SqlDriver, SqlRunner } from '../sql/driver.js';
import { MEMBER_COLUMNS, type FlagCodec, type NewMemberRecord } from '../sql/records.js';
import { SqlStore } from '../sql/sql-store.js';
import type { StoreUnavailableReason } from '../unavailable.js';
import { describeDatabaseUrl } from './database-url.js';
import { migrate } from './migrations.js';
import { inTransaction } from './transaction.js';
import { postgresUnavailableReason } from './unavailable-reasons.js';

export interface PostgresStoreOptions {
  /** A postgres:// URL, as in DATABASE_URL. */
  connectionString: string;
  /** Connections the pool opens at most; 10 unless given. */
  maxConnections?: number;
  /**
   * The schema every connection works in (its search_path), instead of the URL's default. It must exist, and be
   * a lower-case unquoted identifier. Tests give each run a schema of its own.
   */
  schema?: string;
  /** The server cancels a statement running longer; 10 s unless given. */
  statementTimeoutMs?: number;
  /** A connection attempt fails after this long; 5 s unless given. */
  connectionTimeoutMs?: number;
}

const DEFAULT_MAX_CONNECTIONS = 10;
/** Every request-path statement is a small indexed read or write; one that takes seconds is stuck. */
const DEFAULT_STATEMENT_TIMEOUT_MS = 10_000;
const DEFAULT_CONNECTION_TIMEOUT_MS = 5_000;
/** Idle connections are closed after this long, so a quiet instance does not hold its whole pool. */
const IDLE_TIMEOUT_MS = 30_000;
const APPLICATION_NAME = 'authentication-asmx';
const SCHEMA_NAME = /^[a-z_][a-z0-9_]*$/;
/** The Bind message counts its parameters in 16 bits: one statement takes at most this many. */
const MAX_PARAMETERS = 65_535;

/**
 * pg returns BIGINT (and CockroachDB's INTEGER, which is 64-bit) as strings, since not every value fits a
 * JavaScript number. Every one of ours does: epoch milliseconds, identity values and counts. The parser is
 * this pool's only, not pg's global one.
 */
const TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8 && format !== 'binary'
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/** pg returns BOOLEAN columns as booleans and takes booleans as parameters. */
const FLAGS: FlagCodec = { toBoolean: (flag) => flag === true, fromBoolean: (value) => value };

/** unique_violation. A foreign_key_violation (23503: an unknown caller or member) rejects as it is. */
const CONFLICT_CODE = '23505';

/**
 * createMembers' insert: the whole list in one statement, one array parameter per column. A member is inserted
 * when it is the first of the list with its id and with its lower(username), and no stored member has either:
 * the NOT EXISTS reads the members_lower_username index, and ON CONFLICT skips an id taken, or an exact
 * username taken by a transaction that committed meanwhile. RETURNING gives the ids inserted. lower() follows
 * the database's locale, for the list's repeats as for the stored members.
 */
const INSERT_MEMBERS_IF_FREE_SQL = `
  WITH list AS (
    SELECT *,
      row_number() OVER (PARTITION BY id ORDER BY position) AS id_rank,
      row_number() OVER (PARTITION BY lower(username) ORDER BY position) AS username_rank
    -- The arrays in MEMBER_COLUMNS order, then password_hash (insertMembersIfFree).
    FROM unnest(
      $1::TEXT[], $2::TEXT[], $3::TEXT[], $4::TEXT[], $5::TEXT[], $6::BOOLEAN[], $7::BIGINT[], $8::TEXT[], $9::TEXT[], $10::TEXT[], $11::BIGINT[],
      $12::TEXT[], $13::TEXT[]
    ) WITH ORDINALITY AS list (${MEMBER_COLUMNS}, password_hash, position)
  )
  INSERT INTO members (${MEMBER_COLUMNS}, password_hash)
    SELECT ${MEMBER_COLUMNS}, password_hash FROM list
    WHERE id_rank = 1 AND username_rank = 1
      AND NOT EXISTS (SELECT 1 FROM members m WHERE lower(m.username) = lower(list.username))
    ORDER BY position
  ON CONFLICT DO NOTHING
  RETURNING id`;
const MEMBER_USERNAMES_SQL = 'SELECT id, username FROM members WHERE id = ANY($1::TEXT[])';

/**
 * One statement for the whole batch; a session listed twice moves to the later time. The rows are locked in id
 * order first, so that two instances writing overlapping batches at once wait for each other instead of
 * deadlocking.
 */
const TOUCH_SESSIONS_SQL = `
  WITH touches AS (
    SELECT id, max(last_seen_at) AS last_seen_at FROM unnest($1::TEXT[], $2::BIGINT[]) AS t (id, last_seen_at) GROUP BY id
  ), locked AS (
    SELECT sessions.id FROM sessions JOIN touches ON touches.id = sessions.id ORDER BY sessions.id FOR UPDATE OF sessions
  )
  UPDATE sessions SET last_seen_at = GREATEST(sessions.last_seen_at, touches.last_seen_at)
  FROM touches WHERE sessions.id = touches.id AND sessions.id IN (SELECT id FROM locked)`;

/** Statements on a pool (each on any of its connections) or on one transaction's connection. */
function runner(query: (sql: string, values: readonly unknown[]) => Promise<pg.QueryResult>): SqlRunner {
  return {
    rows: async (sql, values = []) => (await query(sql, values)).rows,
    row: async (sql, values = []) => (await query(sql, values)).rows[0],
    changes: async (sql, values = []) => (await query(sql, values)).rowCount ?? 0,
  };
}

/**
 * The attributes are TEXT (migration 3), read as jsonb where a search looks inside. The "C" collation compares
 * texts by their UTF-8 bytes, that is by code point, as SQLite does, whatever the database's locale.
 */
const DIALECT: SqlDialect = {
  jsonText: (column, path) => `(CAST(${column} AS jsonb) #>> '{${path.join(',')}}')`,
  jsonFlag: (column, key) => `CAST(CAST(${column} AS jsonb) ->> '${key}' AS BOOLEAN)`,
  jsonElements: (column, path, alias) => `jsonb_array_elements(CAST(${column} AS jsonb) #> '{${path.join(',')}}') AS ${alias} (value)`,
  elementText: (alias, key) => `(${alias}.value ->> '${key}')`,
  elementFlag: (alias, key) => `CAST(${alias}.value ->> '${key}' AS BOOLEAN)`,
  position: (text, needle) => `strpos(${text}, ${needle})`,
  byCodePoint: (expression) => `(${expression}) COLLATE "C"`,
  sessionKey: 'id',
};

/**
 * PostgreSQL, or a database that speaks its dialect (CockroachDB, YugabyteDB): a pool of connections, each
 * transaction on a connection of its own.
 */
class PostgresDriver implements SqlDriver {
  readonly flags = FLAGS;
  readonly dialect = DIALECT;
  readonly database: string;
  readonly #pool: pg.Pool;
  readonly #runner: SqlRunner;
  /** The names of the statements preparedRow keeps prepared, by SQL text. */
  readonly #prepared = new Map<string, string>();
  #closed: Promise<void> | undefined;

  constructor(options: PostgresStoreOptions) {
    const { schema } = options;
    if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
      throw new Error(`schema "${schema}" must be a lower-case identifier (letters, digits and _)`);
    }
    this.database = describeDatabaseUrl(options.connectionString);
    this.#pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
      connectionTimeoutMillis: options.connectionTimeoutMs ?? DEFAULT_CONNECTION_TIMEOUT_MS,
      idleTimeoutMillis: IDLE_TIMEOUT_MS,
      statement_timeout: options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
      application_name: APPLICATION_NAME,
      keepAlive: true,
      types: TYPES,
      ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }),
    });
    // An idle connection that breaks (a server restart, a failover) is reported here and dropped by the pool;
    // the next query opens a new one. Without a listener, the error would end the process.
    this.#pool.on('error', () => {});
    this.#runner = runner((sql, values) => this.#pool.query(sql, values as unknown[]));
  }

  rows<R>(sql: string, values?: readonly unknown[]): Promise<R[]> {
    return this.#runner.rows(sql, values);
  }

  row<R>(sql: string, values?: readonly unknown[]): Promise<R | undefined> {
    return this.#runner.row(sql, values);
  }

  changes(sql: string, values?: readonly unknown[]): Promise<number> {
    return this.#runner.changes(sql, values);
  }

  /**
   * A named statement: pg parses it once per connection and sends only its name and values from then on, where an
   * unnamed one sends and plans the whole text on every call.
   */
  async preparedRow<R>(sql: string, values: readonly unknown[]): Promise<R | undefined> {
    let name = this.#prepared.get(sql);
    if (name === undefined) {
      name = `authentication_asmx_${this.#prepared.size + 1}`;
      this.#prepared.set(sql, name);
    }
    return (await this.#pool.query<R & pg.QueryResultRow>({ name, text: sql, values: values as unknown[] })).rows[0];
  }

  transaction<T>(work: (tx: SqlRunner) => Promise<T>): Promise<T> {
    const discard = (error: unknown) => this.unavailableReason(error) !== undefined;
    return inTransaction(this.#pool, (client) => work(runner((sql, values) => client.query(sql, values as unknown[]))), discard);
  }

  unavailableReason(error: unknown): StoreUnavailableReason | undefined {
    return postgresUnavailableReason(error);
  }

  isUniqueViolation(error: unknown): boolean {
    // By code, not instanceof: pg's DatabaseError may come from another module instance (another jest realm).
    return (error as { code?: unknown }).code === CONFLICT_CODE;
  }

  /** As many as the parameter limit lets one statement carry (4,369 sessions), to save round trips. */
  rowsPerInsert(columns: number): number {
    return Math.floor(MAX_PARAMETERS / columns);
  }

  insertMembersIfFree(records: readonly NewMemberRecord[]): Promise<InsertedMembers> {
    const column = <K extends keyof NewMemberRecord>(key: K) => records.map((record) => record[key]);
    const columns = [
      column('id'),
      column('username'),
      column('email'),
      column('first_name'),
      column('last_name'),
      column('enabled'),
      column('created_at'),
      column('attributes'),
      column('external_id'),
      column('display_name'),
      column('updated_at'),
      column('formatted_name'),
      column('password_hash'),
    ];
    return this.transaction(async (tx) => {
      const inserted = new Set((await tx.rows<{ id: string }>(INSERT_MEMBERS_IF_FREE_SQL, columns)).map((row) => row.id));
      // Only the first member of the list with an inserted id is the one inserted.
      const created = records.map((record) => inserted.delete(record.id));
      const skipped = [...new Set(records.filter((_, index) => !created[index]).map((record) => record.id))];
      const stored = skipped.length === 0 ? [] : await tx.rows<{ id: string; username: string }>(MEMBER_USERNAMES_SQL, [skipped]);
      return { created, storedUsernames: new Map(stored.map((row) => [row.id, row.username])) };
    });
  }

  async touchSessions(touches: readonly SessionTouch[]): Promise<void> {
    await this.#pool.query(TOUCH_SESSIONS_SQL, [touches.map((touch) => touch.id), touches.map((touch) => touch.lastSeenAt)]);
  }

  migrate(): Promise<void> {
    return migrate(this.#pool);
  }

  /** Waits for queries in flight, then closes every connection. Calling it again is harmless. */
  async close(): Promise<void> {
    this.#closed ??= this.#pool.end();
    await this.#closed;
  }
}

/**
 * The store shared by several instances. Every method is one parameterised statement on a pooled connection,
 * except the purges, which repeat one batch until it comes back short, and the bulk inserts (members, sessions)
 * and the second-factor writes that change several tables, each one transaction on one connection.
 */
export class PostgresStore extends SqlStore {
  /** Connects lazily: nothing reaches the server until the first call (ping() or migrate() at start-up). */
  constructor(options: PostgresStoreOptions) {
    super(new PostgresDriver(options));
  }
}
