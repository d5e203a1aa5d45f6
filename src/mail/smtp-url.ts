import { isIP } from 'node:net';
import type { SMTPTransportOptions } from 'nodemailer/lib/smtp-transport';

/** Time-outs short enough that an attempt on a server that hangs ends, and is retried, within a minute. */
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

/**
 * nodemailer's SMTP options for SMTP_URL: smtp://[user:password@]host[:port] (STARTTLS, port 587 by default) or
 * smtps://… (TLS from the start, port 465 by default). The user and password are percent-decoded. Over
 * smtp://, a password is never sent before STARTTLS (requireTLS) unless the server is on this machine; a
 * server on the loopback is spoken to in plain text (ignoreTLS), as local relays often offer STARTTLS with a
 * certificate no client can check. A URL that is not one of these is an error that does not repeat it: it may
 * hold a password.
 */
export function smtpTransportOptions(url: string): SMTPTransportOptions {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('SMTP_URL is not a URL (smtp://host:port or smtps://host:port)');
  }
  if (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:') {
    throw new Error(`SMTP_URL must start with smtp:// or smtps://, not ${parsed.protocol}//`);
  }
  if (parsed.hostname === '') throw new Error('SMTP_URL names no host');
  const secure = parsed.protocol === 'smtps:';
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  const auth = parsed.username === '' ? undefined : { user: decoded(parsed.username), pass: decoded(parsed.password) };
  const local = isLoopback(host);
  return {
    host,
    ...(parsed.port === '' ? {} : { port: Number(parsed.port) }),
    secure,
    ...(auth === undefined ? {} : { auth }),
    ...(secure ? {} : local ? { ignoreTLS: true } : { requireTLS: auth !== undefined }),
    ...TIMEOUTS,
  };
}

function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new Error('SMTP_URL: the user or the password has a % not followed by two hex digits (write % as %25)');
  }
}

function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}
