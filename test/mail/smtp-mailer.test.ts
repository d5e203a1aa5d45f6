/**
 * Mail through a real SMTP server on 127.0.0.1 (test/helpers/smtp-server.ts), no mocked transport: each kind
 * delivered with both parts and its headers; send() returning at once; back-off after a 4xx reply, none after a
 * 5xx; a server down and back; mails given up at their maximum age; the graceful stop; the counts; and logs
 * that never hold the link, the token, the SMTP password or the recipient's address.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates, setDefaultCACertificates } from 'node:tls';
import nodemailer from 'nodemailer';
import { createLogger } from '../../src/log/logger.js';
import { MAIL_KINDS, type Mail, type MailKind } from '../../src/mail/mail.js';
import { MailQueue, type MailResult } from '../../src/mail/queue.js';
import type { RetryPolicy } from '../../src/mail/retry.js';
import { createSmtpMailer, type SmtpMailer, type SmtpMailerOptions } from '../../src/mail/smtp-mailer.js';
import { smtpTransportOptions } from '../../src/mail/smtp-url.js';
import type { MailBranding } from '../../src/mail/views.js';
import { OPENSSL, selfSignedCertificate, type Certificate } from '../helpers/certificate.js';
import { logCapture } from '../helpers/log-capture.js';
import { describeRequiring } from '../helpers/requirements.js';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp-server.js';
import { waitUntil } from '../helpers/wait.js';
import { ManualTimers } from './manual-timers.js';

const USER = 'mailer';
const PASSWORD = 'smtp-Pa55word-never-logged';
const TOKEN = 'rcv-9f8e7d6c5b4a39281706';
const LINK = `https://example.org/Login/reset?token=${TOKEN}`;
const TO = 'ada.lovelace@example.org';
const BRANDING: MailBranding = {
  organizationName: 'Example Society',
  logoUrl: 'https://example.org/logo.png',
  accentColor: '#0b5cad',
  inkColor: '#0b5cad',
  signInUrl: 'https://example.org/Login',
};
const ORIGIN = { at: Date.UTC(2025, 5, 3, 14, 5), client: '203.0.113.7', device: 'Firefox on Windows' };
/** Real waits of a few milliseconds, for the tests that run on real time. */
const FAST: RetryPolicy = { firstDelayMs: 20, maxDelayMs: 100, maxAgeMs: 60_000, jitter: 0.5 };

const recovery = (to = TO): Mail => ({ kind: 'recovery', to, name: 'Ada', link: LINK, validMinutes: 30, origin: ORIGIN });
const MAILS: Record<MailKind, Mail> = {
  recovery: recovery(),
  password_changed: { kind: 'password_changed', to: TO, by: 'account', origin: ORIGIN },
  two_step_enabled: { kind: 'two_step_enabled', to: TO, by: 'account', origin: ORIGIN },
  two_step_disabled: { kind: 'two_step_disabled', to: TO, by: 'admin', origin: { at: ORIGIN.at } },
  recovery_code_used: { kind: 'recovery_code_used', to: TO, remaining: 3, origin: ORIGIN },
  passkey_added: { kind: 'passkey_added', to: TO, passkeyName: 'Chrome on Linux', origin: ORIGIN },
};

interface Harness {
  mailer: SmtpMailer;
  lines: Array<Record<string, unknown>>;
  /** How often mailSent(kind, result) was called. */
  count(kind: MailKind, result: MailResult): number;
  total(result: MailResult): number;
}

let server: TestSmtpServer;
let harness: Harness | undefined;

function start(overrides: Partial<SmtpMailerOptions> = {}, url = `smtp://${USER}:${PASSWORD}@127.0.0.1:${server.port}`): Harness {
  const { lines, stream } = logCapture();
  const counts = new Map<string, number>();
  const mailer = createSmtpMailer({
    settings: { url, from: 'Example Society <no-reply@example.org>', replyTo: 'help@example.org' },
    branding: BRANDING,
    templateDir: undefined,
    logger: createLogger('debug', stream),
    metrics: { mailSent: (kind, result) => counts.set(`${kind} ${result}`, (counts.get(`${kind} ${result}`) ?? 0) + 1) },
    retry: FAST,
    // No jitter: each wait is the policy's full delay, which the tests can name.
    random: () => 0,
    ...overrides,
  });
  const count = (kind: MailKind, result: MailResult) => counts.get(`${kind} ${result}`) ?? 0;
  harness = { mailer, lines, count, total: (result) => MAIL_KINDS.reduce((sum, kind) => sum + count(kind, result), 0) };
  return harness;
}

const linesNamed = (lines: Array<Record<string, unknown>>, message: string) => lines.filter((line) => line.message === message);

beforeEach(async () => {
  server = await startSmtpServer({ credentials: { user: USER, pass: PASSWORD } });
});

afterEach(async () => {
  await harness?.mailer.stop(1_000);
  harness = undefined;
  await server.stop();
});

test('each kind is delivered: a text and an HTML part, From, Reply-To and Subject, branded, over an authenticated session', async () => {
  const { mailer, count, lines } = start();
  for (const mail of Object.values(MAILS)) mailer.send(mail);
  // The server has a mail before the client reads its answer and counts it sent: the test waits for both.
  await waitUntil(() => server.delivered.length === MAIL_KINDS.length && MAIL_KINDS.every((kind) => count(kind, 'sent') === 1), 'every kind delivered and counted sent');

  const subjects = server.delivered.map(({ mail }) => mail.subject);
  expect(subjects.sort()).toEqual(
    [
      'A passkey was added to your Example Society account',
      'A recovery code was used to sign in to your Example Society account',
      'Reset your Example Society password',
      'Two-step verification was turned off for your Example Society account',
      'Two-step verification was turned on for your Example Society account',
      'Your Example Society password was changed',
    ].sort(),
  );
  for (const { envelope, user, mail } of server.delivered) {
    expect(user).toBe(USER);
    expect(envelope).toEqual({ from: 'no-reply@example.org', to: [TO] });
    expect(mail.from?.value).toEqual([{ name: 'Example Society', address: 'no-reply@example.org' }]);
    expect(mail.replyTo?.value).toEqual([{ name: '', address: 'help@example.org' }]);
    expect(mail.to && !Array.isArray(mail.to) ? mail.to.text : undefined).toBe(TO);
    expect(mail.headers.get('auto-submitted')).toBe('auto-generated');
    expect(mail.text).toContain('Example Society');
    expect(mail.text).toContain('When: 3 June 2025 at 14:05 UTC');
    expect(mail.html).toContain('<img src="https://example.org/logo.png" alt="Example Society"');
    expect(mail.html).toContain('border-top: 4px solid #0b5cad');
  }
  const recoveryMail = server.delivered.find(({ mail }) => mail.subject === 'Reset your Example Society password')?.mail;
  expect(recoveryMail?.text).toContain(LINK);
  expect(recoveryMail?.html).toContain(`<a href="${LINK}"`);

  for (const kind of MAIL_KINDS) expect(count(kind, 'sent')).toBe(1);
  expect(linesNamed(lines, 'mail sent').map(({ kind, attempt, to, level }) => ({ kind, attempt, to, level }))).toEqual(
    expect.arrayContaining(MAIL_KINDS.map((kind) => ({ kind, attempt: 1, to: 'a…@example.org', level: 'info' }))),
  );
});

test('send() returns at once, while the server keeps the connection waiting', async () => {
  const { mailer } = start();
  const release = server.hold();
  const returned = [mailer.send(recovery()), mailer.send(MAILS.password_changed), mailer.send(MAILS.two_step_enabled)];
  expect(returned).toEqual([undefined, undefined, undefined]);
  expect(mailer.pending).toBe(3);
  expect(server.delivered).toHaveLength(0);
  release();
  await waitUntil(() => server.delivered.length === 3, 'the three mails delivered once the server answers');
  await waitUntil(() => mailer.pending === 0, 'the queue empty once the server has acknowledged them');
});

test('a 4xx reply is retried with exponential back-off, on the clock, until the server takes the mail', async () => {
  const timers = new ManualTimers();
  const { mailer, count, lines } = start({ timers, retry: { firstDelayMs: 5_000, maxDelayMs: 600_000, maxAgeMs: 86_400_000, jitter: 0.5 } });
  server.refuse(451, 3);
  mailer.send(MAILS.password_changed);
  for (const [attempt, delay] of [
    [1, 5_000],
    [2, 10_000],
    [3, 20_000],
  ] as const) {
    await waitUntil(() => count('password_changed', 'retried') === attempt, `failed attempt ${attempt} counted`);
    expect(linesNamed(lines, 'mail not delivered, will retry').at(-1)).toMatchObject({
      level: 'warn',
      kind: 'password_changed',
      attempt,
      error: 'EENVELOPE',
      smtpCode: 451,
      retryInMs: delay,
    });
    timers.advance(delay - 1);
    expect(timers.pending).toBe(1);
    timers.advance(1);
    expect(timers.pending).toBe(0);
  }
  await waitUntil(() => server.delivered.length === 1 && count('password_changed', 'sent') === 1, 'delivered at the fourth attempt and counted sent');
  expect(server.attempts).toBe(4);
  expect(mailer.pending).toBe(0);
});

test('a 5xx reply is not retried: the mail is counted failed and logged as refused', async () => {
  const { mailer, count, lines } = start();
  server.refuse(550);
  mailer.send(MAILS.two_step_enabled);
  await waitUntil(() => count('two_step_enabled', 'failed') === 1, 'the refusal counted');
  expect(mailer.pending).toBe(0);
  expect(server.attempts).toBe(1);
  expect(count('two_step_enabled', 'retried')).toBe(0);
  expect(linesNamed(lines, 'mail refused')).toEqual([
    expect.objectContaining({ level: 'error', kind: 'two_step_enabled', attempt: 1, error: 'EENVELOPE', smtpCode: 550, to: 'a…@example.org' }),
  ]);
  expect(linesNamed(lines, 'mail not delivered, will retry')).toEqual([]);
});

test('the SMTP server down and back: the mail is retried while it is down and delivered once it returns', async () => {
  const { mailer, count, lines } = start();
  await server.stop();
  mailer.send(recovery());
  await waitUntil(() => count('recovery', 'retried') >= 3, 'three attempts refused while the server is down');
  expect(linesNamed(lines, 'mail not delivered, will retry')[0]).toMatchObject({ kind: 'recovery', attempt: 1, error: 'ESOCKET', cause: 'ECONNREFUSED' });
  await server.start();
  await waitUntil(() => server.delivered.length === 1 && count('recovery', 'sent') === 1, 'the mail delivered after the server returned, and counted sent');
  expect(server.delivered[0]?.mail.text).toContain(LINK);
  expect(mailer.pending).toBe(0);
});

test('a mail still undelivered at its maximum age is dropped, counted expired; a recovery mail lives as long as its link', async () => {
  const timers = new ManualTimers();
  const { mailer, count, lines } = start({ timers, retry: { firstDelayMs: 5_000, maxDelayMs: 600_000, maxAgeMs: 86_400_000, jitter: 0 } });
  await server.stop();
  mailer.send({ kind: 'recovery', to: TO, link: LINK, validMinutes: 1, origin: ORIGIN });
  // Attempts at 0, 5, 15 and 35 s; the next would be at 75 s, after the link's minute.
  for (const delay of [5_000, 10_000, 20_000]) {
    await waitUntil(() => linesNamed(lines, 'mail not delivered, will retry').at(-1)?.retryInMs === delay, `a retry in ${delay} ms`);
    timers.advance(delay);
  }
  await waitUntil(() => count('recovery', 'expired') === 1, 'the mail given up');
  expect(count('recovery', 'retried')).toBe(3);
  expect(linesNamed(lines, 'mail expired')).toEqual([expect.objectContaining({ level: 'error', kind: 'recovery', attempt: 4, ageSeconds: 35, cause: 'ECONNREFUSED' })]);
  expect(mailer.pending).toBe(0);
});

describe('stopping', () => {
  test('stop() tries at once what waits for its back-off, and delivers it', async () => {
    const { mailer, count } = start({ retry: { ...FAST, firstDelayMs: 60_000, maxDelayMs: 60_000, maxAgeMs: 600_000 } });
    server.refuse(421);
    mailer.send(MAILS.recovery_code_used);
    await waitUntil(() => count('recovery_code_used', 'retried') === 1, 'the first attempt refused');
    await expect(mailer.stop(5_000)).resolves.toEqual({ dropped: 0 });
    expect(server.delivered).toHaveLength(1);
    expect(count('recovery_code_used', 'sent')).toBe(1);
  });

  test('stop() waits no longer than its grace: what is left is dropped, counted and logged; later mails too', async () => {
    const { mailer, count, lines } = start();
    await server.stop();
    mailer.send(MAILS.password_changed);
    mailer.send(recovery());
    const stopped = mailer.stop(200);
    expect(mailer.stop(60_000)).toBe(stopped);
    await expect(stopped).resolves.toEqual({ dropped: 2 });
    mailer.send(MAILS.two_step_disabled);
    expect(count('password_changed', 'dropped')).toBe(1);
    expect(count('recovery', 'dropped')).toBe(1);
    expect(count('two_step_disabled', 'dropped')).toBe(1);
    // The two dropped at the stop come in either order: one may be in flight, the other waiting for its retry.
    const dropped = linesNamed(lines, 'mail dropped').map(({ kind, reason, level }) => ({ kind, reason, level }));
    expect(dropped.slice(0, 2).sort((a, b) => String(a.kind).localeCompare(String(b.kind)))).toEqual([
      { kind: 'password_changed', reason: 'stopped', level: 'error' },
      { kind: 'recovery', reason: 'stopped', level: 'error' },
    ]);
    expect(dropped.slice(2)).toEqual([{ kind: 'two_step_disabled', reason: 'stopped', level: 'error' }]);
    expect(mailer.pending).toBe(0);
  });
});

test('a mail that cannot be rendered is counted failed and logged; send() does not throw', async () => {
  const { mailer, count, lines } = start();
  expect(() => mailer.send({ ...MAILS.password_changed, origin: { at: Number.NaN } })).not.toThrow();
  expect(count('password_changed', 'failed')).toBe(1);
  expect(linesNamed(lines, 'mail not rendered')).toEqual([expect.objectContaining({ level: 'error', kind: 'password_changed', error: 'Invalid time value' })]);
  expect(mailer.pending).toBe(0);
});

test('a full queue drops the mail it cannot hold', async () => {
  const { lines, stream } = logCapture();
  const results: string[] = [];
  const transport = nodemailer.createTransport(smtpTransportOptions(`smtp://${USER}:${PASSWORD}@127.0.0.1:${server.port}`), { from: 'no-reply@example.org' });
  const queue = new MailQueue({ transport, logger: createLogger('debug', stream), metrics: { mailSent: (kind, result) => results.push(`${kind} ${result}`) }, capacity: 2 });
  const message = { to: TO, subject: 'Subject', text: 'Text', html: '<p>HTML</p>' };
  const release = server.hold();
  for (const kind of ['recovery', 'password_changed', 'two_step_enabled'] as const) queue.enqueue({ kind, message });
  expect(results).toEqual(['two_step_enabled dropped']);
  expect(linesNamed(lines, 'mail dropped')).toEqual([expect.objectContaining({ kind: 'two_step_enabled', reason: 'queue full' })]);
  release();
  await waitUntil(() => server.delivered.length === 2, 'the two queued mails delivered');
  await queue.stop(1_000);
});

test('the logs never hold the link, its token, the SMTP password, the recipient, or what the server said', async () => {
  const { mailer, total, lines } = start();
  server.refuse(451);
  mailer.send(recovery());
  await waitUntil(() => server.delivered.length === 1, 'the recovery mail delivered after a 4xx');
  server.refuse(554);
  mailer.send(recovery());
  await waitUntil(() => total('failed') === 1, 'the 5xx refusal');
  await server.stop();
  mailer.send(recovery());
  await waitUntil(() => total('retried') >= 2, 'an attempt refused while the server is down');
  await mailer.stop(100);

  // A wrong password: the server refuses it (535), and the log says so without it.
  const wrong = start({}, `smtp://${USER}:wrong-${PASSWORD}@127.0.0.1:${server.port}`);
  await server.start();
  wrong.mailer.send(recovery());
  await waitUntil(() => wrong.total('failed') === 1, 'the refused login counted');
  expect(linesNamed(wrong.lines, 'mail refused')).toEqual([expect.objectContaining({ error: 'EAUTH', smtpCode: 535 })]);

  const logged = JSON.stringify([...lines, ...wrong.lines]);
  expect(lines.length).toBeGreaterThanOrEqual(4);
  for (const secret of [TOKEN, PASSWORD, TO, 'ada.lovelace', 'Try again later', 'Refused', 'Invalid username or password']) {
    expect(logged).not.toContain(secret);
  }
});

describeRequiring([OPENSSL], 'smtps://', () => {
  let tlsServer: TestSmtpServer;
  let certificateDir: string;
  let certificate: Certificate;

  beforeAll(() => {
    certificateDir = mkdtempSync(join(tmpdir(), 'smtp-cert-'));
    certificate = selfSignedCertificate(certificateDir);
  });
  afterAll(() => rmSync(certificateDir, { recursive: true, force: true }));

  beforeEach(async () => {
    tlsServer = await startSmtpServer({ credentials: { user: USER, pass: PASSWORD }, tls: certificate });
  });

  afterEach(async () => {
    setDefaultCACertificates(rootCertificates);
    await harness?.mailer.stop(1_000);
    harness = undefined;
    await tlsServer.stop();
  });

  test('delivers over TLS to a server whose certificate is trusted', async () => {
    setDefaultCACertificates([...rootCertificates, certificate.cert]);
    start({}, `smtps://${USER}:${PASSWORD}@127.0.0.1:${tlsServer.port}`).mailer.send(recovery());
    await waitUntil(() => tlsServer.delivered.length === 1, 'delivered over TLS');
    expect(tlsServer.delivered[0]?.user).toBe(USER);
  });

  test('refuses a certificate it cannot check: nothing is sent, the attempt is retried', async () => {
    const { mailer, count, lines } = start({}, `smtps://${USER}:${PASSWORD}@127.0.0.1:${tlsServer.port}`);
    mailer.send(recovery());
    await waitUntil(() => count('recovery', 'retried') >= 1, 'the TLS failure counted');
    expect(tlsServer.attempts).toBe(0);
    expect(linesNamed(lines, 'mail not delivered, will retry')[0]).toMatchObject({ kind: 'recovery', attempt: 1, error: 'ESOCKET', cause: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    await expect(mailer.stop(0)).resolves.toEqual({ dropped: 1 });
  });
});
