/**
 * A stop under load resets nobody: keep-alive clients talking to the instance directly (no proxy in front)
 * call every binding as fast as they can while the stop begins. Every request they had sent is answered;
 * the only failures are new connections refused once the instance stopped accepting.
 */
import { randomBytes } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { composeInstance } from '../../src/compose.js';
import { loadConfig } from '../../src/config/config.js';
import { startServer, stopServer } from '../../src/server.js';
import type { Store } from '../../src/store/store.js';
import { asmxRequest, BINDINGS, type AsmxRequest } from '../helpers/asmx-request.js';
import { describeWithPostgres, tempPostgresStore } from '../helpers/postgres.js';
import { REFERENCE, seedReference } from '../helpers/reference-data.js';
import { tempSqliteStore } from '../helpers/temp-store.js';
import { waitUntil } from '../helpers/wait.js';

const CLIENTS = 16;
/** Calls each client has had answered when the stop begins: every keep-alive connection is open and busy. */
const CALLS_BEFORE_STOP = 4;
const NS = REFERENCE.namespace;

/** One call on each binding, as the tests' request builder writes it. */
const CALLS: AsmxRequest[] = BINDINGS.map((binding) =>
  asmxRequest(NS, binding, 'AuthenticateToken', { securityPassword: REFERENCE.password, token: REFERENCE.token }),
);

function send(port: number, agent: Agent, call: AsmxRequest): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: call.method, path: call.path, headers: call.headers, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(call.body);
  });
}

async function stopUnderLoad(store: Store): Promise<{ answered: number; answeredBeforeStop: number; statuses: Set<number>; failures: string[]; report: unknown }> {
  const config = loadConfig({ LOG_LEVEL: 'silent', SOAP_NAMESPACE: NS, RESULT_FORMAT: 'plain' });
  const instance = await composeInstance({ config, store, secretKey: randomBytes(32) });
  await seedReference(instance.services);
  const server = instance.createServer();
  const port = await startServer(server, { host: '127.0.0.1', port: 0 });
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
  const statuses = new Set<number>();
  const failures: string[] = [];
  let answered = 0;
  const tallies = Array.from({ length: CLIENTS }, () => ({ answered: 0 }));
  const client = async (first: number, tally: { answered: number }) => {
    for (let i = first; ; i++) {
      try {
        statuses.add(await send(port, agent, CALLS[i % CALLS.length] as AsmxRequest));
        answered += 1;
        tally.answered += 1;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
        // A new connection after the stop began: refused, never sent. Anything else lost a request.
        if (code !== 'ECONNREFUSED') failures.push(code);
        return;
      }
    }
  };
  try {
    const clients = tallies.map((tally, i) => client(i, tally));
    await waitUntil(() => tallies.every((tally) => tally.answered >= CALLS_BEFORE_STOP), 'every client to have calls answered', { timeoutMs: 10_000 });
    const answeredBeforeStop = answered;
    const report = await stopServer(server, { timeoutMs: 5000 });
    await Promise.all(clients);
    return { answered, answeredBeforeStop, statuses, failures, report };
  } finally {
    agent.destroy();
  }
}

/** Stops an instance on this store under load and holds the stop to its promise. */
async function expectNobodyReset(temp: { store: Store; cleanup: () => Promise<void> }): Promise<void> {
  try {
    const { answered, answeredBeforeStop, statuses, failures, report } = await stopUnderLoad(temp.store);
    expect(failures).toEqual([]);
    expect([...statuses]).toEqual([200]);
    // The calls in flight when the stop began were answered too.
    expect(answered).toBeGreaterThan(answeredBeforeStop);
    expect(report).toMatchObject({ cut: 0, forced: false });
  } finally {
    await temp.cleanup();
  }
}

test('embedded store: every request sent before or during the stop is answered, none reset', async () => {
  await expectNobodyReset(await tempSqliteStore());
});

describeWithPostgres('PostgreSQL store', () => {
  test('every request sent before or during the stop is answered, none reset', async () => {
    await expectNobodyReset(await tempPostgresStore());
  });
});
