/**
 * The admin commands that change a member's account mail the member through a real SMTP server on 127.0.0.1:
 * `members set-password` (the password set by an administrator) and `members mfa reset` (two-step
 * verification turned off). The command delivers what it queued before it exits; its mail log goes to stderr
 * and holds neither the password nor the SMTP credentials. A member without an email, or no SMTP_URL, gets
 * nothing.
 */
import { createCliContext } from '../../src/cli/context.js';
import { runCli } from '../../src/cli/program.js';
import type { Environment } from '../../src/config/config.js';
import { totpCode } from '../helpers/authenticator-app.js';
import { capturingIo } from '../helpers/cli-harness.js';
import { mailGroundForEachTest } from '../helpers/smtp-server.js';

const NEW_PASSWORD = 'set by the admin desk';
const SMTP_PASSWORD = 'smtp-Secret-never-logged';

const ground = mailGroundForEachTest('asmx-cli-mail-', SMTP_PASSWORD);

const mailEnv = (): Environment => ({
  DATA_DIR: ground.dataDir,
  LOG_FORMAT: 'json',
  SMTP_URL: ground.smtpUrl,
  MAIL_FROM: 'no-reply@example.org',
  ORGANIZATION_NAME: 'Example Society',
});

/** The CLI as the admin runs it, with the settings of `env`. */
async function run(env: Environment, ...args: string[]) {
  const io = capturingIo();
  const code = await runCli(args, createCliContext(env, io), '9.9.9-test');
  return { code, stdout: io.stdout, stderr: io.stderr };
}

async function addAda(env: Environment): Promise<void> {
  expect((await run(env, 'members', 'add', '--id', 'm1', '--username', 'ada', '--email', 'ada@example.org', '--first-name', 'Ada')).code).toBe(0);
}

it('members set-password mails the member that an administrator set it, delivered before the command ends', async () => {
  const env = mailEnv();
  await addAda(env);
  const result = await run(env, 'members', 'set-password', 'm1', '--password', NEW_PASSWORD);
  expect(result.code).toBe(0);
  expect(result.stdout).toBe('Password of member m1 set.\n');
  // No waiting: the command gives its mail the time to go before it ends.
  expect(ground.smtp.delivered).toHaveLength(1);
  const [mail] = ground.smtp.delivered;
  expect(mail?.envelope.to).toEqual(['ada@example.org']);
  expect(mail?.mail.subject).toBe('Your Example Society password was changed');
  expect(mail?.mail.text).toContain('Hello Ada,');
  expect(mail?.mail.text).toContain('An administrator of Example Society set a new password for your account:');
  expect(mail?.mail.text).toContain('- When: ');
  expect(mail?.mail.text).not.toContain('From the address');
  expect(mail?.mail.text).not.toContain('Device:');
  const lines = result.stderr.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(lines).toEqual([expect.objectContaining({ message: 'mail sent', kind: 'password_changed', to: 'a…@example.org' })]);
  expect(result.stderr).not.toContain(NEW_PASSWORD);
  expect(result.stderr).not.toContain(SMTP_PASSWORD);
});

it('members mfa reset mails the member that an administrator turned two-step verification off', async () => {
  const env = mailEnv();
  await addAda(env);
  // A confirmed factor, set up through the services as the account page would (without a mail of its own).
  await createCliContext(env, capturingIo()).withServices(async (services) => {
    const { secret } = await services.secondFactor.beginSetup('m1', 'ada@example.org');
    expect(await services.secondFactor.confirmSetup('m1', totpCode(secret, Date.now()))).not.toBeNull();
  });
  expect(ground.smtp.delivered).toHaveLength(0);
  const result = await run(env, 'members', 'mfa', 'reset', 'm1');
  expect(result.code).toBe(0);
  expect(ground.smtp.delivered).toHaveLength(1);
  expect(ground.smtp.delivered[0]?.mail.subject).toBe('Two-step verification was turned off for your Example Society account');
  expect(ground.smtp.delivered[0]?.mail.text).not.toContain('From the address');
});

it('sends nothing to a member without an email, nor without SMTP_URL', async () => {
  const env = mailEnv();
  expect((await run(env, 'members', 'add', '--id', 'm2', '--username', 'carl')).code).toBe(0);
  const noEmail = await run(env, 'members', 'set-password', 'm2', '--password', NEW_PASSWORD);
  expect(noEmail.code).toBe(0);
  expect(noEmail.stderr).toBe('');

  const { SMTP_URL: _url, MAIL_FROM: _from, ...withoutMail } = env;
  await addAda(withoutMail);
  const noSmtp = await run(withoutMail, 'members', 'set-password', 'm1', '--password', NEW_PASSWORD);
  expect(noSmtp.code).toBe(0);
  expect(noSmtp.stderr).toBe('');
  expect(ground.smtp.attempts).toBe(0);
});
