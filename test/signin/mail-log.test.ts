/**
 * MAIL_LOG: the recovery flow tried without a mail server. Each mail is written to the log, marked as
 * development only, with a warning at the start; the link in it works; nothing is sent. Its refusals wherever the
 * service may be a real one are in test/config/mail-settings.test.ts.
 */
import { MAIL_LOG_LINE } from '../../src/mail/log-mailer.js';
import { describeWithPostgres } from '../helpers/postgres.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { PageClient } from '../helpers/page-client.js';

const NEW_PASSWORD = 'a brand new passphrase';

function mailLogFlow(store: 'sqlite' | 'postgres'): void {
  let app: TestApp;
  beforeEach(async () => {
    app = await startTestApp({ env: { MAIL_LOG: 'true', COOKIE_DOMAIN: '.example.org' }, store });
  });
  afterEach(() => app.close());

  const mailLines = () => app.logLines.filter((line) => line.message === MAIL_LOG_LINE && line.kind !== undefined);

  it('warns at the start, offers recovery, and writes the recovery mail to the log, whose link sets a new password', async () => {
    const warning = app.logLines.find((line) => line.message === MAIL_LOG_LINE);
    expect(warning).toMatchObject({ level: 'warn', detail: expect.stringContaining('recovery links included') });

    const visitor = new PageClient(app.baseUrl);
    expect((await visitor.get('/Login')).text).toContain('Forgot your password?');
    const form = await visitor.get('/Login/forgot');
    expect((await visitor.submit(form, { login: 'ada' })).status).toBe(303);

    expect(mailLines()).toHaveLength(1);
    const [mail] = mailLines();
    expect(mail).toMatchObject({ level: 'warn', kind: 'recovery', to: 'ada@example.org', subject: 'Reset your password' });
    const link = /^(http:\/\/\S+\/Login\/reset\?\S+)$/m.exec(String(mail?.text))?.[1] ?? '';
    const opened = await visitor.get(new URL(link).pathname + new URL(link).search);
    const page = await visitor.get(opened.headers.location ?? '');
    expect((await visitor.submit(page, { newPassword: NEW_PASSWORD })).status).toBe(303);
    expect((await new PageClient(app.baseUrl).signIn('ada', NEW_PASSWORD)).status).toBe(303);
    // The change is told by mail too, written to the log as well.
    expect(mailLines().map((line) => line.kind)).toEqual(['recovery', 'password_changed']);
  });
}

describe('MAIL_LOG on SQLite', () => mailLogFlow('sqlite'));
describeWithPostgres('MAIL_LOG on PostgreSQL', () => mailLogFlow('postgres'));
