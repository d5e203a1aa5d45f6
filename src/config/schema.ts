import { z } from 'zod';
import { DEFAULT_SERVER_TIMEOUTS, LOG_FORMATS, MEMBER_ID_FORMATS, MFA_POLICIES, RESULT_FORMATS, SESSION_TOKEN_FORMATS } from './config-type.js';
import { fieldList } from './field-list.js';
import { bareMailAddress, mailAddress, smtpUrl } from './mail-settings.js';
import { FORMS_UNKNOWN_MEMBER_POLICIES, MACHINE_KEY_COMPATIBILITIES, MACHINE_KEY_DECRYPTIONS, MACHINE_KEY_VALIDATIONS, machineKeyHex } from './forms-cookie-settings.js';
import { DEFAULT_OPERATIONS, operationDocumentation, operationList } from './operation-settings.js';
import { rpIdSetting } from './passkey-settings.js';
import { PROFILE_NAMES } from './profiles.js';
import { trustedProxies } from './proxy-trust.js';
import { DEFAULT_JSON_FIELDS, IBRIDGE_ATTRIBUTE_NAMES, IBRIDGE_CORE_ATTRIBUTES, JSON_FIELD_NAMES } from './result-fields.js';
import { absoluteHttpUrl, bool, cookieName, documentation, duration, durationAtMost, durationOrOff, hostPatterns, integer, serviceName, urlPath, webPageUrl } from './value-formats.js';

/** Every setting, with its environment variable, its default and its rule; the README's table lists the same. */
export const schema = z.object({
  PORT: integer(0, 65535).default(8080),
  HOST: z.string().trim().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().trim().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .trim()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  SOAP_NAMESPACE: absoluteHttpUrl
    .or(z.string().regex(/^urn:/, 'must be a URL or urn'))
    .refine((v) => v.endsWith('/'), 'must end with "/" (ASMX namespaces do, and clients were generated against it)')
    .default('http://tempuri.org/'),
  PROFILE: z.enum(PROFILE_NAMES, { message: `must be one of ${PROFILE_NAMES.join(', ')}` }).optional(),
  SERVICE_NAME: serviceName.default('Authentication'),
  WSDL_BINDING_NAME: serviceName.optional(),
  WSDL_PORT_TYPE_NAME: serviceName.optional(),
  SERVICE_DOCUMENTATION: documentation.optional(),
  OPERATION_DOCUMENTATION: operationDocumentation.optional(),
  OPERATIONS: operationList.prefault(DEFAULT_OPERATIONS),
  AUTHENTICATION_TOKEN_PARAMETER: bool.default(true),
  BASE_PATH: z
    .string()
    .trim()
    .regex(/^(\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)*\/?$/, 'must be a URL path such as /webservices')
    .transform((v) => v.replace(/\/+$/, ''))
    .default(''),
  PUBLIC_URL: absoluteHttpUrl.transform((v) => v.replace(/\/+$/, '')).optional(),
  ALLOWED_HOSTS: hostPatterns.optional(),
  TRUST_PROXY: trustedProxies.default(false),
  // A year, as browsers' preload lists ask at least; 0 sends none.
  HSTS_MAX_AGE: durationOrOff.default(365 * 86400),
  RESULT_FORMAT: z.enum(RESULT_FORMATS, { message: `must be one of ${RESULT_FORMATS.join(', ')}` }).default('ibridge'),
  JSON_FIELDS: fieldList(JSON_FIELD_NAMES, 'status,contactid,pa_token,attr:account')
    .refine((fields) => fields.some((field) => field.kind === 'known' && field.name === 'status'), 'must include status (every result has one)')
    .prefault(DEFAULT_JSON_FIELDS),
  IBRIDGE_USER_ATTRIBUTES: fieldList(IBRIDGE_ATTRIBUTE_NAMES, 'CONTACT_NUMBER,ROLES,attr:MEMBER_TYPE', IBRIDGE_CORE_ATTRIBUTES).optional(),
  MEMBER_ID_FORMAT: z.enum(MEMBER_ID_FORMATS, { message: `must be one of ${MEMBER_ID_FORMATS.join(', ')}` }).default('any'),
  SESSION_TOKEN_FORMAT: z.enum(SESSION_TOKEN_FORMATS, { message: `must be one of ${SESSION_TOKEN_FORMATS.join(', ')}` }).default('opaque'),
  MAX_BODY_BYTES: integer(1024, 16 * 1024 * 1024).default(64 * 1024),
  LOG_LEVEL: z.enum(['error', 'warn', 'info', 'debug', 'silent']).default('info'),
  LOG_FORMAT: z.enum(LOG_FORMATS, { message: `must be one of ${LOG_FORMATS.join(', ')}` }).default('auto'),
  // no-color.org: any value turns colour off (an empty one counts as unset, as for every setting).
  NO_COLOR: z.string().optional(),
  SOAP11_ENABLED: bool.default(true),
  SOAP12_ENABLED: bool.default(true),
  HTTP_GET_ENABLED: bool.default(true),
  HTTP_POST_ENABLED: bool.default(true),
  SESSION_ABSOLUTE_TIMEOUT: duration.default(12 * 3600),
  SESSION_IDLE_TIMEOUT: duration.default(30 * 60),
  SESSION_SLIDING: bool.default(true),
  LOGIN_PATH: urlPath.default('/Login'),
  LOGOUT_PATH: urlPath.default('/Logout'),
  ACCOUNT_PATH: urlPath.default('/Account'),
  MFA: z.enum(MFA_POLICIES, { message: `must be one of ${MFA_POLICIES.join(', ')}` }).default('optional'),
  DEFAULT_RETURN_PATH: urlPath.optional(),
  COOKIE_DOMAIN: z
    .string()
    .trim()
    .regex(/^\.?([A-Za-z0-9-]{1,63}\.)*[A-Za-z0-9-]{1,63}$/, 'must be a domain such as .example.org')
    .optional(),
  WEBAUTHN_RP_ID: rpIdSetting.optional(),
  LOGIN_COOKIE_NAME: cookieName.default('.ASPXAUTH'),
  TOKEN_COOKIE_NAME: cookieName.optional(),
  COOKIE_SECURE: bool.default(true),
  // The membership site's web.config: <machineKey> and <forms> (docs/imis.md). System.Web's defaults.
  MACHINE_KEY_VALIDATION_KEY: machineKeyHex.optional(),
  MACHINE_KEY_DECRYPTION_KEY: machineKeyHex.optional(),
  MACHINE_KEY_VALIDATION: z.enum(MACHINE_KEY_VALIDATIONS, { message: `must be one of ${MACHINE_KEY_VALIDATIONS.join(', ')}` }).default('HMACSHA256'),
  MACHINE_KEY_DECRYPTION: z.enum(MACHINE_KEY_DECRYPTIONS, { message: `must be one of ${MACHINE_KEY_DECRYPTIONS.join(', ')}` }).default('AES'),
  MACHINE_KEY_COMPATIBILITY: z
    .enum(MACHINE_KEY_COMPATIBILITIES, { message: `must be one of ${MACHINE_KEY_COMPATIBILITIES.join(', ')}` })
    .default('Framework20SP1'),
  FORMS_COOKIE_NAME: cookieName.default('.ASPXAUTH'),
  // Minutes, as <forms timeout>; at most a year.
  FORMS_TIMEOUT: integer(1, 525_600).default(30),
  // <forms slidingExpiration>: the pages renew a ticket issued here once half its life has passed.
  FORMS_SLIDING: bool.default(true),
  FORMS_UNKNOWN_MEMBER: z.enum(FORMS_UNKNOWN_MEMBER_POLICIES, { message: `must be one of ${FORMS_UNKNOWN_MEMBER_POLICIES.join(', ')}` }).default('refuse'),
  ORGANIZATION_NAME: z.string().trim().min(1).max(120).optional(),
  LOGO_URL: absoluteHttpUrl.or(urlPath).optional(),
  ACCENT_COLOR: z
    .string()
    .trim()
    .regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'must be a hex colour such as #0b5cad')
    .default('#0b5cad'),
  TEMPLATE_DIR: z.string().trim().min(1).optional(),
  SUPPORT_URL: webPageUrl.optional(),
  SUPPORT_EMAIL: bareMailAddress.optional(),
  SMTP_URL: smtpUrl.optional(),
  MAIL_FROM: mailAddress.optional(),
  MAIL_REPLY_TO: mailAddress.optional(),
  MAIL_LOG: bool.default(false),
  SIGNIN_MAX_FAILURES_PER_ACCOUNT: integer(1, 1000).default(5),
  SIGNIN_MAX_FAILURES_PER_ADDRESS: integer(1, 100000).default(20),
  SIGNIN_FAILURE_WINDOW: duration.default(15 * 60),
  SIGNIN_LOCKOUT: duration.default(15 * 60),
  // Long enough to find the mail, short enough that a link forgotten in a mailbox soon stops working.
  RECOVERY_TOKEN_TTL: durationAtMost(86400, '1d')
    .refine((seconds) => seconds >= 60, 'must be at least 1m')
    .default(30 * 60),
  CALLER_MAX_FAILURES_PER_ADDRESS: integer(1, 100000).default(20),
  CALLER_FAILURE_WINDOW: duration.default(15 * 60),
  CALLER_LOCKOUT: duration.default(15 * 60),
  // At most one second, so that a revocation anywhere reaches every instance within one second.
  CACHE_TTL_MS: integer(0, 1000).default(1000),
  SECRET_KEY: z
    .string()
    .trim()
    .transform((v, ctx) => {
      // Strict forms only: Buffer.from(…, 'base64') skips stray characters and would take a sentence as a key.
      const key = /^[0-9a-f]{64}$/i.test(v) ? Buffer.from(v, 'hex') : /^[A-Za-z0-9+/]{43}=$/.test(v) ? Buffer.from(v, 'base64') : null;
      if (key?.length !== 32) {
        ctx.addIssue({ code: 'custom', message: 'must be 32 bytes, as 64 hex digits or base64 (openssl rand -base64 32)' });
        return z.NEVER;
      }
      return key;
    })
    .optional(),
  METRICS_ENABLED: bool.default(true),
  METRICS_PORT: integer(0, 65535).optional(),
  SHUTDOWN_TIMEOUT: durationAtMost(3600, '1h').default(10),
  PURGE_INTERVAL: durationAtMost(86400, '1d').default(5 * 60),
  SESSION_RETENTION: duration.default(7 * 86400),
  // Whole days: how long support can look back; ten years at most, which no deployment keeps the rows of.
  EVENTS_RETENTION_DAYS: integer(1, 3650).default(90),
  EVENTS_ENABLED: bool.default(true),
  OIDC_TOKEN_LIFETIME: durationAtMost(86400, '1d').default(600),
  HEADERS_TIMEOUT: durationAtMost(3600, '1h').default(DEFAULT_SERVER_TIMEOUTS.headersTimeoutSeconds),
  REQUEST_TIMEOUT: durationAtMost(3600, '1h').default(DEFAULT_SERVER_TIMEOUTS.requestTimeoutSeconds),
  KEEP_ALIVE_TIMEOUT: durationAtMost(3600, '1h').default(DEFAULT_SERVER_TIMEOUTS.keepAliveTimeoutSeconds),
});

/** The settings as the environment and CONFIG_FILE give them: text, by variable name. */
export type Environment = Record<string, string | undefined>;

/** The settings once parsed and checked. */
export type ParsedSettings = z.output<typeof schema>;

