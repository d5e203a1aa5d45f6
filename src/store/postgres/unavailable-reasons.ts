import type { StoreUnavailableReason } from '../unavailable.js';

/**
 * PostgreSQL's SQLSTATEs that mean the database cannot be written (or used) as it is, rather than that a statement
 * or a value is wrong. Class 53 is "insufficient resources": disk_full, out_of_memory, too_many_connections…
 */
export function postgresUnavailableReason(error: unknown): StoreUnavailableReason | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  if (code === '53100') return 'disk-full';
  if (code === '25006') return 'read-only';
  if (code === '55P03') return 'locked';
  if (code === '58030') return 'io-error';
  if (code.startsWith('53')) return 'out-of-resources';
  return undefined;
}
