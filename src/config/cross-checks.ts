import type { z } from 'zod';
import { formsCookieProblems } from './forms-cookie-settings.js';
import { mailLogProblems, mailProblems } from './mail-settings.js';
import { passkeyProblems } from './passkey-settings.js';
import { schema, type Environment } from './schema.js';

/** Rules between settings, checked on whichever of them parsed, so that every problem is listed at once. */
export function crossFieldProblems(env: Environment, nodeEnv: string | undefined): string[] {
  const field = <K extends keyof typeof schema.shape>(key: K) => {
    const parsed = schema.shape[key].safeParse(env[key]);
    return parsed.success ? (parsed.data as z.output<(typeof schema.shape)[K]>) : undefined;
  };
  const problems: string[] = [];
  const idle = field('SESSION_IDLE_TIMEOUT');
  const absolute = field('SESSION_ABSOLUTE_TIMEOUT');
  if (idle !== undefined && absolute !== undefined && idle > absolute) {
    problems.push('SESSION_IDLE_TIMEOUT: must not be longer than SESSION_ABSOLUTE_TIMEOUT');
  }
  const bindings = (['SOAP11_ENABLED', 'SOAP12_ENABLED', 'HTTP_GET_ENABLED', 'HTTP_POST_ENABLED'] as const).map(field);
  if (bindings.every((on) => on === false)) {
    problems.push('SOAP11_ENABLED, SOAP12_ENABLED, HTTP_GET_ENABLED, HTTP_POST_ENABLED: at least one binding must stay on');
  }
  const port = field('PORT');
  const metricsPort = field('METRICS_PORT');
  if (metricsPort !== undefined && metricsPort !== 0 && metricsPort === port) {
    problems.push('METRICS_PORT: must differ from PORT (leave METRICS_PORT unset to serve /metrics on the main port)');
  }
  // Node refuses to create a server whose headers may take longer than the whole request.
  const headersTimeout = field('HEADERS_TIMEOUT');
  const requestTimeout = field('REQUEST_TIMEOUT');
  if (headersTimeout !== undefined && requestTimeout !== undefined && headersTimeout > requestTimeout) {
    problems.push('HEADERS_TIMEOUT: must not be longer than REQUEST_TIMEOUT');
  }
  problems.push(
    ...formsCookieProblems({
      keysSet: { validationKey: env.MACHINE_KEY_VALIDATION_KEY !== undefined, decryptionKey: env.MACHINE_KEY_DECRYPTION_KEY !== undefined },
      validationKey: field('MACHINE_KEY_VALIDATION_KEY'),
      decryptionKey: field('MACHINE_KEY_DECRYPTION_KEY'),
      validation: field('MACHINE_KEY_VALIDATION'),
      decryption: field('MACHINE_KEY_DECRYPTION'),
      compatibilityMode: field('MACHINE_KEY_COMPATIBILITY'),
      // Given, not defaulted: the two names' defaults are the same.
      loginCookieName: env.LOGIN_COOKIE_NAME === undefined ? undefined : field('LOGIN_COOKIE_NAME'),
      formsCookieName: field('FORMS_COOKIE_NAME'),
    }),
  );
  problems.push(...mailProblems({ smtpUrlSet: env.SMTP_URL !== undefined, mailFromSet: env.MAIL_FROM !== undefined }));
  problems.push(
    ...mailLogProblems({ mailLog: field('MAIL_LOG'), smtpUrlSet: env.SMTP_URL !== undefined, publicUrl: field('PUBLIC_URL'), allowedHostsSet: env.ALLOWED_HOSTS !== undefined, nodeEnv }),
  );
  problems.push(...passkeyProblems({ rpId: field('WEBAUTHN_RP_ID'), publicUrl: field('PUBLIC_URL'), allowedHosts: field('ALLOWED_HOSTS') }));
  return problems;
}
