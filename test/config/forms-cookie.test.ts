/**
 * The membership site's Forms cookie settings: MACHINE_KEY_* as the site's <machineKey> has them (the keys
 * secrets: masked wherever settings are listed, and readable from files), FORMS_* as its <forms>; checked once
 * at start-up, with messages that name the setting and never quote a key.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { givenSettings } from '../../src/config/settings.js';
import { loadConfig } from '../../src/config/config.js';
import { SITE_ENV, SITE_KEY } from '../helpers/site-tickets.js';
import { problemsOf } from './problems.js';

const KEYS = { MACHINE_KEY_VALIDATION_KEY: SITE_KEY.validationKey, MACHINE_KEY_DECRYPTION_KEY: SITE_KEY.decryptionKey };
/** Keys a test may give that no message may quote. */
const VALIDATION_KEY_40 = 'A1B2C3D4E5F60718293A4B5C6D7E8F9011223344';

describe('without the site\'s keys', () => {
  it('there is no Forms cookie, and the login cookie is LOGIN_COOKIE_NAME', () => {
    const config = loadConfig({ LOGIN_COOKIE_NAME: 'MEMBERAUTH', FORMS_COOKIE_NAME: '.IMISAUTH' });
    expect(config.formsCookie).toBeUndefined();
    expect(config.signin.cookieName).toBe('MEMBERAUTH');
  });
});

describe('with the site\'s keys', () => {
  it('takes System.Web\'s defaults for what is not set: HMACSHA256, AES, Framework20SP1, .ASPXAUTH, 30 minutes, sliding, refuse', () => {
    const config = loadConfig(KEYS);
    expect(config.formsCookie).toEqual({
      machineKey: { ...KEYS_AS_SETTINGS, validation: 'HMACSHA256', decryption: 'AES', compatibilityMode: 'Framework20SP1' },
      timeoutMinutes: 30,
      sliding: true,
      unknownMember: 'refuse',
    });
    expect(config.signin.cookieName).toBe('.ASPXAUTH');
    expect(Object.isFrozen(config.formsCookie)).toBe(true);
    expect(Object.isFrozen(config.formsCookie?.machineKey)).toBe(true);
  });

  it('reads every setting, and the login cookie is FORMS_COOKIE_NAME', () => {
    const config = loadConfig({ ...SITE_ENV, FORMS_COOKIE_NAME: '.IMISAUTH', FORMS_TIMEOUT: '20', FORMS_SLIDING: 'false', FORMS_UNKNOWN_MEMBER: 'minimal' });
    expect(config.formsCookie).toEqual({ machineKey: SITE_KEY, timeoutMinutes: 20, sliding: false, unknownMember: 'minimal' });
    expect(config.settings).toContainEqual({ name: 'FORMS_SLIDING', value: 'false', source: 'environment' });
    expect(config.signin.cookieName).toBe('.IMISAUTH');
  });

  it('accepts LOGIN_COOKIE_NAME when it is FORMS_COOKIE_NAME, and refuses another: there is one login cookie', () => {
    expect(loadConfig({ ...KEYS, LOGIN_COOKIE_NAME: '.IMISAUTH', FORMS_COOKIE_NAME: '.IMISAUTH' }).signin.cookieName).toBe('.IMISAUTH');
    expect(problemsOf({ ...KEYS, LOGIN_COOKIE_NAME: 'MEMBERAUTH' })).toEqual([
      "LOGIN_COOKIE_NAME: with the site's keys set, the login cookie is the site's Forms cookie, FORMS_COOKIE_NAME (.ASPXAUTH): leave LOGIN_COOKIE_NAME unset, or give both the same name",
    ]);
  });

  it('masks both keys in the settings (config show, the start-up line), and reads them from files', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'machine-key-'));
    try {
      const file = join(dir, 'validation.key');
      await writeFile(file, `${SITE_KEY.validationKey}\n`);
      const config = loadConfig({ ...SITE_ENV, MACHINE_KEY_VALIDATION_KEY: undefined, MACHINE_KEY_VALIDATION_KEY_FILE: file });
      expect(config.formsCookie?.machineKey.validationKey).toBe(SITE_KEY.validationKey);
      const shown = JSON.stringify(config.settings);
      expect(config.settings).toContainEqual({ name: 'MACHINE_KEY_VALIDATION_KEY', value: '(hidden)', source: 'MACHINE_KEY_VALIDATION_KEY_FILE' });
      expect(config.settings).toContainEqual({ name: 'MACHINE_KEY_DECRYPTION_KEY', value: '(hidden)', source: 'environment' });
      expect(shown).not.toContain(SITE_KEY.validationKey);
      expect(shown).not.toContain(SITE_KEY.decryptionKey);
      expect(givenSettings(config.settings)).toContain('MACHINE_KEY_DECRYPTION_KEY=(hidden)');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

const KEYS_AS_SETTINGS = { validationKey: SITE_KEY.validationKey, decryptionKey: SITE_KEY.decryptionKey };

describe('problems, checked once at start-up', () => {
  it('refuses one key without the other, either way', () => {
    const both = "MACHINE_KEY_VALIDATION_KEY, MACHINE_KEY_DECRYPTION_KEY: set both (the site's <machineKey> keys), or neither";
    expect(problemsOf({ MACHINE_KEY_VALIDATION_KEY: SITE_KEY.validationKey })).toEqual([both]);
    expect(problemsOf({ MACHINE_KEY_DECRYPTION_KEY: SITE_KEY.decryptionKey })).toEqual([both]);
  });

  it('refuses keys whose length the algorithms cannot take, naming the setting by the service\'s own rules, never the key', () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ MACHINE_KEY_VALIDATION_KEY: VALIDATION_KEY_40, MACHINE_KEY_DECRYPTION_KEY: 'ABCDEF0123' }, 'MACHINE_KEY_DECRYPTION_KEY: decryptionKey for AES must have 32 or 48 or 64 hex digits.'],
      [{ MACHINE_KEY_VALIDATION_KEY: 'ABCDEF', MACHINE_KEY_DECRYPTION_KEY: SITE_KEY.decryptionKey }, 'MACHINE_KEY_VALIDATION_KEY: validationKey must have at least 40 hex digits.'],
      [{ MACHINE_KEY_VALIDATION_KEY: `${VALIDATION_KEY_40}A`, MACHINE_KEY_DECRYPTION_KEY: SITE_KEY.decryptionKey }, 'MACHINE_KEY_VALIDATION_KEY: validationKey must be an even number of hex digits (AutoGenerate and IsolateApps keys cannot be shared).'],
      [
        { MACHINE_KEY_VALIDATION_KEY: 'AB'.repeat(65), MACHINE_KEY_DECRYPTION_KEY: SITE_KEY.decryptionKey, MACHINE_KEY_VALIDATION: 'SHA1' },
        'MACHINE_KEY_VALIDATION_KEY: validationKey for SHA1 in Framework20SP1 mode must have at most 128 hex digits.',
      ],
    ];
    for (const [env, problem] of cases) {
      const problems = problemsOf(env);
      expect(problems).toEqual([problem]);
      for (const key of [env.MACHINE_KEY_VALIDATION_KEY, env.MACHINE_KEY_DECRYPTION_KEY]) expect(problems.join('\n')).not.toContain(key);
    }
    // The same 32 hex digits are a key 3DES takes (two-key triple DES).
    expect(loadConfig({ MACHINE_KEY_VALIDATION_KEY: VALIDATION_KEY_40, MACHINE_KEY_DECRYPTION_KEY: 'AB'.repeat(16), MACHINE_KEY_DECRYPTION: '3DES' }).formsCookie?.machineKey.decryption).toBe('3DES');
  });

  it('refuses a key that is not hex (AutoGenerate), an unknown algorithm or mode, and a timeout that is not minutes', () => {
    const problems = problemsOf({
      MACHINE_KEY_VALIDATION_KEY: 'AutoGenerate,IsolateApps',
      MACHINE_KEY_DECRYPTION_KEY: SITE_KEY.decryptionKey,
      MACHINE_KEY_VALIDATION: 'MD5',
      MACHINE_KEY_DECRYPTION: 'DES',
      MACHINE_KEY_COMPATIBILITY: 'Framework40',
      FORMS_TIMEOUT: '30m',
      FORMS_UNKNOWN_MEMBER: 'guest',
      FORMS_COOKIE_NAME: 'a b',
      FORMS_SLIDING: 'sometimes',
    });
    expect(problems.map((problem) => problem.split(':')[0]).sort()).toEqual([
      'FORMS_COOKIE_NAME',
      'FORMS_SLIDING',
      'FORMS_TIMEOUT',
      'FORMS_UNKNOWN_MEMBER',
      'MACHINE_KEY_COMPATIBILITY',
      'MACHINE_KEY_DECRYPTION',
      'MACHINE_KEY_VALIDATION',
      'MACHINE_KEY_VALIDATION_KEY',
    ]);
    expect(problems).toContain('MACHINE_KEY_VALIDATION: must be one of SHA1, HMACSHA256, HMACSHA384, HMACSHA512');
    expect(problems).toContain('FORMS_UNKNOWN_MEMBER: must be one of refuse, minimal');
    expect(problems).toContain('FORMS_SLIDING: must be true or false');
    expect(problems.join('\n')).not.toContain(SITE_KEY.decryptionKey);
  });

  it('keeps FORMS_TIMEOUT between a minute and a year', () => {
    expect(problemsOf({ FORMS_TIMEOUT: '0' })).toEqual(['FORMS_TIMEOUT: must be between 1 and 525600']);
    expect(loadConfig({ ...KEYS, FORMS_TIMEOUT: '525600' }).formsCookie?.timeoutMinutes).toBe(525_600);
  });
});
