/**
 * The settings the services are told, made of the configuration: each from its own setting, with the
 * configuration's defaults, the one place defaults live.
 */
import { serviceSettings } from '../../src/compose/service-settings.js';
import { loadConfig } from '../../src/config/config.js';
import { SITE_ENV, SITE_KEY } from '../helpers/site-tickets.js';

test('each service setting comes from its setting', () => {
  const config = loadConfig({
    SESSION_ABSOLUTE_TIMEOUT: '8h',
    SESSION_IDLE_TIMEOUT: '20m',
    SESSION_SLIDING: 'false',
    SESSION_TOKEN_FORMAT: 'guid',
    MEMBER_ID_FORMAT: 'guid',
    CACHE_TTL_MS: '250',
    CALLER_MAX_FAILURES_PER_ADDRESS: '7',
    CALLER_FAILURE_WINDOW: '2m',
    CALLER_LOCKOUT: '3m',
    MFA: 'required',
    DEFAULT_RETURN_PATH: '/members',
    SIGNIN_MAX_FAILURES_PER_ACCOUNT: '4',
    SIGNIN_MAX_FAILURES_PER_ADDRESS: '40',
    SIGNIN_FAILURE_WINDOW: '5m',
    SIGNIN_LOCKOUT: '6m',
    ORGANIZATION_NAME: 'The Society',
    RECOVERY_TOKEN_TTL: '45m',
    EVENTS_ENABLED: 'false',
  });
  expect(serviceSettings(config)).toEqual({
    session: { absoluteTimeoutSeconds: 8 * 3600, idleTimeoutSeconds: 20 * 60, slidingIdle: false, tokenFormat: 'guid' },
    memberIdFormat: 'guid',
    cacheTtlMs: 250,
    callerThrottle: { maxFailures: 7, windowSeconds: 120, lockoutSeconds: 180 },
    signin: {
      mfa: 'required',
      defaultReturnPath: '/members',
      recoveryTokenTtlSeconds: 45 * 60,
      throttle: { accountFailures: 4, addressFailures: 40, windowSeconds: 300, lockoutSeconds: 360 },
      totpIssuer: 'The Society',
    },
    formsCookie: undefined,
    recordEvents: false,
    samlIdpHost: 'localhost',
  });
});

test("the site's Forms cookie, with its keys: the machine key, FORMS_TIMEOUT, FORMS_SLIDING, FORMS_UNKNOWN_MEMBER, and SESSION_RETENTION as the oldest ticket's age", () => {
  const config = loadConfig({ ...SITE_ENV, FORMS_TIMEOUT: '45', FORMS_UNKNOWN_MEMBER: 'minimal', SESSION_RETENTION: '2d' });
  expect(serviceSettings(config).formsCookie).toEqual({ machineKey: SITE_KEY, timeoutMinutes: 45, sliding: true, unknownMember: 'minimal', maxTicketAgeSeconds: 2 * 86400 });
});

test("the services' defaults are the configuration's: CACHE_TTL_MS is 1000 ms unless set", () => {
  expect(serviceSettings(loadConfig({})).cacheTtlMs).toBe(1000);
});

test('without ORGANIZATION_NAME, authenticator apps are given a name still: the pages and mails leave it out, an app cannot', () => {
  expect(serviceSettings(loadConfig({})).signin.totpIssuer).toBe('Member sign-in');
});
