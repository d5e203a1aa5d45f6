import { isIP } from 'node:net';
import { z } from 'zod';

/** WEBAUTHN_RP_ID: a domain name; browsers refuse passkeys on an IP address, so one is refused here, at start-up. */
/** Whether the host is an IP address (v4, v6 with or without its brackets). */
export const isAddress = (v: string): boolean => isIP(v.replace(/^\[|\]$/g, '')) !== 0;

export const rpIdSetting = z
  .string()
  .trim()
  .toLowerCase()
  .refine((v) => !isAddress(v), 'must be a domain name, not an IP address: browsers refuse passkeys on an IP address (use localhost to try them on one machine)')
  .refine((v) => isAddress(v) || /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(v), 'must be a domain name such as example.org');

/** Whether `host` is `domain` or a name under it: the hosts a relying-party id may stand for. */
export function isUnderDomain(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

/**
 * The passkeys' relying-party id the settings name: WEBAUTHN_RP_ID, else COOKIE_DOMAIN (the registrable domain
 * the member sites share), else PUBLIC_URL's host; undefined leaves it to each request's host. None of them is an
 * IP address: one derived from an IP address is no id, and the pages offer no passkeys there.
 */
export function passkeyRpId(given: { rpId: string | undefined; cookieDomain: string | undefined; publicUrl: string | undefined }): string | undefined {
  const derived = given.rpId ?? given.cookieDomain?.replace(/^\./, '').toLowerCase() ?? (given.publicUrl === undefined ? undefined : new URL(given.publicUrl).hostname);
  return derived === undefined || isAddress(derived) ? undefined : derived;
}

/**
 * WEBAUTHN_RP_ID must be the host of every origin the pages are served at, or a domain they are under: PUBLIC_URL's
 * host and each of ALLOWED_HOSTS (a `*.` pattern's domain; `*` names no host to check).
 */
export function passkeyProblems(given: { rpId: string | undefined; publicUrl: string | undefined; allowedHosts: readonly string[] | undefined }): string[] {
  const { rpId } = given;
  if (rpId === undefined) return [];
  const hosts = [...(given.publicUrl === undefined ? [] : [new URL(given.publicUrl).hostname]), ...(given.allowedHosts ?? []).filter((host) => host !== '*').map((host) => host.replace(/^\*\./, ''))];
  return hosts
    .filter((host) => !isUnderDomain(host, rpId))
    .map((host) => `WEBAUTHN_RP_ID: ${host} (PUBLIC_URL or ALLOWED_HOSTS) is not ${rpId} nor under it: passkeys would not work there`);
}
