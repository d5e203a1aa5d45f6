/**
 * Every error the service raises, declared once with a stable code and its exact text. The ASMX-facing
 * texts are the legacy service's own: clients and their log scrapers match on them. How each is answered on
 * the wire is the bindings' business: their error catalogue has an entry for every code, or does not build.
 */
export const SERVICE_ERRORS = {
  INVALID_SECURITY_PASSWORD: 'Invalid security password',
  CALLER_THROTTLED: 'Too many failed security password attempts from this address',
  CALLER_EXISTS: 'A caller with this name already exists',
  CALLER_NOT_FOUND: 'No caller has this name',
  CALLER_ORIGIN_NOT_FOUND: 'The caller has not registered this origin',
  CALLER_PASSWORD_TOO_SHORT: 'A caller password must be at least 6 characters long',
  MEMBER_EXISTS: 'A member with this id or username already exists',
  MEMBER_NOT_FOUND: 'No member has this id',
  MEMBER_DISABLED: 'The member is disabled',
  MEMBER_CHANGED: 'The member was changed by someone else meanwhile',
  MEMBER_INVALID: 'The member record is not valid',
  MEMBER_PASSWORD_TOO_SHORT: 'A member password must be at least 8 characters long',
  MEMBER_PASSWORD_TOO_LONG: 'A member password must be at most 1024 characters long',
  MEMBER_IMPORT_INVALID: 'The member file cannot be imported',
  SESSION_NOT_FOUND: 'No live session has this id',
  DOMAIN_INVALID: 'The cookie domain is not a valid domain name',
  SECRET_KEY_MISMATCH: 'The server key is not the one this database was first used with',
  SECOND_FACTOR_ENABLED: 'The member already has a second factor: turn it off first',
  SECOND_FACTOR_NOT_PENDING: 'The member has no second factor being set up',
  PROVISIONING_CLIENT_EXISTS: 'A provisioning client with this name already exists',
  PROVISIONING_CLIENT_NOT_FOUND: 'No provisioning client has this name',
  OIDC_CLIENT_EXISTS: 'An OpenID client with this name already exists',
  OIDC_CLIENT_NOT_FOUND: 'No OpenID client has this name',
  OIDC_CLIENT_PUBLIC: 'A public OpenID client has no secret',
  OIDC_CLIENT_INVALID: 'The OpenID client cannot be registered as given',
  SAML_SP_EXISTS: 'A SAML service provider with this name or entity id already exists',
  SAML_SP_NOT_FOUND: 'No SAML service provider has this name',
  SAML_SP_INVALID: 'The SAML service provider cannot be registered as given',
  SAML_KEY_PENDING: 'A next SAML signing key is published already: activate it first',
  SAML_KEY_NOT_PENDING: 'No next SAML signing key is published: rotate first',
  STAFF_NOT_FOUND: 'This member is not staff',
} as const;

export type ServiceErrorCode = keyof typeof SERVICE_ERRORS;

export class ServiceError extends Error {
  constructor(
    readonly code: ServiceErrorCode,
    detail?: string,
  ) {
    super(detail ? `${SERVICE_ERRORS[code]}: ${detail}` : SERVICE_ERRORS[code]);
    this.name = 'ServiceError';
  }
}

/**
 * CALLER_THROTTLED: the client address is locked after too many failed security passwords. The message says
 * when to try again, in whole minutes ("…; try again in 15 minutes."); retryAfterSeconds is for Retry-After.
 */
export class CallerThrottledError extends ServiceError {
  constructor(readonly retryAfterSeconds: number) {
    super('CALLER_THROTTLED');
    this.message = `${SERVICE_ERRORS.CALLER_THROTTLED}; try again in ${waitText(retryAfterSeconds)}.`;
    this.name = 'CallerThrottledError';
  }
}

function waitText(seconds: number): string {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}
