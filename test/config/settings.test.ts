/** The settings as they are shown: every one with its source for `config show` and the JSON log, and the short list of those given for a terminal. */
import { loadConfig } from '../../src/config/config.js';
import { givenSettings, shortened } from '../../src/config/settings.js';

describe('givenSettings', () => {
  it('lists the settings given, in the schema\'s order, as NAME=value; not the defaults, nor what the profile sets', () => {
    const config = loadConfig({ PROFILE: 'isgweb', PORT: '9000', RESULT_FORMAT: 'json' });
    expect(givenSettings(config.settings)).toEqual(['PORT=9000', 'PROFILE=isgweb', 'RESULT_FORMAT=json']);
  });

  it('masks secrets as config show does', () => {
    const config = loadConfig({ SECRET_KEY: 'a'.repeat(64), DATABASE_URL: 'postgres://auth:hunter2@db/auth' });
    expect(givenSettings(config.settings)).toEqual(['DATABASE_URL=postgres://auth:***@db/auth', 'SECRET_KEY=(hidden)']);
  });

  it('cuts values longer than 40 characters', () => {
    const documentation = 'The Authentication web service of the Example association, for its members.';
    const [shown] = givenSettings(loadConfig({ SERVICE_DOCUMENTATION: documentation }).settings);
    expect(shown).toBe(`SERVICE_DOCUMENTATION=${documentation.slice(0, 39)}…`);
  });

  it('is empty when every setting is at its default', () => {
    expect(givenSettings(loadConfig({}).settings)).toEqual([]);
  });
});

describe('shortened', () => {
  it('keeps a value up to the length, and cuts a longer one to it, ending in an ellipsis', () => {
    expect(shortened('abcde', 5)).toBe('abcde');
    expect(shortened('abcdef', 5)).toBe('abcd…');
  });
});
