import type pg from 'pg';

/**
 * Runs work in one transaction on one pooled connection: committed when it resolves, rolled back when it
 * rejects. A connection that could not even roll back is closed rather than returned to the pool.
 */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
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
      throw error;
    }
  } finally {
    client.off('error', ignoreLostConnection);
    client.release(broken);
  }
}
