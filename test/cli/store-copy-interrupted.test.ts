/**
 * `store copy` stopped half way, as an operator's copy is: by Ctrl-C (SIGINT), and by the process being killed
 * (SIGKILL, a machine going down). Either way the target is left marked unfinished: the CLI's commands on it
 * refuse it, `store check` fails, and the copy run again empties it, starts over and finishes.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openStore } from '../../src/store/open.js';
import { compileCli } from '../helpers/compiled-cli.js';
import { describeWithPostgres } from '../helpers/postgres.js';
import { createTestDatabase, type TestDatabase } from '../helpers/processes.js';
import { waitUntil } from '../helpers/wait.js';
import { signInEvent } from '../store/every-table.js';

/** Enough events that the copy runs for seconds, in batches of 1,000 rows: time to stop it half way. */
const EVENTS = 100_000;

let cli: { cliPath: string; remove(): Promise<void> };
let dir: string;
let database: TestDatabase;

beforeAll(async () => {
  cli = await compileCli();
});
afterAll(() => cli.remove());
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'asmx-copy-stop-'));
  database = await createTestDatabase('asmx_copy_stop');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
  await database.drop();
});

function run(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [cli.cliPath, ...args], { env: { PATH: process.env.PATH ?? '', ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, 'exit').then(([code, signal]) => ({ code: code as number | null, signal: signal as string | null, stdout, stderr }));
  return { child, exited, stderr: () => stderr };
}

/** The target's events copied so far (0 before the table is there), read as the copy writes them. */
async function eventsInTarget(): Promise<number> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ found: boolean }>("SELECT to_regclass('events') IS NOT NULL AS found");
    if (!rows[0]?.found) return 0;
    return (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM events')).rows[0]?.n ?? 0;
  } finally {
    await client.end();
  }
}

describeWithPostgres('store copy stopped half way', () => {
  test('by Ctrl-C or by a kill, leaves the target refused as unfinished, until the copy run again starts over and finishes', async () => {
    const dataDir = join(dir, 'data');
    const store = await openStore({ dataDir });
    await store.createMember({ id: 'm1', username: 'ada', email: 'ada@example.org', firstName: 'Ada', lastName: 'L', enabled: true, createdAt: 1, attributes: {} });
    for (let start = 0; start < EVENTS; start += 10_000) await store.insertEvents(Array.from({ length: 10_000 }, (_, i) => signInEvent(`event-${start + i}`, 1_700_000_000_000 + start + i)));
    await store.close();
    const env = { DATA_DIR: dataDir };
    const copy = ['store', 'copy', '--to', database.url];

    const interrupted = run(copy, env);
    await waitUntil(async () => (await eventsInTarget()) > 0, 'the copy to write events', { timeoutMs: 60_000, intervalMs: 20 });
    interrupted.child.kill('SIGINT');
    const stopped = await interrupted.exited;
    expect(stopped).toMatchObject({ code: 130, stdout: '' });
    expect(stopped.stderr).toContain('error: the copy was interrupted: the target stays marked unfinished; run store copy again to start over\n');
    const stoppedAt = await eventsInTarget();
    expect(stoppedAt).toBeLessThan(EVENTS);

    const keyFile = join(dir, 'server.key');
    await writeFile(keyFile, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
    const onTarget = { DATA_DIR: dataDir, DATABASE_URL: database.url, SECRET_KEY_FILE: keyFile };
    const refused = await run(['members', 'list'], onTarget).exited;
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toMatch(/^error: 127\.0\.0\.1:5432\/asmx_copy_stop_\w+ holds a store copy that did not finish \(from .*authentication\.sqlite, started \d{4}-.*\): run store copy again to start it over, or keep using the source store\n$/);
    const check = await run(['store', 'check', database.url], env).exited;
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/unfinished copy\s+FAILED\s+a store copy into it did not finish/);

    const killed = run(copy, env);
    // Killed only once it has emptied the unfinished copy and written events of its own: the target then holds
    // a count the first run never left (it never went past stoppedAt).
    const startedOver = async () => {
      if (!killed.stderr().includes('it is emptied and the copy starts over')) return false;
      const events = await eventsInTarget();
      return events > 0 && events !== stoppedAt;
    };
    await waitUntil(startedOver, 'the copy run again to empty the target and write events', { timeoutMs: 60_000, intervalMs: 20 });
    killed.child.kill('SIGKILL');
    expect(await killed.exited).toMatchObject({ signal: 'SIGKILL' });
    expect((await run(['members', 'list'], onTarget).exited).code).toBe(1);

    const finished = await run([...copy, '--json'], env).exited;
    expect(finished).toMatchObject({ code: 0 });
    expect(finished.stderr).toContain('held a copy that did not finish: it is emptied and the copy starts over');
    expect(JSON.parse(finished.stdout)).toMatchObject({ verified: true, startedOver: true, rows: EVENTS + 1 });
    expect(await eventsInTarget()).toBe(EVENTS);
    expect((await run(['store', 'check', database.url], env).exited).code).toBe(0);
    const listed = await run(['members', 'list', '--json'], onTarget).exited;
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id: 'm1' })]);
    // Three copies of EVENTS rows and eight CLI processes: 24–27 s seen on a 2-core machine beside other tests.
  }, 120_000);
});
