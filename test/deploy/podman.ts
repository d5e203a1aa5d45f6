import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from '../helpers/processes.js';
import { program, type Requirement } from '../helpers/requirements.js';
import { waitUntil } from '../helpers/wait.js';

/**
 * Debian's podman for the container test (test/deploy/container.test.ts): the image built from the Dockerfile
 * on a base of Debian's packages (deploy/container/base-image.sh), containers run with runc on the host's
 * network, and everything a run makes (containers, volumes) remembered so that removeAll() takes it away.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BASE_IMAGE_SCRIPT = join(ROOT, 'deploy', 'container', 'base-image.sh');
const INSTALL = 'apt-get install podman runc mmdebstrap';

export const PODMAN = program('podman', '/usr/bin/podman', INSTALL);
export const RUNC = program('runc', '/usr/sbin/runc', INSTALL);
export const MMDEBSTRAP = program('mmdebstrap', '/usr/bin/mmdebstrap', INSTALL);
/** mmdebstrap makes the base image's system in a chroot, and podman runs rootful: both as root. */
export const ROOT_USER: Requirement = {
  what: 'root',
  missing: process.getuid?.() === 0 ? undefined : 'the container test builds its base image with mmdebstrap and runs podman as root; run the tests as root',
};

/** The image the test builds; a rebuild moves the tag, and the image it leaves is removed. */
export const IMAGE = 'localhost/authentication-asmx:test';

/**
 * runc as the runtime (the one .ci/run installs; podman would take crun where both are), and no default ulimits:
 * podman's default raises the open-files limit, which this machine does not let it (runc: "error setting rlimit
 * type 7: operation not permitted").
 */
const CONTAINERS_CONF = '[containers]\ndefault_ulimits = []\n\n[engine]\nruntime = "runc"\n';

export interface Podman {
  /** Runs podman; resolves with its stdout, rejects with its stderr when it exits non-zero. */
  run(args: string[], options?: { timeoutMs?: number }): Promise<string>;
  /** Like run, but resolves with the exit status and output instead of rejecting. */
  status(args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  /** The base image (built on the first run, then reused) and the service's image on it; resolves with the build's output. */
  buildImage(): Promise<string>;
  /** A named volume, removed by removeAll(). */
  volume(): Promise<string>;
  /** A name for a container, removed with its anonymous volumes by removeAll(). */
  containerName(): string;
  /** Removes every container and volume made through this object, and its configuration directory. */
  removeAll(): Promise<void>;
}

function exec(file: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr: error && code === 1 && !stderr ? error.message : stderr });
    });
  });
}

export async function podman(): Promise<Podman> {
  const dir = await mkdtemp(join(tmpdir(), 'authentication-asmx-podman-'));
  const conf = join(dir, 'containers.conf');
  await writeFile(conf, CONTAINERS_CONF);
  // The script's node and npm are this run's Node.js (and the npm beside it where there is one).
  const env = { ...process.env, CONTAINERS_CONF: conf, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` };
  const containers: string[] = [];
  const volumes: string[] = [];
  const suffix = () => `${process.pid}-${randomBytes(4).toString('hex')}`;

  const status = (args: string[], timeoutMs = 120_000) => exec('podman', args, env, timeoutMs);
  const run = async (args: string[], options: { timeoutMs?: number } = {}) => {
    const result = await status(args, options.timeoutMs);
    if (result.code !== 0) throw new Error(`podman ${args.join(' ')} exited ${result.code}: ${result.stderr || result.stdout}`);
    return result.stdout;
  };
  const imageId = async (reference: string) => {
    const found = await status(['image', 'inspect', '--format', '{{.Id}}', reference]);
    return found.code === 0 ? found.stdout.trim() : undefined;
  };

  return {
    run,
    status: (args) => status(args),
    async buildImage() {
      const base = await exec('bash', [BASE_IMAGE_SCRIPT], env, 20 * 60_000);
      if (base.code !== 0) throw new Error(`${BASE_IMAGE_SCRIPT} exited ${base.code}: ${base.stderr}`);
      const before = await imageId(IMAGE);
      // The docker format keeps the HEALTHCHECK (OCI images have no such field); the host's network reaches
      // the npm registry for npm ci.
      const output = await run(
        ['build', '--format', 'docker', '--network', 'host', '--build-arg', `BASE=${base.stdout.trim()}`, '--tag', IMAGE, '--file', join(ROOT, 'Dockerfile'), ROOT],
        { timeoutMs: 20 * 60_000 },
      );
      const after = await imageId(IMAGE);
      if (before !== undefined && before !== after) await status(['rmi', before]);
      return output;
    },
    async volume() {
      const name = `asmx-test-${suffix()}`;
      await run(['volume', 'create', name]);
      volumes.push(name);
      return name;
    },
    containerName() {
      const name = `asmx-test-${suffix()}`;
      containers.push(name);
      return name;
    },
    async removeAll() {
      if (containers.length > 0) await status(['rm', '--force', '--volumes', '--ignore', ...containers]);
      if (volumes.length > 0) await status(['volume', 'rm', '--force', ...volumes]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A container of the service, detached, on the host's network at 127.0.0.1:port. */
export interface ServiceContainer {
  readonly name: string;
  readonly port: number;
  readonly baseUrl: string;
  /** Its log so far (stdout and stderr). */
  logs(): Promise<string>;
  /** The admin CLI inside the running container, as an operator runs it: podman exec NAME authentication-asmx … */
  cli(args: string[]): Promise<string>;
}

/**
 * Starts the image's default command (serve) with a read-only root file system: no tmpfs of podman's own
 * either (--read-only-tmpfs=false), as Docker's --read-only does. The health check's timer is left off (it
 * needs systemd): the test runs it itself. Resolves once /readyz answers 200.
 */
export async function startContainer(engine: Podman, port: number, options: string[]): Promise<ServiceContainer> {
  const name = engine.containerName();
  await engine.run([
    'run', '--detach', '--name', name, '--read-only', '--read-only-tmpfs=false', '--network', 'host', '--health-interval', 'disable',
    '--env', 'HOST=127.0.0.1', '--env', `PORT=${port}`, '--env', 'RESULT_FORMAT=json', ...options, IMAGE,
  ]);
  const baseUrl = `http://127.0.0.1:${port}`;
  const logs = async () => {
    const { stdout, stderr } = await engine.status(['logs', name]);
    return stdout + stderr;
  };
  const running = async () => (await engine.run(['inspect', '--format', '{{.State.Running}}', name])).trim() === 'true';
  await waitUntil(
    async () => {
      if (!(await running())) throw new Error(`container ${name} exited before it was ready: ${(await logs()).slice(-2000)}`);
      return (await request(`${baseUrl}/readyz`).catch(() => undefined))?.status === 200;
    },
    `container ${name} to answer /readyz`,
    { timeoutMs: 60_000, intervalMs: 200 },
  );
  return { name, port, baseUrl, logs, cli: (args) => engine.run(['exec', name, 'authentication-asmx', ...args]) };
}
