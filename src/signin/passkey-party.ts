import type { Config } from '../config/config.js';
import { isAddress, isUnderDomain } from '../config/passkey-settings.js';
import type { RelyingParty } from '../service/passkeys.js';

/**
 * The relying party of passkeys for a page served at `ownOrigin` (the service's origin as the browser reached it,
 * which the host policy has checked): the configured id (WEBAUTHN_RP_ID, COOKIE_DOMAIN, PUBLIC_URL's host), else
 * the origin's host, and that origin as the only one answers may come from. Undefined where browsers would refuse
 * passkeys: an IP address, or a host the configured id does not cover; the pages offer none there.
 */
export function relyingParty(config: Config, ownOrigin: string): RelyingParty | undefined {
  const host = new URL(ownOrigin).hostname;
  const id = config.signin.passkeyRpId ?? host;
  if (isAddress(host) || !isUnderDomain(host, id)) return undefined;
  return { id, origin: ownOrigin };
}
