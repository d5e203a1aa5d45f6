import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports.js';
import type { Requirement } from './requirements.js';

/**
 * A PostgreSQL server of the test's own, which it may stop and start: the shared one (POSTGRES_TEST_URL) serves
 * every other test and must never be stopped. initdb makes a cluster in a temporary directory, pg_ctl runs it on
 * a free port of the loopback interface, its socket in that directory. PostgreSQL refuses to run as root: as root,
 * the programs run as the `postgres` user, who owns the directory.
 */

const run = promisify(execFile);

/** PG_BINDIR, or the newest /usr/lib/postgresql/<version>/bin (Debian's layout). */
function binDir(): string {
  if (process.env.PG_BINDIR) return process.env.PG_BINDIR;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((name) => /^\d+$/.test(name)) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  return join(root, newest ?? '15', 'bin');
}

const BIN_DIR = binDir();
const OS_USER = 'postgres';
const asRoot = userInfo().uid === 0;

/** The `postgres` user's ids, when this process is root and the user exists. */
function osUserIds(): { uid: number; gid: number } | undefined {
  if (!asRoot) return undefined;
  try {
    const id = (flag: string) => Number(execFileSync('id', [flag, OS_USER], { stdio: 'pipe' }).toString());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    return undefined;
  }
}

const OS_USER_IDS = osUserIds();

function missingServer(): string | undefined {
  if (!['initdb', 'pg_ctl'].every((name) => existsSync(join(BIN_DIR, name)))) {
    return `initdb and pg_ctl are missing from ${BIN_DIR} (apt-get install postgresql, or set PG_BINDIR)`;
  }
  if (asRoot && OS_USER_IDS === undefined) return `PostgreSQL does not run as root, and there is no ${OS_USER} user to run it as`;
  return undefined;
}

/** The server's programs (initdb, pg_ctl): test/helpers/requirements.ts fails the tests that need them under CI where they are missing. */
export const POSTGRES_SERVER: Requirement = { what: "PostgreSQL's server programs", missing: missingServer() };

export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres (trust authentication). */
  readonly url: string;
  readonly port: number;
  /** Starts the server again after stop(), on the same port, and waits until it accepts connections; a running server is left so. */
  start(): Promise<void>;
  /**
   * Stops the server and waits until it is down (returns at once with `wait: false`); a server stopped already is
   * left so. `fast` (the default) ends every open connection (57P01 admin_shutdown on each); `smart` waits for
   * them to end first, refusing new ones (57P03) meanwhile.
   */
  stop(options?: { mode?: 'fast' | 'smart'; wait?: boolean }): Promise<void>;
  /** Stops the server if it runs and removes its directory; for afterAll. */
  remove(): Promise<void>;
}

/** Runs one of the server's programs, as the `postgres` user when this process is root. */
async function pg(program: string, args: readonly string[]): Promise<void> {
  const path = join(BIN_DIR, program);
  const [file, argv] = asRoot ? ['runuser', ['-u', OS_USER, '--', path, ...args]] : [path, [...args]];
  try {
    await run(file, argv, { timeout: 60_000 });
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    throw new Error(`${program} ${args.join(' ')} failed: ${(stderr || stdout || (error as Error).message).trim()}`, { cause: error });
  }
}

/** A new cluster in a temporary directory, started on a free port. */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = await mkdtemp(join(tmpdir(), 'private-postgres-'));
  if (OS_USER_IDS) await chown(dir, OS_USER_IDS.uid, OS_USER_IDS.gid);
  const data = join(dir, 'data');
  const port = await freePort();
  const ctl = (...args: string[]) => pg('pg_ctl', ['--pgdata', data, '--silent', ...args]);
  const running = () => ctl('status').then(
    () => true,
    () => false,
  );
  const start = async () => {
    if (await running()) return;
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
    await ctl('--log', join(dir, 'server.log'), '--options', options, '--wait', 'start');
  };
  try {
    await pg('initdb', ['--pgdata', data, '--username', 'postgres', '--auth', 'trust', '--encoding', 'UTF8', '--locale', 'C', '--no-sync']);
    await start();
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start,
    async stop({ mode = 'fast', wait = true } = {}) {
      await ctl('--mode', mode, wait ? '--wait' : '--no-wait', 'stop').catch(async (error: unknown) => {
        // A smart stop ends by itself once its last session has: stopped already is stopped.
        if (await running()) throw error;
      });
    },
    async remove() {
      // A server stopped without waiting may still be running.
      await ctl('--mode', 'immediate', '--wait', 'stop').catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}
