/**
 * SMTP_URL, MAIL_FROM and MAIL_REPLY_TO: validated once at the start with clear problems that never repeat the
 * URL's password; SMTP_URL is a secret, readable from SMTP_URL_FILE and masked wherever settings are listed.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/config.js';
import { problemsOf } from './problems.js';

const SMTP_PASSWORD = 's3cret-Smtp-pass';
const URL_WITH_PASSWORD = `smtp://mailer:${SMTP_PASSWORD}@smtp.example.org:587`;
const FROM = 'Example Society <no-reply@example.org>';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'asmx-mail-settings-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('the mail settings', () => {
  it('are off by default: no SMTP_URL, no mail', () => {
    expect(loadConfig({}).mail).toBeUndefined();
  });

  it('take smtp:// and smtps:// URLs, with a bare or a named From and an optional Reply-To', () => {
    expect(loadConfig({ SMTP_URL: URL_WITH_PASSWORD, MAIL_FROM: FROM, MAIL_REPLY_TO: 'help@example.org' }).mail).toEqual({
      url: URL_WITH_PASSWORD,
      from: FROM,
      replyTo: 'help@example.org',
    });
    expect(loadConfig({ SMTP_URL: 'smtps://smtp.example.org', MAIL_FROM: 'no-reply@example.org' }).mail).toEqual({
      url: 'smtps://smtp.example.org',
      from: 'no-reply@example.org',
      replyTo: undefined,
    });
  });

  it('refuse SMTP_URL without MAIL_FROM', () => {
    expect(problemsOf({ SMTP_URL: 'smtp://127.0.0.1:2525' })).toEqual(["MAIL_FROM: must be set when SMTP_URL is (the address the members' mail comes from)"]);
  });

  it('refuse another scheme, or no URL at all, without repeating the password', () => {
    const otherScheme = problemsOf({ SMTP_URL: `https://mailer:${SMTP_PASSWORD}@smtp.example.org`, MAIL_FROM: FROM });
    expect(otherScheme).toEqual(['SMTP_URL: must start with smtp:// or smtps://, not https://']);
    const notUrl = problemsOf({ SMTP_URL: `//mailer:${SMTP_PASSWORD}@smtp.example.org`, MAIL_FROM: FROM });
    expect(notUrl).toEqual(['SMTP_URL: is not a URL (smtp://host:port or smtps://host:port)']);
    const badEscape = problemsOf({ SMTP_URL: 'smtp://mailer:50%off@smtp.example.org', MAIL_FROM: FROM });
    expect(badEscape).toEqual(['SMTP_URL: the user or the password has a % not followed by two hex digits (write % as %25)']);
    expect([...otherScheme, ...notUrl].join('\n')).not.toContain(SMTP_PASSWORD);
  });

  it('refuse a From or Reply-To that is not one address on one line', () => {
    expect(problemsOf({ SMTP_URL: URL_WITH_PASSWORD, MAIL_FROM: 'the society', MAIL_REPLY_TO: 'a@example.org, b@example.org' })).toEqual([
      'MAIL_FROM: must be one email address, or a name and an address such as "Example <no-reply@example.org>"',
      'MAIL_REPLY_TO: must be one email address, or a name and an address such as "Example <no-reply@example.org>"',
    ]);
    expect(problemsOf({ SMTP_URL: URL_WITH_PASSWORD, MAIL_FROM: 'no-reply@example.org\nBcc: all@example.org' })).toHaveLength(1);
  });

  it('mask the SMTP password wherever settings are listed', () => {
    const config = loadConfig({ SMTP_URL: URL_WITH_PASSWORD, MAIL_FROM: FROM });
    expect(config.settings.find((setting) => setting.name === 'SMTP_URL')).toEqual({
      name: 'SMTP_URL',
      value: 'smtp://mailer:***@smtp.example.org:587',
      source: 'environment',
    });
    expect(config.settings.find((setting) => setting.name === 'MAIL_FROM')).toEqual({ name: 'MAIL_FROM', value: FROM, source: 'environment' });
    expect(JSON.stringify(config.settings)).not.toContain(SMTP_PASSWORD);
  });

  it('read SMTP_URL from SMTP_URL_FILE, masked, and name the file in a problem', async () => {
    const path = join(dir, 'smtp-url');
    await writeFile(path, `${URL_WITH_PASSWORD}\n`);
    const config = loadConfig({ SMTP_URL_FILE: path, MAIL_FROM: FROM });
    expect(config.mail?.url).toBe(URL_WITH_PASSWORD);
    expect(config.settings.find((setting) => setting.name === 'SMTP_URL')).toEqual({
      name: 'SMTP_URL',
      value: 'smtp://mailer:***@smtp.example.org:587',
      source: 'SMTP_URL_FILE',
    });
    expect(problemsOf({ SMTP_URL_FILE: path })).toEqual(["MAIL_FROM: must be set when SMTP_URL is (the address the members' mail comes from)"]);
    const wrong = join(dir, 'wrong');
    await writeFile(wrong, `http://mailer:${SMTP_PASSWORD}@smtp.example.org\n`);
    const problems = problemsOf({ SMTP_URL_FILE: wrong, MAIL_FROM: FROM });
    expect(problems).toEqual([`SMTP_URL (from SMTP_URL_FILE ${wrong}): must start with smtp:// or smtps://, not http://`]);
    expect(problems.join('\n')).not.toContain(SMTP_PASSWORD);
  });
});

describe('MAIL_LOG', () => {
  const why = "it writes members' mail, recovery links included, to the log, for development only";

  it('is off by default, and on where the service can only be a developer\'s (no mail server, a loopback PUBLIC_URL or none)', () => {
    expect(loadConfig({}).mailLog).toBe(false);
    expect(loadConfig({ MAIL_LOG: 'true' }).mailLog).toBe(true);
    for (const url of ['http://localhost:8080', 'http://127.0.0.1:8080/members', 'http://[::1]:8080']) {
      expect(loadConfig({ MAIL_LOG: '1', PUBLIC_URL: url }).mailLog).toBe(true);
    }
  });

  it('is refused with a mail server, under NODE_ENV=production, with a PUBLIC_URL elsewhere, or with ALLOWED_HOSTS', () => {
    expect(problemsOf({ MAIL_LOG: 'true', SMTP_URL: URL_WITH_PASSWORD, MAIL_FROM: FROM })).toEqual(['MAIL_LOG: not with SMTP_URL (mail is either sent or written to the log)']);
    expect(problemsOf({ MAIL_LOG: 'true', NODE_ENV: 'production' })).toEqual([`MAIL_LOG: refused when NODE_ENV=production (${why})`]);
    expect(problemsOf({ MAIL_LOG: 'true', PUBLIC_URL: 'https://login.example.org' })).toEqual([
      `MAIL_LOG: refused with a PUBLIC_URL that is not localhost, 127.0.0.1 or [::1] (${why})`,
    ]);
    expect(problemsOf({ MAIL_LOG: 'true', ALLOWED_HOSTS: 'login.example.org' })).toEqual([`MAIL_LOG: refused with ALLOWED_HOSTS (${why})`]);
    expect(loadConfig({ MAIL_LOG: 'false', NODE_ENV: 'production', PUBLIC_URL: 'https://login.example.org' }).mailLog).toBe(false);
  });
});
