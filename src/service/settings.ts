import type { FormsCookieSettings } from './forms-tickets.js';
import type { MemberIdFormat } from './members.js';
import type { SessionPolicy } from './sessions.js';
import type { MfaPolicy } from './signin.js';
import type { CallerThrottlePolicy, SignInThrottlePolicy } from './throttle.js';

/**
 * Everything the services are told from outside. Each setting is required: its one default is the
 * configuration's (src/config), and src/compose/service-settings.ts makes these of a Config.
 */
export interface ServiceSettings {
  /** SESSION_ABSOLUTE_TIMEOUT, SESSION_IDLE_TIMEOUT, SESSION_SLIDING and SESSION_TOKEN_FORMAT. */
  readonly session: SessionPolicy;
  /** MEMBER_ID_FORMAT: what member ids may be. */
  readonly memberIdFormat: MemberIdFormat;
  /**
   * CACHE_TTL_MS: how long store answers on the call path (callers, sessions, caller throttle states) may be
   * reused; 0 reads the store on every call.
   */
  readonly cacheTtlMs: number;
  /** CALLER_MAX_FAILURES_PER_ADDRESS, CALLER_FAILURE_WINDOW and CALLER_LOCKOUT: failed security passwords per address. */
  readonly callerThrottle: CallerThrottlePolicy;
  readonly signin: SigninSettings;
  /**
   * The membership site's Forms cookie (MACHINE_KEY_*, FORMS_*), when its keys are configured: login cookies are
   * then its tickets, and AuthenticateCookie answers for the tickets the site issues. Undefined otherwise.
   */
  readonly formsCookie: FormsCookieSettings | undefined;
  /** EVENTS_ENABLED: false records no event (the benchmark measures what recording them costs). */
  readonly recordEvents: boolean;
  /** PUBLIC_URL's host: the subject of the SAML identity provider's self-signed certificates. */
  readonly samlIdpHost: string;
}

/** What the sign-in services (sign-in, second factors, return addresses) are told. */
export interface SigninSettings {
  /** MFA: whether every member must have a second factor. */
  readonly mfa: MfaPolicy;
  /** DEFAULT_RETURN_PATH: where a missing or refused return address leads. */
  readonly defaultReturnPath: string;
  /** SIGNIN_MAX_FAILURES_PER_ACCOUNT, SIGNIN_MAX_FAILURES_PER_ADDRESS, SIGNIN_FAILURE_WINDOW and SIGNIN_LOCKOUT. */
  readonly throttle: SignInThrottlePolicy;
  /** ORGANIZATION_NAME: the issuer authenticator apps show next to the account. */
  readonly totpIssuer: string;
  /** RECOVERY_TOKEN_TTL: how long a password recovery link works. */
  readonly recoveryTokenTtlSeconds: number;
}
