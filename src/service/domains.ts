import { isIP } from 'node:net';

/**
 * Cookie domains compare case-insensitively and without a leading dot, as browsers treat them. An IPv6 literal
 * loses its brackets (a URL's host `[::1]` and a partner's `::1` name the same host).
 */
export function normalizeCookieDomain(domain: string): string {
  return domain.trim().replace(/^\.+/, '').replace(/\.$/, '').replace(/^\[(.*)\]$/, '$1').toLowerCase();
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * A domain a session may be issued for: a DNS name, or an IP address. An address (like `localhost`) can carry
 * only a host-only cookie, which is what the sign-in page sets when COOKIE_DOMAIN is not set; the session is
 * still bound to it, so AuthenticateCookie answers only for that host.
 */
export function isValidCookieDomain(normalized: string): boolean {
  if (isIP(normalized) !== 0) return true;
  return normalized.length > 0 && normalized.length <= 253 && normalized.split('.').every((label) => LABEL.test(label));
}
