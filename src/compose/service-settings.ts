import type { Config } from '../config/config.js';
import type { ServiceSettings } from '../service/settings.js';

/** What authenticator apps show next to the account when ORGANIZATION_NAME is unset: they need some name. */
const UNNAMED_TOTP_ISSUER = 'Member sign-in';

/** The SAML certificates' subject when PUBLIC_URL is unset: the identity provider is off then, but the CLI may make keys. */
const UNNAMED_SAML_HOST = 'localhost';

/**
 * What the services are told of the configuration. A module of its own, so that the admin CLI, which builds
 * services over the store without the rest of an instance, maps the settings as the server does.
 */
export function serviceSettings(config: Config): ServiceSettings {
  const { signin } = config;
  return {
    session: config.session,
    memberIdFormat: config.memberIdFormat,
    cacheTtlMs: config.cacheTtlMs,
    callerThrottle: config.callerThrottle,
    signin: {
      mfa: signin.mfa,
      defaultReturnPath: signin.defaultReturnPath,
      throttle: signin.throttle,
      totpIssuer: signin.branding.organizationName ?? UNNAMED_TOTP_ISSUER,
      recoveryTokenTtlSeconds: signin.recoveryTokenTtlSeconds,
    },
    formsCookie: config.formsCookie && {
      ...config.formsCookie,
      // A sign-out here is remembered as long as ended sessions are kept: no older ticket may answer.
      maxTicketAgeSeconds: config.purge.sessionRetentionSeconds,
    },
    recordEvents: config.eventsEnabled,
    samlIdpHost: config.publicUrl === undefined ? UNNAMED_SAML_HOST : new URL(config.publicUrl).hostname,
  };
}
