/**
 * `config from-web-config FILE --out ENV_FILE`: the membership site's <machineKey> and <forms> written as the
 * settings that share its cookie, to a file only its owner reads (0600), never over one unless --force; the
 * output names the settings, never a key. The file it writes is one the service starts with.
 */
import { mkdtemp, readFile, rm, stat, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExitCode } from '../../src/cli/handle-error.js';
import { loadConfig } from '../../src/config/config.js';
import { runWith, type CliResult } from '../helpers/cli-harness.js';
import { SITE_KEY } from '../helpers/site-tickets.js';

const WRITTEN = [
  'MACHINE_KEY_VALIDATION_KEY',
  'MACHINE_KEY_DECRYPTION_KEY',
  'MACHINE_KEY_VALIDATION',
  'MACHINE_KEY_DECRYPTION',
  'MACHINE_KEY_COMPATIBILITY',
  'FORMS_COOKIE_NAME',
  'FORMS_TIMEOUT',
  'FORMS_SLIDING',
  'COOKIE_DOMAIN',
];

/** The site's web.config, 4.5 mode, with its keys; `forms` replaces the <forms> element, `keys` the key attributes. */
function webConfig({ forms = '<forms name=".IMISAUTH" timeout="20" domain=".example.org" path="/"/>', keys = '' } = {}): string {
  const keyAttributes = keys || `validationKey="${SITE_KEY.validationKey}" decryptionKey="${SITE_KEY.decryptionKey}"`;
  return `<?xml version="1.0" encoding="utf-8"?>
<configuration>
  <system.web>
    <httpRuntime targetFramework="4.8"/>
    <machineKey ${keyAttributes} validation="${SITE_KEY.validation}" decryption="${SITE_KEY.decryption}"/>
    <authentication mode="Forms">${forms}</authentication>
  </system.web>
</configuration>`;
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'from-web-config-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function siteFile(text = webConfig()): Promise<string> {
  const path = join(dir, 'web.config');
  await writeFile(path, text);
  return path;
}

const run = (...args: string[]) => runWith({ config: () => loadConfig({}), withServices: () => Promise.reject(new Error('opens no store')) }, 'config', 'from-web-config', ...args);

/** Neither output holds a key. */
function expectNoKey(result: CliResult): void {
  for (const key of [SITE_KEY.validationKey, SITE_KEY.decryptionKey]) {
    expect(result.stdout).not.toContain(key);
    expect(result.stderr).not.toContain(key);
  }
}

/** The settings an environment file holds, NAME=value a line. */
async function envOf(path: string): Promise<Record<string, string>> {
  const lines = (await readFile(path, 'utf8')).split('\n').filter(Boolean);
  return Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
}

describe('config from-web-config', () => {
  it("writes the site's settings to a file of mode 0600 that the service starts with, naming them but no key", async () => {
    const out = join(dir, 'imis.env');
    const result = await run(await siteFile(), '--out', out);
    expect(result).toEqual({ code: ExitCode.ok, stdout: `Wrote 9 settings to ${out}: ${WRITTEN.join(', ')}.\n`, stderr: '' });
    expect((await stat(out)).mode & 0o777).toBe(0o600);
    const env = await envOf(out);
    expect(Object.keys(env)).toEqual(WRITTEN);
    const config = loadConfig(env);
    expect(config.formsCookie).toEqual({ machineKey: SITE_KEY, timeoutMinutes: 20, sliding: true, unknownMember: 'refuse' });
    expect(config.signin).toMatchObject({ cookieName: '.IMISAUTH', cookieDomain: '.example.org' });
  });

  it('--json prints which settings it wrote, not their values', async () => {
    const out = join(dir, 'imis.env');
    const result = await run(await siteFile(), '--out', out, '--json');
    expect(result.code).toBe(ExitCode.ok);
    expect(JSON.parse(result.stdout)).toEqual({ file: out, settings: WRITTEN });
    expect(result.stdout).toBe(`${JSON.stringify({ file: out, settings: WRITTEN }, null, 2)}\n`);
    expectNoKey(result);
  });

  it('refuses to replace a file unless --force, which leaves it 0600 whatever its mode was', async () => {
    const out = join(dir, 'imis.env');
    await writeFile(out, 'KEEP=me\n');
    await chmod(out, 0o644);
    const refused = await run(await siteFile(), '--out', out);
    expect(refused).toEqual({ code: ExitCode.failure, stdout: '', stderr: `error: ${out} exists: give --force to replace it\n` });
    expect(await readFile(out, 'utf8')).toBe('KEEP=me\n');
    expect((await run(await siteFile(), '--out', out, '--force')).code).toBe(ExitCode.ok);
    expect(Object.keys(await envOf(out))).toEqual(WRITTEN);
    expect((await stat(out)).mode & 0o777).toBe(0o600);
  });

  it('warns, on stderr, when the site shares its cookie with no domain, and writes no COOKIE_DOMAIN', async () => {
    const out = join(dir, 'imis.env');
    const result = await run(await siteFile(webConfig({ forms: '<forms/>' })), '--out', out);
    expect(result.code).toBe(ExitCode.ok);
    expect(result.stderr).toMatch(/^warning: the site's <forms> names no domain/);
    expect(Object.keys(await envOf(out))).toEqual(WRITTEN.slice(0, -1));
    expect(await envOf(out)).toMatchObject({ FORMS_COOKIE_NAME: '.ASPXAUTH', FORMS_TIMEOUT: '30', FORMS_SLIDING: 'true' });
  });

  it('writes <forms slidingExpiration> as FORMS_SLIDING, which the service starts with', async () => {
    const out = join(dir, 'imis.env');
    const forms = '<forms name=".IMISAUTH" timeout="20" domain=".example.org" slidingExpiration="false"/>';
    expect((await run(await siteFile(webConfig({ forms })), '--out', out)).code).toBe(ExitCode.ok);
    expect(await envOf(out)).toMatchObject({ FORMS_SLIDING: 'false' });
    expect(loadConfig(await envOf(out)).formsCookie?.sliding).toBe(false);
  });

  it('refuses a web.config whose keys the servers generate, or that is not there, writing nothing', async () => {
    const out = join(dir, 'imis.env');
    const generated = await run(await siteFile(webConfig({ keys: `validationKey="AutoGenerate,IsolateApps" decryptionKey="${SITE_KEY.decryptionKey}"` })), '--out', out);
    expect(generated.code).toBe(ExitCode.failure);
    expect(generated.stderr).toMatch(/^error: .*web\.config: <machineKey validationKey> is generated by each server/);
    expectNoKey(generated);
    const missing = await run(join(dir, 'nothing.config'), '--out', out);
    expect(missing.code).toBe(ExitCode.failure);
    expect(missing.stderr).toMatch(/^error: cannot read .*nothing\.config: ENOENT/);
    await expect(stat(out)).rejects.toThrow(/ENOENT/);
  });

  it('refuses a site cookie name the service cannot set, without writing', async () => {
    const out = join(dir, 'imis.env');
    const result = await run(await siteFile(webConfig({ forms: '<forms name="my cookie"/>' })), '--out', out);
    expect(result.code).toBe(ExitCode.failure);
    expect(result.stderr).toMatch(/^error: the site's FORMS_COOKIE_NAME cannot be used here: must be a cookie name/);
    await expect(stat(out)).rejects.toThrow(/ENOENT/);
  });

  it('needs --out', async () => {
    const result = await run(await siteFile());
    expect(result.code).toBe(ExitCode.usage);
    expect(result.stderr).toContain("required option '--out <env-file>' not specified");
  });
});
