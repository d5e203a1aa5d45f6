/**
 * SECRET_KEY_FILE and DATABASE_URL_FILE: a secret read from the file a <NAME>_FILE variable names, validated and
 * masked as the variable itself; never both ways; a file that cannot be read is a problem that names its path
 * and never what it holds.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Environment } from '../../src/config/config.js';
import { problemsOf } from './problems.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'asmx-setting-files-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function file(name: string, content: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

const settingOf = (env: Environment, name: string) => loadConfig(env).settings.find((setting) => setting.name === name);

describe('SECRET_KEY_FILE', () => {
  const key = randomBytes(32);

  it('reads the key from the file, its trailing line break trimmed, as SECRET_KEY would be', async () => {
    expect(loadConfig({ SECRET_KEY_FILE: await file('key', `${key.toString('base64')}\n`) }).secretKey).toEqual(key);
    expect(loadConfig({ SECRET_KEY_FILE: await file('key-crlf', `${key.toString('hex')}\r\n`) }).secretKey).toEqual(key);
    expect(loadConfig({ SECRET_KEY_FILE: await file('key-bare', key.toString('hex')) }).secretKey).toEqual(key);
  });

  it('shows the key masked with the file variable as its source, and the path as that variable\'s value', async () => {
    const path = await file('key', `${key.toString('base64')}\n`);
    const config = loadConfig({ SECRET_KEY_FILE: path });
    expect(config.settings.find((setting) => setting.name === 'SECRET_KEY')).toEqual({ name: 'SECRET_KEY', value: '(hidden)', source: 'SECRET_KEY_FILE' });
    expect(config.settings.find((setting) => setting.name === 'SECRET_KEY_FILE')).toEqual({ name: 'SECRET_KEY_FILE', value: path, source: 'environment' });
    const names = config.settings.map((setting) => setting.name);
    expect(names.indexOf('SECRET_KEY_FILE')).toBe(names.indexOf('SECRET_KEY') + 1);
    expect(JSON.stringify(config.settings)).not.toContain(key.toString('base64'));
  });

  it('lists the file variables, unset, with the other settings', () => {
    expect(settingOf({}, 'SECRET_KEY_FILE')).toEqual({ name: 'SECRET_KEY_FILE', value: '', source: 'default' });
    expect(settingOf({}, 'DATABASE_URL_FILE')).toEqual({ name: 'DATABASE_URL_FILE', value: '', source: 'default' });
  });

  it('validates what the file holds as SECRET_KEY, naming the file and never echoing its content', async () => {
    const path = await file('key', 'my passphrase hunter2\n');
    const problems = problemsOf({ SECRET_KEY_FILE: path });
    expect(problems).toEqual([`SECRET_KEY (from SECRET_KEY_FILE ${path}): must be 32 bytes, as 64 hex digits or base64 (openssl rand -base64 32)`]);
    expect(problems.join('\n')).not.toContain('hunter2');
  });

  it('refuses SECRET_KEY and SECRET_KEY_FILE both set, naming both, and reads no file', () => {
    expect(problemsOf({ SECRET_KEY: key.toString('hex'), SECRET_KEY_FILE: join(dir, 'absent') })).toEqual(['SECRET_KEY, SECRET_KEY_FILE: set one of them, not both']);
  });

  it('refuses both set when one comes from CONFIG_FILE', async () => {
    const config = await file('config.json', JSON.stringify({ SECRET_KEY: key.toString('hex') }));
    expect(problemsOf({ CONFIG_FILE: config, SECRET_KEY_FILE: await file('key', key.toString('hex')) })).toEqual(['SECRET_KEY, SECRET_KEY_FILE: set one of them, not both']);
  });

  it('takes SECRET_KEY_FILE from CONFIG_FILE too, and names that source', async () => {
    const path = await file('key', key.toString('hex'));
    const config = loadConfig({ CONFIG_FILE: await file('config.json', JSON.stringify({ SECRET_KEY_FILE: path })) });
    expect(config.secretKey).toEqual(key);
    expect(config.settings.find((setting) => setting.name === 'SECRET_KEY_FILE')).toMatchObject({ value: path, source: 'file' });
  });

  it('treats an empty SECRET_KEY_FILE as unset, as every empty variable', () => {
    expect(loadConfig({ SECRET_KEY_FILE: '' }).secretKey).toBeUndefined();
  });

  it('refuses a file that is missing, naming its path', () => {
    const path = join(dir, 'absent');
    expect(problemsOf({ SECRET_KEY_FILE: path })).toEqual([`SECRET_KEY_FILE: cannot read ${path}: ENOENT: no such file or directory`]);
  });

  it('refuses a dangling link, a directory, an empty file and a file too large to be a secret', async () => {
    const link = join(dir, 'link');
    await symlink(join(dir, 'gone'), link);
    const folder = join(dir, 'folder');
    await mkdir(folder);
    const empty = await file('empty', '\n');
    const large = await file('large', 'a'.repeat(64 * 1024 + 1));
    expect(problemsOf({ SECRET_KEY_FILE: link })).toEqual([`SECRET_KEY_FILE: cannot read ${link}: ENOENT: no such file or directory`]);
    expect(problemsOf({ SECRET_KEY_FILE: folder })).toEqual([`SECRET_KEY_FILE: ${folder} is not a file`]);
    expect(problemsOf({ SECRET_KEY_FILE: empty })).toEqual([`SECRET_KEY_FILE: ${empty} is empty`]);
    expect(problemsOf({ SECRET_KEY_FILE: large })).toEqual([`SECRET_KEY_FILE: ${large} is larger than 64 KiB`]);
  });

  it('follows a link to the file, as Kubernetes mounts secrets', async () => {
    const target = await file('key', key.toString('hex'));
    const link = join(dir, 'mounted');
    await symlink(target, link);
    expect(loadConfig({ SECRET_KEY_FILE: link }).secretKey).toEqual(key);
  });

  it('lists a file problem with the other problems', () => {
    const problems = problemsOf({ SECRET_KEY_FILE: join(dir, 'absent'), PORT: 'eighty' });
    expect(problems.map((problem) => problem.split(':')[0]).sort()).toEqual(['PORT', 'SECRET_KEY_FILE']);
  });
});

describe('DATABASE_URL_FILE', () => {
  it('reads the URL from the file, and shows it with its password masked and the file variable as its source', async () => {
    const path = await file('url', 'postgres://auth:hunter2@db.internal/auth\n');
    const config = loadConfig({ DATABASE_URL_FILE: path, SECRET_KEY: 'a'.repeat(64) });
    expect(config.databaseUrl).toBe('postgres://auth:hunter2@db.internal/auth');
    expect(config.settings.find((setting) => setting.name === 'DATABASE_URL')).toEqual({
      name: 'DATABASE_URL',
      value: 'postgres://auth:***@db.internal/auth',
      source: 'DATABASE_URL_FILE',
    });
    expect(JSON.stringify(config.settings)).not.toContain('hunter2');
  });

  it('validates what the file holds as DATABASE_URL, naming the file', async () => {
    const path = await file('url', 'mysql://auth:hunter2@db/auth\n');
    const problems = problemsOf({ DATABASE_URL_FILE: path });
    expect(problems).toEqual([`DATABASE_URL (from DATABASE_URL_FILE ${path}): must be a postgres:// URL`]);
  });

  it('refuses DATABASE_URL and DATABASE_URL_FILE both set, naming both', async () => {
    expect(problemsOf({ DATABASE_URL: 'postgres://db/auth', DATABASE_URL_FILE: await file('url', 'postgres://db/auth') })).toEqual([
      'DATABASE_URL, DATABASE_URL_FILE: set one of them, not both',
    ]);
  });
});
