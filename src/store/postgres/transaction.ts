import type pg from 'pg';

/**
 * Runs work in one transaction on one pooled connection: committed when it resolves, rolled back when it
 * rejects. A connection that could not even roll back is closed rather than returned to the pool, and so is one
 * whose work failed with an error `discard` names: a connection opened while the database refused writes keeps
 * refusing them (default_transaction_read_only is read as it opens), so the pool opens a new one instead. (A
 * statement outside a transaction closes its connection on any error: pg's pool does.)
 */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>, discard: (error: unknown) => boolean = () => false): Promise<T> {
  const client = await pool.connect();
  // A connection lost mid-transaction fails the query in flight; the client reports it as an event too, which
  // would end the process unheard.
  const ignoreLostConnection = () => {};
  client.on('error', ignoreLostConnection);
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    try {
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => {
        broken = rollbackError;
      });
      if (discard(error)) broken ??= error as Error;
      throw error;
    }
  } finally {
    client.off('error', ignoreLostConnection);
    client.release(broken);
  }
}
