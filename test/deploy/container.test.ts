import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KEY_FILE_NAME } from '../../src/config/secret-key.js';
import { SQLITE_FILENAME } from '../../src/store/open.js';
import { freePort, tryConnect } from '../helpers/ports.js';
import { POSTGRES } from '../helpers/postgres.js';
import { createTestDatabase, request, type TestDatabase } from '../helpers/processes.js';
import { describeRequiring } from '../helpers/requirements.js';
import { waitUntil } from '../helpers/wait.js';
import { authenticateToken, slowCall, type Endpoint } from './asmx-client.js';
import { IMAGE, MMDEBSTRAP, podman, PODMAN, ROOT_USER, RUNC, startContainer, type Podman, type ServiceContainer } from './podman.js';

/**
 * The Dockerfile's image, built here with Debian's podman on a base image made from Debian's packages and the
 * npm registry's Node.js 24 (deploy/container/base-image.sh; no image registry is reachable), then run as
 * docs/deployment.md's "Containers" says: read-only, on SQLite in a named volume and on PostgreSQL with its
 * secrets in files. The base image is built once and reused (its tag names its inputs); the service's image is
 * rebuilt from podman's layer cache, so that a run with nothing changed takes seconds.
 */

const MEMBER = { id: '10042', username: 'ada', email: 'ada@example.org' };
const CALLER = 'partner-portal';
const DOMAIN = 'example.test';
/** The unprivileged user the image runs as (Dockerfile). */
const USER = { name: 'authentication-asmx', uid: '10001' };

const endpoint = (container: ServiceContainer): Endpoint => (path, options) => request(`${container.baseUrl}${path}`, options);

/** The one-off CLI runs an operator makes before the service starts: podman run --rm IMAGE callers add … */
async function seed(engine: Podman, options: string[], securityPassword: string): Promise<void> {
  const cli = (args: string[]) => engine.run(['run', '--rm', '--read-only', '--read-only-tmpfs=false', '--network', 'host', ...options, IMAGE, ...args]);
  await cli(['callers', 'add', CALLER, '--password', securityPassword]);
  await cli(['members', 'add', '--id', MEMBER.id, '--username', MEMBER.username, '--email', MEMBER.email]);
}

/** A session made with the CLI inside the running container; its token, as a partner receives it. */
async function sessionToken(container: ServiceContainer): Promise<string> {
  const session = JSON.parse(await container.cli(['sessions', 'create', MEMBER.id, '--domain', DOMAIN, '--json'])) as { token: string };
  expect(session.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  return session.token;
}

/** What every running container answers: ?wsdl with its own address, /readyz, a SOAP AuthenticateToken with the session. */
async function expectServing(container: ServiceContainer, securityPassword: string, token: string): Promise<void> {
  const wsdl = await request(`${container.baseUrl}/Authentication.asmx?wsdl`);
  expect(wsdl.status).toBe(200);
  expect(wsdl.body).toContain(`location="${container.baseUrl}/Authentication.asmx"`);
  const ready = await request(`${container.baseUrl}/readyz`);
  expect({ status: ready.status, body: ready.body }).toEqual({ status: 200, body: 'ok\n' });
  const result = await authenticateToken(endpoint(container), 'soap11', securityPassword, token);
  expect(result).toMatchObject({ status: 'Success', contactid: MEMBER.id });
}

describeRequiring([PODMAN, RUNC, MMDEBSTRAP, ROOT_USER, POSTGRES], 'the container image', () => {
  let engine: Podman;
  let database: TestDatabase | undefined;
  let secrets: string | undefined;

  beforeAll(async () => {
    engine = await podman();
    await engine.buildImage();
  }, 30 * 60_000);

  afterAll(async () => {
    await engine?.removeAll();
    await database?.drop();
    if (secrets) await rm(secrets, { recursive: true, force: true });
  }, 120_000);

  test('the image runs as an unprivileged user with /data a volume, a HEALTHCHECK, and only what runs', async () => {
    // podman's inspect puts the HEALTHCHECK beside Config (docker's, inside it).
    const [image] = JSON.parse(await engine.run(['image', 'inspect', IMAGE])) as Array<{
      Config: { User: string; Volumes: Record<string, object>; Entrypoint: string[]; Cmd: string[]; Env: string[] };
      Healthcheck?: { Test: string[] };
    }>;
    expect(image!.Config.User).toBe(USER.name);
    expect(Object.keys(image!.Config.Volumes)).toEqual(['/data']);
    expect(image!.Config.Env).toEqual(expect.arrayContaining(['DATA_DIR=/data', 'HOST=0.0.0.0', 'NODE_ENV=production']));
    // The exec form: node is the container's first process, with no shell to swallow the stop signal.
    expect(image!.Config.Entrypoint).toEqual(['node', '--enable-source-maps', '/app/dist/cli/index.js']);
    expect(image!.Config.Cmd).toEqual(['serve']);
    expect(image!.Healthcheck?.Test).toEqual(['CMD', 'node', '/app/deploy/container/healthcheck.mjs']);

    // The production dependencies and the build, without the development ones, the sources or the tests.
    const present = (paths: string[]) => `console.log(JSON.stringify(${JSON.stringify(paths)}.filter((p) => require('node:fs').existsSync(p))))`;
    const wanted = ['node_modules/express', 'node_modules/better-sqlite3', 'node_modules/pg', 'dist/cli/index.js', 'wsdl/Authentication.wsdl', 'templates'];
    const unwanted = ['node_modules/jest', 'node_modules/typescript', 'node_modules/ts-jest', 'node_modules/playwright-core', 'src', 'test', 'docs', 'data', '.git'];
    const found = await engine.run(['run', '--rm', '--network', 'none', '--entrypoint', 'node', '--workdir', '/app', IMAGE, '-e', present([...wanted, ...unwanted])]);
    expect(JSON.parse(found)).toEqual(wanted);
  }, 120_000);

  describe('on SQLite in a named volume, read-only', () => {
    let volume: string;
    let container: ServiceContainer;
    let securityPassword: string;
    let token: string;

    beforeAll(async () => {
      volume = await engine.volume();
      securityPassword = randomBytes(24).toString('base64url');
      await seed(engine, ['--volume', `${volume}:/data`], securityPassword);
      // The drain waits up to SHUTDOWN_TIMEOUT for the request the test holds in flight while it looks around.
      container = await startContainer(engine, await freePort(), ['--volume', `${volume}:/data`, '--env', 'SHUTDOWN_TIMEOUT=30s']);
      token = await sessionToken(container);
    }, 180_000);

    test('answers ?wsdl, /readyz and AuthenticateToken over SOAP with a session the CLI made in the container', async () => {
      await expectServing(container, securityPassword, token);
      // The HEALTHCHECK, as the engine runs it; and its command where nothing answers (another PORT): unhealthy.
      expect(await engine.status(['healthcheck', 'run', container.name])).toMatchObject({ code: 0 });
      const elsewhere = await engine.status(['exec', '--env', `PORT=${await freePort()}`, container.name, 'node', '/app/deploy/container/healthcheck.mjs']);
      expect(elsewhere).toMatchObject({ code: 1, stdout: expect.stringMatching(/^\/readyz: fetch failed/) });
    }, 60_000);

    test('the service is node itself, as the unprivileged user; it writes only to the volume: the store and the key made on first start', async () => {
      // The first process: its real, effective, saved and file-system user ids, and its command line.
      const status = await engine.run(['exec', container.name, 'cat', '/proc/1/status']);
      expect(/^Uid:\t(.*)$/m.exec(status)?.[1]).toBe(Array(4).fill(USER.uid).join('\t'));
      const commandLine = await engine.run(['exec', container.name, 'cat', '/proc/1/cmdline']);
      expect(commandLine.split('\0')).toEqual(['node', '--enable-source-maps', '/app/dist/cli/index.js', 'serve', '']);
      const files = (await engine.run(['exec', container.name, 'ls', '/data'])).split('\n');
      expect(files).toEqual(expect.arrayContaining([SQLITE_FILENAME, KEY_FILE_NAME]));
      // Nothing else can be written, not even by root: neither the application nor /tmp (no tmpfs there).
      for (const path of ['/app/written', '/tmp/written']) {
        const write = await engine.status(['exec', '--user', 'root', container.name, 'node', '-e', `require("node:fs").writeFileSync(${JSON.stringify(path)}, "x")`]);
        expect({ path, code: write.code, erofs: write.stderr.includes('EROFS') }).toEqual({ path, code: 1, erofs: true });
      }
    }, 60_000);

    test('podman stop (SIGTERM) drains: the request in flight is answered, then the container exits 0; a new container on the volume has the data', async () => {
      // One request in flight when the signal comes: its body is still arriving.
      const inFlight = slowCall(container.port, securityPassword, token);
      await inFlight.read();
      const stopped = engine.run(['stop', '--time', '60', container.name]);
      await waitUntil(async () => (await container.logs()).includes('stopping: draining'), 'the container to log its stop', { timeoutMs: 30_000, intervalMs: 100 });
      await waitUntil(async () => (await tryConnect(container.port)) === 'ECONNREFUSED', 'the container to refuse new connections');
      const finished = await inFlight.finish();
      expect(finished.status).toBe(200);
      expect(finished.body.replace(/&quot;/g, '"')).toContain(`"contactid":"${MEMBER.id}"`);
      await stopped;
      expect((await engine.run(['inspect', '--format', '{{.State.ExitCode}}', container.name])).trim()).toBe('0');
      const lines = (await container.logs()).trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines.find((line) => line.message === 'stopping: every request finished')).toMatchObject({ inFlight: 1, cut: 0, forced: false });
      expect(lines.at(-1)?.message).toBe('stopped');

      // The store and the key live in the volume: the next container answers the same session.
      const next = await startContainer(engine, await freePort(), ['--volume', `${volume}:/data`]);
      await expectServing(next, securityPassword, token);
    }, 120_000);
  });

  describe('on PostgreSQL, read-only, with the database URL and the server key from files', () => {
    let container: ServiceContainer;
    let securityPassword: string;
    let token: string;

    beforeAll(async () => {
      database = await createTestDatabase('asmx_container');
      // As a platform hands secrets over: files mounted read-only, readable by the image's user.
      secrets = await mkdtemp(join(tmpdir(), 'authentication-asmx-secrets-'));
      await writeFile(join(secrets, 'database_url'), `${database.url}\n`);
      await writeFile(join(secrets, 'secret_key'), `${randomBytes(32).toString('base64')}\n`);
      for (const file of ['database_url', 'secret_key']) await chmod(join(secrets, file), 0o444);
      const options = [
        '--volume', `${join(secrets, 'database_url')}:/run/secrets/database_url:ro`,
        '--volume', `${join(secrets, 'secret_key')}:/run/secrets/secret_key:ro`,
        '--env', 'DATABASE_URL_FILE=/run/secrets/database_url',
        '--env', 'SECRET_KEY_FILE=/run/secrets/secret_key',
      ];
      securityPassword = randomBytes(24).toString('base64url');
      await seed(engine, options, securityPassword);
      container = await startContainer(engine, await freePort(), options);
      token = await sessionToken(container);
    }, 180_000);

    test('answers ?wsdl, /readyz and AuthenticateToken over SOAP with a session the CLI made in the container; stops with 0', async () => {
      await expectServing(container, securityPassword, token);
      expect(await engine.status(['healthcheck', 'run', container.name])).toMatchObject({ code: 0 });
      const logs = await container.logs();
      expect(logs).toContain('"store":"postgresql"');
      expect(logs).toContain('"SECRET_KEY":{"value":"(hidden)","source":"SECRET_KEY_FILE"}');
      // Nothing of its own in DATA_DIR: the store is PostgreSQL's, the key the file's.
      expect(await engine.run(['exec', container.name, 'ls', '-A', '/data'])).toBe('');
      await engine.run(['stop', '--time', '30', container.name]);
      expect((await engine.run(['inspect', '--format', '{{.State.ExitCode}}', container.name])).trim()).toBe('0');
    }, 60_000);
  });
});
