import { loadConfig, type Environment } from '../../src/config/config.js';
import { runWith } from '../helpers/cli-harness.js';

const showing = (env: Environment, ...args: string[]) =>
  runWith({ config: () => loadConfig(env), withServices: () => Promise.reject(new Error('config show opens no store')) }, 'config', 'show', ...args);

describe('config show', () => {
  it('names the profile and lists the settings it set, and those given, with their source', async () => {
    const result = await showing({ PROFILE: 'isgweb', PORT: '9000' });
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe('Profile: isgweb');
    expect(lines[1]).toMatch(/^NAME\s+VALUE\s+SOURCE$/);
    expect(lines).toContainEqual(expect.stringMatching(/^PROFILE\s+isgweb\s+environment$/));
    expect(lines).toContainEqual(expect.stringMatching(/^PORT\s+9000\s+environment$/));
    expect(lines).toContainEqual(expect.stringMatching(/^SOAP_NAMESPACE\s+http:\/\/ibridge\.isgsolutions\.com\/Authentication\/\s+profile$/));
    expect(lines).toContainEqual(expect.stringMatching(/^TOKEN_COOKIE_NAME\s+Token\s+profile$/));
    expect(lines.some((line) => line.startsWith('HOST '))).toBe(false);
  });

  it('--all adds the defaults; --json prints one document', async () => {
    const all = await showing({}, '--all');
    expect(all.stdout).toMatch(/^HOST\s+127\.0\.0\.1\s+default$/m);
    const json = JSON.parse((await showing({ PROFILE: 'crm4m' }, '--json')).stdout) as Array<{ name: string; value: string; source: string }>;
    expect(json).toContainEqual({ name: 'MEMBER_ID_FORMAT', value: 'guid', source: 'profile' });
  });

  it('never prints the secret key or a database password', async () => {
    const key = 'a'.repeat(64);
    const result = await showing({ SECRET_KEY: key, DATABASE_URL: 'postgres://auth:hunter2@db.internal/auth' });
    expect(result.stdout).toMatch(/^SECRET_KEY\s+\(hidden\)\s+environment$/m);
    expect(result.stdout).toContain('postgres://auth:***@db.internal/auth');
    expect(result.stdout).not.toContain(key);
    expect(result.stdout).not.toContain('hunter2');
  });

  it('says so when every setting is at its default', async () => {
    expect((await showing({})).stdout).toBe('Profile: none\nEvery setting is at its default (add --all to list them).\n');
  });
});
