import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { ConfigError } from '../../src/config/config.js';
import { createCliContext, type CliContext } from '../../src/cli/context.js';
import { createProgram } from '../../src/cli/program.js';
import { runWith } from '../helpers/cli-harness.js';
import { CLI_PATH } from '../helpers/processes.js';

const failingConfig: Omit<CliContext, 'io'> = {
  config: () => {
    throw new ConfigError(['PORT: must be a whole number', 'SESSION_IDLE_TIMEOUT: must be a positive duration']);
  },
  withServices: () => Promise.reject(new Error('not reached')),
};

function commandPaths(command: Command, prefix: string[] = []): string[][] {
  return command.commands.flatMap((sub) => [[...prefix, sub.name()], ...commandPaths(sub, [...prefix, sub.name()])]);
}

describe('the root program', () => {
  const paths = commandPaths(createProgram({ ...failingConfig, io: { out() {}, err() {} } }, '0.0.0'));

  it('has the command groups and their subcommands', () => {
    expect(paths.map((p) => p.join(' '))).toEqual([
      'serve',
      'callers',
      'callers add',
      'callers list',
      'callers rotate',
      'callers add-origin',
      'callers remove-origin',
      'callers retire-old',
      'callers disable',
      'callers enable',
      'callers remove',
      'members',
      'members add',
      'members update',
      'members list',
      'members show',
      'members set-password',
      'members mfa',
      'members mfa status',
      'members mfa reset',
      'members recovery-link',
      'members import',
      'members disable',
      'members enable',
      'members remove',
      'sessions',
      'sessions create',
      'sessions list',
      'sessions revoke',
      'sessions revoke-all',
      'events',
      'events list',
      'events export',
      'provisioners',
      'provisioners add',
      'provisioners list',
      'provisioners rotate',
      'provisioners remove',
      'oidc-clients',
      'oidc-clients add',
      'oidc-clients list',
      'oidc-clients show',
      'oidc-clients rotate',
      'oidc-clients remove',
      'oidc-keys',
      'oidc-keys list',
      'oidc-keys rotate',
      'saml-sps',
      'saml-sps add',
      'saml-sps list',
      'saml-sps show',
      'saml-sps remove',
      'saml-keys',
      'saml-keys list',
      'saml-keys rotate',
      'saml-keys activate',
      'staff',
      'staff grant',
      'staff list',
      'staff revoke',
      'store',
      'store copy',
      'store backup',
      'store check',
      'config',
      'config show',
      'config from-web-config',
    ]);
  });

  it.each([[], ...paths])('prints help for "%s" with --help and exits 0', async (...path: string[]) => {
    const result = await runWith(failingConfig, ...path, '--help');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Usage: authentication-asmx ${path.join(' ')}`.trimEnd());
    expect(result.stderr).toBe('');
  });

  it('prints the version', async () => {
    expect(await runWith(failingConfig, '--version')).toMatchObject({ code: 0, stdout: '9.9.9-test\n' });
  });

  it('serves when no command is given, so a configuration error stops it with exit 2 and every problem', async () => {
    for (const args of [[], ['serve']]) {
      const result = await runWith(failingConfig, ...args);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe('Invalid configuration:\n  - PORT: must be a whole number\n  - SESSION_IDLE_TIMEOUT: must be a positive duration\n');
      expect(result.stdout).toBe('');
    }
  });

  it('reports usage errors with exit 2', async () => {
    const unknownOption = await runWith(failingConfig, 'members', 'list', '--bogus');
    expect(unknownOption.code).toBe(2);
    expect(unknownOption.stderr).toContain("error: unknown option '--bogus'");
    const missingArgument = await runWith(failingConfig, 'callers', 'add');
    expect(missingArgument.code).toBe(2);
    expect(missingArgument.stderr).toContain("error: missing required argument 'name'");
    const groupAlone = await runWith(failingConfig, 'callers');
    expect(groupAlone.code).toBe(2);
    expect(groupAlone.stderr).toContain('Usage: authentication-asmx callers');
  });

  it('refuses a mistyped command as an unknown command with the nearest name, not as arguments for serve', async () => {
    for (const [args, word, nearest] of [
      [['memebrs', 'list'], 'memebrs', 'members'],
      [['memebrs', 'list', '--json'], 'memebrs', 'members'],
      [['sevre'], 'sevre', 'serve'],
      [['members', 'lsit'], 'lsit', 'list'],
    ] as const) {
      const result = await runWith(failingConfig, ...args);
      expect(result).toMatchObject({ code: 2, stdout: '' });
      expect(result.stderr).toContain(`error: unknown command '${word}'\n(Did you mean ${nearest}?)`);
      expect(result.stderr).not.toContain('too many arguments');
    }
  });

  it('refuses an unknown command so in the compiled CLI too', () => {
    const run = spawnSync(process.execPath, [CLI_PATH, 'memebrs', 'list'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
    expect(run).toMatchObject({ status: 2, stdout: '' });
    expect(run.stderr).toMatch(/^error: unknown command 'memebrs'\n\(Did you mean members\?\)\n/);
  });

  it('reports an unexpected error in one line with exit 70', async () => {
    const broken: Omit<CliContext, 'io'> = { ...failingConfig, withServices: () => Promise.reject(new Error('disk on fire')) };
    expect(await runWith(broken, 'members', 'list')).toMatchObject({ code: 70, stdout: '', stderr: 'unexpected error: disk on fire\n' });
  });
});

describe('the context built from the environment', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'authentication-asmx-cli-'));
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  const run = (env: Record<string, string>, ...args: string[]) => {
    const { config, withServices } = createCliContext(env);
    return runWith({ config, withServices }, ...args);
  };

  it('opens the store and key in DATA_DIR for each command, so runs see each other\'s writes', async () => {
    const env = { DATA_DIR: dataDir };
    expect((await run(env, 'members', 'add', '--id', 'm1', '--username', 'ada')).code).toBe(0);
    const created = await run(env, 'sessions', 'create', 'm1', '--domain', 'example.com', '--json');
    const { token } = JSON.parse(created.stdout) as { token: string };
    expect(await readdir(dataDir)).toEqual(expect.arrayContaining(['secret.key']));
    const check = await createCliContext(env).withServices((s) => s.sessions.checkToken(token));
    expect(check).toMatchObject({ ok: true });
  });

  it('refuses to work on a store first used with another key, saying which setting to fix', async () => {
    const key = (byte: string) => byte.repeat(64);
    expect((await run({ DATA_DIR: dataDir, SECRET_KEY: key('a') }, 'members', 'list')).code).toBe(0);
    const refused = await run({ DATA_DIR: dataDir, SECRET_KEY: key('b') }, 'members', 'list');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: The server key is not the one this database was first used with: set SECRET_KEY/);
    expect(refused.stderr).not.toContain(key('b'));
  });

  it('stops with exit 2 and the problem when the environment is invalid', async () => {
    const result = await run({ DATA_DIR: dataDir, PORT: 'eighty' }, 'members', 'list');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('PORT: must be a whole number');
  });
});

