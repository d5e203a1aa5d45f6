import type { Config } from '../config/config.js';
import type { Services } from '../service/index.js';

/**
 * Whether the OpenID provider answers, and if not why (docs/oidc.md: it answers while PUBLIC_URL is set and a
 * client is registered), for the start-up log: its paths are 404 while it is off, which says nothing of why.
 */
export async function providerState(config: Config, services: Services): Promise<Record<string, string>> {
  if (config.publicUrl === undefined) return { state: 'off', reason: 'PUBLIC_URL is not set (it is the issuer)' };
  if (!(await services.oidc.clients.any())) return { state: 'off', reason: 'no client is registered (oidc-clients add)' };
  return { state: 'on', issuer: config.publicUrl };
}
