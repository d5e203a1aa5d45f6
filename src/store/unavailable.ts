/**
 * The store cannot do what it was asked because of where its data lives, not because of the request: the disk is
 * full, the database is read-only or locked by another program, the file cannot be opened, the server is out of
 * resources, cannot be reached or ended the connections. Each driver tells these from its own errors (src/store/sql/driver.ts); the shared store throws this
 * in their place, so that the CLI, the bindings and the sign-in pages can answer with what the operator and the
 * client need, and the store recovers by itself once the condition ends.
 */

/** Why the store is unavailable. */
export const STORE_UNAVAILABLE_REASONS = [
  'disk-full',
  'read-only',
  'locked',
  'io-error',
  'cannot-open',
  'out-of-resources',
  'unreachable',
  'connection-lost',
] as const;
export type StoreUnavailableReason = (typeof STORE_UNAVAILABLE_REASONS)[number];

/** What the operator reads: the condition, of the database named, and what to do about it. */
const EXPLANATIONS: Record<StoreUnavailableReason, (database: string) => { what: string; todo: string }> = {
  'disk-full': (database) => ({ what: `the file system holding ${database} is full`, todo: 'free space on it' }),
  'read-only': (database) => ({
    what: `${database} is read-only`,
    todo: "make it writable (the file and its directory writable by the service's user on a file system mounted read-write; in PostgreSQL, a primary server that accepts writes)",
  }),
  locked: (database) => ({ what: `${database} is locked by another program`, todo: 'let that program (a backup, a copy, another service on the same file) finish' }),
  'io-error': (database) => ({ what: `${database} cannot be read or written (an I/O error)`, todo: 'check the disk and its file system (the kernel log says more)' }),
  'cannot-open': (database) => ({ what: `${database} cannot be opened`, todo: "check that its directory exists and that the service's user may read and write it" }),
  'out-of-resources': (database) => ({
    what: `the database server of ${database} is out of resources`,
    todo: 'check its disk space, memory and connection limit (max_connections)',
  }),
  unreachable: (database) => ({
    what: `the database server of ${database} is stopped, starting, shutting down or out of reach`,
    todo: "check that it runs and that DATABASE_URL's host and port reach it",
  }),
  'connection-lost': (database) => ({
    what: `the database server of ${database}, or the network to it, ended the connections`,
    todo: 'check the server and its log',
  }),
};

export class StoreUnavailableError extends Error {
  /**
   * `database` names the database for the operator, without credentials: the SQLite file's path, or PostgreSQL's
   * host:port/name. `code` is the driver's (SQLITE_FULL, 25006, EROFS…).
   */
  constructor(
    readonly reason: StoreUnavailableReason,
    readonly database: string,
    readonly code: string,
    options?: ErrorOptions,
  ) {
    const { what, todo } = EXPLANATIONS[reason](database);
    super(`${what} (${code}): ${todo}`, options);
    this.name = 'StoreUnavailableError';
  }
}
