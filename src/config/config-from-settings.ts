import { resolve } from 'node:path';
import { OPERATION_PARAMETERS, type OperationName } from '../service/wsdl-types.js';
import type { Config } from './config-type.js';
import type { FormsCookieConfig } from './forms-cookie-settings.js';
import { OPERATION_NAMES } from './operation-settings.js';
import { passkeyRpId } from './passkey-settings.js';
import { proxyTrust } from './proxy-trust.js';
import type { ParsedSettings } from './schema.js';
import type { Setting } from './settings.js';
import { encodeXmlName } from './xml-name.js';

/**
 * The Config the service runs with, from the parsed settings: grouped by what they are for, paths resolved,
 * WSDL names encoded, every part frozen. `trustProxySetting` is TRUST_PROXY as given, for the start-up log.
 */
export function configFrom(s: ParsedSettings, settings: readonly Setting[], trustProxySetting: string): Config {
  const wsdlBinding = s.WSDL_BINDING_NAME ?? s.SERVICE_NAME;
  const formsCookie = formsCookieFrom(s);
  return Object.freeze({
    profile: s.PROFILE,
    settings,
    port: s.PORT,
    host: s.HOST,
    dataDir: resolve(s.DATA_DIR),
    databaseUrl: s.DATABASE_URL,
    soapNamespace: s.SOAP_NAMESPACE,
    serviceName: s.SERVICE_NAME,
    wsdlNames: Object.freeze({
      service: encodeXmlName(s.SERVICE_NAME),
      binding: encodeXmlName(wsdlBinding),
      portType: encodeXmlName(s.WSDL_PORT_TYPE_NAME ?? wsdlBinding),
    }),
    operations: Object.freeze(s.OPERATIONS),
    operationParameters: Object.freeze(
      Object.fromEntries(
        OPERATION_NAMES.map((op) => [op, Object.freeze(OPERATION_PARAMETERS[op].filter((name) => s.AUTHENTICATION_TOKEN_PARAMETER || name !== 'authenticationToken'))]),
      ) as Record<OperationName, readonly string[]>,
    ),
    documentation: Object.freeze({ service: s.SERVICE_DOCUMENTATION, operations: Object.freeze(s.OPERATION_DOCUMENTATION ?? {}) }),
    basePath: s.BASE_PATH,
    publicUrl: s.PUBLIC_URL,
    allowedHosts: s.ALLOWED_HOSTS,
    trustProxy: proxyTrust(trustProxySetting, s.TRUST_PROXY),
    hstsMaxAgeSeconds: s.HSTS_MAX_AGE,
    resultFormat: s.RESULT_FORMAT,
    jsonFields: Object.freeze(s.JSON_FIELDS),
    ibridgeAttributes: Object.freeze(s.IBRIDGE_USER_ATTRIBUTES ?? []),
    memberIdFormat: s.MEMBER_ID_FORMAT,
    maxBodyBytes: s.MAX_BODY_BYTES,
    logLevel: s.LOG_LEVEL,
    logFormat: s.LOG_FORMAT,
    noColor: s.NO_COLOR !== undefined,
    bindings: Object.freeze({ soap11: s.SOAP11_ENABLED, soap12: s.SOAP12_ENABLED, httpGet: s.HTTP_GET_ENABLED, httpPost: s.HTTP_POST_ENABLED }),
    session: Object.freeze({
      absoluteTimeoutSeconds: s.SESSION_ABSOLUTE_TIMEOUT,
      idleTimeoutSeconds: s.SESSION_IDLE_TIMEOUT,
      slidingIdle: s.SESSION_SLIDING,
      tokenFormat: s.SESSION_TOKEN_FORMAT,
    }),
    secretKey: s.SECRET_KEY,
    signin: Object.freeze({
      loginPath: s.LOGIN_PATH,
      logoutPath: s.LOGOUT_PATH,
      accountPath: s.ACCOUNT_PATH,
      recoveryPaths: Object.freeze({ request: `${s.LOGIN_PATH.replace(/\/+$/, '')}/forgot`, reset: `${s.LOGIN_PATH.replace(/\/+$/, '')}/reset` }),
      mfa: s.MFA,
      defaultReturnPath: s.DEFAULT_RETURN_PATH ?? s.LOGIN_PATH,
      cookieDomain: s.COOKIE_DOMAIN?.toLowerCase(),
      passkeyRpId: passkeyRpId({ rpId: s.WEBAUTHN_RP_ID, cookieDomain: s.COOKIE_DOMAIN, publicUrl: s.PUBLIC_URL }),
      cookieName: formsCookie ? s.FORMS_COOKIE_NAME : s.LOGIN_COOKIE_NAME,
      tokenCookieName: s.TOKEN_COOKIE_NAME,
      cookieSecure: s.COOKIE_SECURE,
      branding: Object.freeze({
        organizationName: s.ORGANIZATION_NAME,
        logoUrl: s.LOGO_URL,
        accentColor: s.ACCENT_COLOR,
        templateDir: s.TEMPLATE_DIR === undefined ? undefined : resolve(s.TEMPLATE_DIR),
      }),
      throttle: Object.freeze({
        accountFailures: s.SIGNIN_MAX_FAILURES_PER_ACCOUNT,
        addressFailures: s.SIGNIN_MAX_FAILURES_PER_ADDRESS,
        windowSeconds: s.SIGNIN_FAILURE_WINDOW,
        lockoutSeconds: s.SIGNIN_LOCKOUT,
      }),
      recoveryTokenTtlSeconds: s.RECOVERY_TOKEN_TTL,
      support: Object.freeze({ url: s.SUPPORT_URL, email: s.SUPPORT_EMAIL }),
    }),
    formsCookie,
    // The cross-checks refuse SMTP_URL without MAIL_FROM.
    mailLog: s.MAIL_LOG,
    mail: s.SMTP_URL !== undefined && s.MAIL_FROM !== undefined ? Object.freeze({ url: s.SMTP_URL, from: s.MAIL_FROM, replyTo: s.MAIL_REPLY_TO }) : undefined,
    callerThrottle: Object.freeze({
      maxFailures: s.CALLER_MAX_FAILURES_PER_ADDRESS,
      windowSeconds: s.CALLER_FAILURE_WINDOW,
      lockoutSeconds: s.CALLER_LOCKOUT,
    }),
    cacheTtlMs: s.CACHE_TTL_MS,
    server: Object.freeze({
      headersTimeoutSeconds: s.HEADERS_TIMEOUT,
      requestTimeoutSeconds: s.REQUEST_TIMEOUT,
      keepAliveTimeoutSeconds: s.KEEP_ALIVE_TIMEOUT,
    }),
    metrics: Object.freeze({ enabled: s.METRICS_ENABLED, port: s.METRICS_PORT }),
    shutdownTimeoutSeconds: s.SHUTDOWN_TIMEOUT,
    eventsEnabled: s.EVENTS_ENABLED,
    purge: Object.freeze({ intervalSeconds: s.PURGE_INTERVAL, sessionRetentionSeconds: s.SESSION_RETENTION, eventRetentionDays: s.EVENTS_RETENTION_DAYS }),
    oidc: Object.freeze({ tokenLifetimeSeconds: s.OIDC_TOKEN_LIFETIME }),
  });
}

/** The site's Forms cookie settings, when both keys are set (the cross-checks refuse one alone). */
function formsCookieFrom(s: ParsedSettings): FormsCookieConfig | undefined {
  const validationKey = s.MACHINE_KEY_VALIDATION_KEY;
  const decryptionKey = s.MACHINE_KEY_DECRYPTION_KEY;
  if (validationKey === undefined || decryptionKey === undefined) return undefined;
  return Object.freeze({
    machineKey: Object.freeze({
      validationKey,
      decryptionKey,
      validation: s.MACHINE_KEY_VALIDATION,
      decryption: s.MACHINE_KEY_DECRYPTION,
      compatibilityMode: s.MACHINE_KEY_COMPATIBILITY,
    }),
    timeoutMinutes: s.FORMS_TIMEOUT,
    sliding: s.FORMS_SLIDING,
    unknownMember: s.FORMS_UNKNOWN_MEMBER,
  });
}
