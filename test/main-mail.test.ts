/**
 * serve() with SMTP_URL: the account page's change is mailed through a real SMTP server on 127.0.0.1, the mail
 * queued when SIGTERM comes is delivered during the stop (after the HTTP drain), and the log masks the SMTP
 * password in the settings line and holds no password anywhere.
 */
import { EventEmitter } from 'node:events';
import { createCliContext } from '../src/cli/context.js';
import { loadConfig, type Environment } from '../src/config/config.js';
import { serve } from '../src/main.js';
import { capturingIo } from './helpers/cli-harness.js';
import { logCapture } from './helpers/log-capture.js';
import { PageClient } from './helpers/page-client.js';
import { freePort } from './helpers/ports.js';
import { mailGroundForEachTest } from './helpers/smtp-server.js';
import { waitUntil } from './helpers/wait.js';

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a new and longer passphrase';
const SMTP_PASSWORD = 'smtp-Secret-never-logged';

const ground = mailGroundForEachTest('asmx-main-mail-', SMTP_PASSWORD);

test('serve() sends the mail of a change, delivers what waits when it stops, and logs no secret', async () => {
  const env: Environment = {
    DATA_DIR: ground.dataDir,
    PORT: String(await freePort()),
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    SMTP_URL: ground.smtpUrl,
    MAIL_FROM: 'no-reply@example.org',
  };
  await createCliContext(env, capturingIo()).withServices(async (services) => {
    await services.members.add({ id: 'm1', username: 'ada', email: 'ada@example.org', firstName: 'Ada' });
    await services.members.setPassword('m1', PASSWORD);
  });
  const signals = new EventEmitter();
  const { lines, stream } = logCapture();
  const serving = serve(loadConfig(env), { signals, logStream: stream });
  await waitUntil(() => lines.some((line) => line.message === 'listening'), 'serve() to start', { timeoutMs: 10_000 });

  const visitor = new PageClient(`http://127.0.0.1:${env.PORT}`);
  expect((await visitor.signIn('ada', PASSWORD)).status).toBe(303);
  // The server holds the connection before its greeting: the mail is under way, not delivered, when the stop begins.
  const release = ground.smtp.hold();
  const changed = await visitor.submit(await visitor.get('/Account'), { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }, { action: '/Account/password' });
  expect(changed.status).toBe(303);
  signals.emit('SIGTERM');
  await waitUntil(() => lines.some((line) => line.message === 'stopping: every request finished'), 'the HTTP drain');
  expect(ground.smtp.delivered).toHaveLength(0);
  release();
  await serving;

  expect(ground.smtp.delivered.map((mail) => mail.mail.subject)).toEqual(['Your password was changed']);
  const messages = lines.map((line) => line.message);
  expect(messages.indexOf('stopping: mail stopped')).toBeGreaterThan(messages.indexOf('stopping: every request finished'));
  expect(lines.find((line) => line.message === 'stopping: mail stopped')).toMatchObject({ dropped: 0 });
  expect(lines.find((line) => line.message === 'settings')).toMatchObject({
    settings: { SMTP_URL: { value: `smtp://mailer:***@127.0.0.1:${ground.smtp.port}`, source: 'environment' } },
  });
  const log = JSON.stringify(lines);
  for (const secret of [SMTP_PASSWORD, PASSWORD, NEW_PASSWORD, 'ada@example.org']) expect(log).not.toContain(secret);
});
