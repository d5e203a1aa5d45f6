import type { OperationName } from '../service/wsdl-types.js';
import type { FormsCookieConfig } from './forms-cookie-settings.js';
import type { MailConfig } from './mail-settings.js';
import type { ProfileName } from './profiles.js';
import type { ProxyTrust } from './proxy-trust.js';
import type { ChosenField, IbridgeAttributeName, JsonFieldName } from './result-fields.js';
import type { Setting } from './settings.js';

/** The values of the settings that are a choice of words. */
export const RESULT_FORMATS = ['ibridge', 'json', 'plain'] as const;
export type ResultFormat = (typeof RESULT_FORMATS)[number];

export const MEMBER_ID_FORMATS = ['any', 'guid'] as const;
export const MFA_POLICIES = ['optional', 'required'] as const;
export const SESSION_TOKEN_FORMATS = ['opaque', 'guid'] as const;
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;

/** The validated, frozen settings an instance runs with (loadConfig), grouped by what they are for. */
export interface Config {
  /** PROFILE: the vendor whose partner clients this deployment serves, or undefined. */
  readonly profile: ProfileName | undefined;
  /** Every setting's effective value (secrets masked) and where it came from, for the start-up log and `config show`. */
  readonly settings: readonly Setting[];
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  readonly soapNamespace: string;
  /** The service's name as people read it (help pages); spaces allowed. */
  readonly serviceName: string;
  /** The names the WSDL gives the service, the bindings and ports, and the portTypes, encoded as ASMX does. */
  readonly wsdlNames: { readonly service: string; readonly binding: string; readonly portType: string };
  /** The operations the endpoint offers (OPERATIONS), in WSDL order. */
  readonly operations: readonly OperationName[];
  /**
   * Each operation's parameters as the endpoint declares them, in WSDL order: the WSDL's, without
   * authenticationToken when AUTHENTICATION_TOKEN_PARAMETER is off (clients generated before it existed, and
   * CRM4M's, send three parameters, and the HTTP bindings refuse a call that lacks a declared one).
   */
  readonly operationParameters: Readonly<Record<OperationName, readonly string[]>>;
  /** wsdl:documentation of the service and of operations, also shown on the help pages. */
  readonly documentation: { readonly service: string | undefined; readonly operations: Readonly<Partial<Record<OperationName, string>>> };
  /** '' or a path such as '/webservices', without a trailing slash. */
  readonly basePath: string;
  /** Public base URL the endpoint is reached at, without a trailing slash; overrides Host and X-Forwarded-*. */
  readonly publicUrl: string | undefined;
  /**
   * The host names requests may name (ALLOWED_HOSTS): exact names, `*.` followed by a domain for its
   * subdomains, or `*` for any; undefined when not set.
   */
  readonly allowedHosts: readonly string[] | undefined;
  /** Whose X-Forwarded-* headers are believed (TRUST_PROXY). */
  readonly trustProxy: ProxyTrust;
  /** Strict-Transport-Security's max-age on responses to requests that came over HTTPS (HSTS_MAX_AGE); 0: none. */
  readonly hstsMaxAgeSeconds: number;
  readonly resultFormat: ResultFormat;
  /** The fields of a json result (JSON_FIELDS), in order. */
  readonly jsonFields: readonly ChosenField<JsonFieldName>[];
  /** Member attributes an ibridge User element adds (IBRIDGE_USER_ATTRIBUTES), in order. */
  readonly ibridgeAttributes: readonly ChosenField<IbridgeAttributeName>[];
  /** MEMBER_ID_FORMAT: guid makes new member ids GUIDs (CRM4M's clients type them as UUIDs). */
  readonly memberIdFormat: (typeof MEMBER_ID_FORMATS)[number];
  readonly maxBodyBytes: number;
  readonly logLevel: string;
  /** LOG_FORMAT: auto (readable lines on a terminal, JSON lines otherwise), json or pretty. */
  readonly logFormat: (typeof LOG_FORMATS)[number];
  /** NO_COLOR is set: readable lines are never coloured. */
  readonly noColor: boolean;
  readonly bindings: { readonly soap11: boolean; readonly soap12: boolean; readonly httpGet: boolean; readonly httpPost: boolean };
  readonly session: {
    readonly absoluteTimeoutSeconds: number;
    readonly idleTimeoutSeconds: number;
    readonly slidingIdle: boolean;
    /** SESSION_TOKEN_FORMAT: guid issues tokens that are GUIDs. */
    readonly tokenFormat: (typeof SESSION_TOKEN_FORMATS)[number];
  };
  /** 32-byte key that hashes and encrypts session secrets and caller passwords; undefined means the key file in dataDir. */
  readonly secretKey: Buffer | undefined;
  readonly signin: SigninConfig;
  /**
   * The membership site's Forms cookie (MACHINE_KEY_*, FORMS_*), when both its keys are set: the login cookie is
   * then its ticket, named FORMS_COOKIE_NAME (signin.cookieName), and AuthenticateCookie reads the site's own.
   */
  readonly formsCookie: FormsCookieConfig | undefined;
  /** SMTP_URL, MAIL_FROM and MAIL_REPLY_TO: the members' mail, sent when SMTP_URL is set; undefined otherwise. */
  readonly mail: MailConfig | undefined;
  /** MAIL_LOG: mail is written to the log, not sent (development only; refused with SMTP_URL or a real address). */
  readonly mailLog: boolean;
  /** Failed security passwords per client address (CALLER_*), counted in the store like the sign-in throttle. */
  readonly callerThrottle: CallerThrottleConfig;
  /**
   * How long callers, sessions and caller throttle states read on the call path may be reused (0 to 1000 ms):
   * a change made elsewhere (another instance, the admin CLI) is seen within this time.
   */
  readonly cacheTtlMs: number;
  /** Deadlines the HTTP server enforces on every connection, so that slow clients cannot hold the process. */
  readonly server: ServerTimeouts;
  /** Prometheus metrics; port undefined serves /metrics on the main port, a number on a listener of its own. */
  readonly metrics: { readonly enabled: boolean; readonly port: number | undefined };
  /** How long a stop waits for requests in flight before cutting their connections. */
  readonly shutdownTimeoutSeconds: number;
  /** EVENTS_ENABLED: whether the services record events; false records none (the history kept stays readable). */
  readonly eventsEnabled: boolean;
  /** The background purge of ended sessions, stale throttle records, old events. */
  readonly purge: {
    readonly intervalSeconds: number;
    /** How long ended sessions stay visible (sessions list --all) before the purge deletes them. */
    readonly sessionRetentionSeconds: number;
    /** EVENTS_RETENTION_DAYS: how long the events are kept before the purge deletes them. */
    readonly eventRetentionDays: number;
  };
  /** The OpenID provider (docs/oidc.md): how long its ID and access tokens live. */
  readonly oidc: { readonly tokenLifetimeSeconds: number };
}

export interface SigninConfig {
  /** Absolute paths of the sign-in, sign-out and account pages (not under basePath). */
  readonly loginPath: string;
  readonly logoutPath: string;
  readonly accountPath: string;
  /** Password recovery's pages, below LOGIN_PATH (so that the sign-in form's CSRF cookie reaches them): ask for a link, and choose a new password with it. */
  readonly recoveryPaths: { readonly request: string; readonly reset: string };
  /** MFA: members choose whether to have a second factor (optional), or must have one (required). */
  readonly mfa: (typeof MFA_POLICIES)[number];
  /** Where a missing or refused return address leads: a path on this service. */
  readonly defaultReturnPath: string;
  /** Domain attribute of the login cookie, e.g. '.example.org'; undefined gives a host-only cookie. */
  readonly cookieDomain: string | undefined;
  /**
   * The passkeys' relying-party id (src/config/passkey-settings.ts): WEBAUTHN_RP_ID, COOKIE_DOMAIN or PUBLIC_URL's
   * host; undefined: each request's host (where that is a domain name, not an IP address).
   */
  readonly passkeyRpId: string | undefined;
  /** LOGIN_COOKIE_NAME, or FORMS_COOKIE_NAME when the site's keys are set (the login cookie is its Forms ticket then). */
  readonly cookieName: string;
  /** TOKEN_COOKIE_NAME: also set the session token in this cookie on sign-in (ISGweb's `Token`), or undefined. */
  readonly tokenCookieName: string | undefined;
  readonly cookieSecure: boolean;
  readonly branding: {
    readonly organizationName: string | undefined;
    readonly logoUrl: string | undefined;
    readonly accentColor: string;
    /** Templates here replace the built-in ones of the same name. */
    readonly templateDir: string | undefined;
  };
  /** RECOVERY_TOKEN_TTL: how long a password recovery link works. */
  readonly recoveryTokenTtlSeconds: number;
  /** SUPPORT_URL and SUPPORT_EMAIL: whom the pages tell a member to ask for help (a forgotten password without mail). */
  readonly support: {
    readonly url: string | undefined;
    readonly email: string | undefined;
  };
  readonly throttle: {
    readonly accountFailures: number;
    readonly addressFailures: number;
    readonly windowSeconds: number;
    readonly lockoutSeconds: number;
  };
}

export interface CallerThrottleConfig {
  /** Failed security passwords from one address, within the window, that lock that address. */
  readonly maxFailures: number;
  readonly windowSeconds: number;
  readonly lockoutSeconds: number;
}

export interface ServerTimeouts {
  /** The request line and headers must have arrived this long after the request began (408 otherwise). */
  readonly headersTimeoutSeconds: number;
  /** The whole request, body included, must have arrived this long after it began. */
  readonly requestTimeoutSeconds: number;
  /** An idle keep-alive connection is closed after this long. */
  readonly keepAliveTimeoutSeconds: number;
}

/** HEADERS_TIMEOUT, REQUEST_TIMEOUT and KEEP_ALIVE_TIMEOUT when they are not set. */
export const DEFAULT_SERVER_TIMEOUTS: ServerTimeouts = Object.freeze({
  headersTimeoutSeconds: 10,
  requestTimeoutSeconds: 30,
  keepAliveTimeoutSeconds: 15,
});
