import type { StoreUnavailableReason } from '../unavailable.js';

/**
 * The socket errors of a connection that could not be made (the server is down, or the network or the name's lookup
 * fails), and of one that broke.
 */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'ETIMEDOUT']);
const CONNECTION_LOST_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/**
 * pg's own errors, which carry no code: the pool's connection time-out (connectionTimeoutMillis; the attempt
 * itself, or the wait for a free connection) and a connection that ended under a query.
 */
const UNREACHABLE_MESSAGES = new Set(['timeout exceeded when trying to connect', 'Connection terminated due to connection timeout']);
const CONNECTION_LOST_MESSAGES = new Set(['Connection terminated unexpectedly', 'Client has encountered a connection error and is not queryable']);

/** PostgreSQL's SQLSTATEs (https://www.postgresql.org/docs/current/errcodes-appendix.html). */
function sqlstateReason(code: string): StoreUnavailableReason | undefined {
  if (code === '53100') return 'disk-full';
  if (code === '25006') return 'read-only';
  if (code === '55P03') return 'locked';
  if (code === '58030') return 'io-error';
  // Class 53, insufficient resources: out_of_memory, too_many_connections (53300)…
  if (code.startsWith('53')) return 'out-of-resources';
  // cannot_connect_now: the server is starting up, recovering or shutting down, and takes no new connection.
  if (code === '57P03') return 'unreachable';
  // sqlclient_unable_to_establish_sqlconnection, sqlserver_rejected_establishment_of_sqlconnection.
  if (code === '08001' || code === '08004') return 'unreachable';
  // admin_shutdown (a shutdown, or pg_terminate_backend), crash_shutdown (another server process crashed).
  if (code === '57P01' || code === '57P02') return 'connection-lost';
  // The rest of class 08, connection exception, but 08P01: a protocol violation is a fault, not an outage.
  if (code.startsWith('08') && code !== '08P01') return 'connection-lost';
  if (UNREACHABLE_CODES.has(code)) return 'unreachable';
  if (CONNECTION_LOST_CODES.has(code)) return 'connection-lost';
  return undefined;
}

/**
 * Why this error of pg or PostgreSQL means the database cannot be used as it is, rather than that a statement or a
 * value is wrong: its SQLSTATE or socket error code, or else pg's own message; an error that wraps another (pg's
 * time-out, Node's AggregateError of a host's several addresses) by what it wraps.
 */
export function postgresUnavailableReason(error: unknown): StoreUnavailableReason | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message, cause, errors } = error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string') return sqlstateReason(code);
  if (typeof message === 'string' && UNREACHABLE_MESSAGES.has(message)) return 'unreachable';
  if (typeof message === 'string' && CONNECTION_LOST_MESSAGES.has(message)) return 'connection-lost';
  if (Array.isArray(errors) && errors.length > 0) return postgresUnavailableReason(errors[0]);
  return cause === undefined ? undefined : postgresUnavailableReason(cause);
}
