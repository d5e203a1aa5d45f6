/** SMTP_URL → nodemailer's options: TLS from the start or STARTTLS, ports, credentials, and errors that never repeat the URL. */
import { smtpTransportOptions } from '../../src/mail/smtp-url.js';

const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

test('smtps:// is TLS from the start; the port is the URL\'s or nodemailer\'s default (465)', () => {
  expect(smtpTransportOptions('smtps://mail.example.org')).toEqual({ host: 'mail.example.org', secure: true, ...TIMEOUTS });
  expect(smtpTransportOptions('smtps://mail.example.org:2465')).toMatchObject({ port: 2465, secure: true });
});

test('smtp:// upgrades with STARTTLS when offered, and requires it before sending a password to another machine', () => {
  expect(smtpTransportOptions('smtp://relay.example.org:25')).toEqual({ host: 'relay.example.org', port: 25, secure: false, requireTLS: false, ...TIMEOUTS });
  expect(smtpTransportOptions('smtp://mailer:secret@mail.example.org:587')).toEqual({
    host: 'mail.example.org',
    port: 587,
    secure: false,
    auth: { user: 'mailer', pass: 'secret' },
    requireTLS: true,
    ...TIMEOUTS,
  });
});

test.each(['127.0.0.1', '127.0.0.53', 'localhost', '[::1]'])('smtp:// to %s (this machine) is plain SMTP, credentials or not', (host) => {
  const options = smtpTransportOptions(`smtp://mailer:secret@${host}:2525`);
  expect(options).toMatchObject({ secure: false, ignoreTLS: true, port: 2525, host: host.replace(/[[\]]/g, '') });
  expect(options).not.toHaveProperty('requireTLS');
});

test('the user and password are percent-decoded', () => {
  expect(smtpTransportOptions('smtps://no-reply%40example.org:p%40ss%3Aw%2Fd%25@mail.example.org').auth).toEqual({ user: 'no-reply@example.org', pass: 'p@ss:w/d%' });
});

test.each([
  ['not a URL', 'SMTP_URL is not a URL (smtp://host:port or smtps://host:port)'],
  ['https://user:hunter2@mail.example.org', 'SMTP_URL must start with smtp:// or smtps://, not https://'],
  ['smtp://user:hunter2%zz@mail.example.org', 'SMTP_URL: the user or the password has a % not followed by two hex digits (write % as %25)'],
])('%s is refused with a clear error that does not repeat it', (url, message) => {
  expect(() => smtpTransportOptions(url)).toThrow(message);
});
