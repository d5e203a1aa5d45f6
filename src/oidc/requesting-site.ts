import type Provider from 'oidc-provider';
import type { Services } from '../service/index.js';
import { INTERACTION_PREFIX } from './paths.js';

/** A client whose sign-in brought the member to the sign-in page, by its registered name. */
export interface RequestingClient {
  kind: 'oidc-client';
  name: string;
}

/**
 * The display name (its registered name) of the client whose authorization request a return address continues:
 * the sign-in step of that request, on the issuer's origin (src/oidc/interactions.ts sends the member to the
 * sign-in page with it). Undefined for any other address, and for a request that expired.
 */
export function requestingClient(deps: { issuer: string; basePath: string; services: Services; provider(): Promise<Provider> }): (returnUrl: string) => Promise<RequestingClient | undefined> {
  const origin = new URL(deps.issuer).origin;
  const prefix = `${deps.basePath}${INTERACTION_PREFIX}/`;
  return async (returnUrl) => {
    const url = URL.parse(returnUrl, deps.issuer);
    const uid = url?.origin === origin && url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : '';
    if (!/^[A-Za-z0-9_-]+$/.test(uid) || !(await deps.services.oidc.clients.any())) return undefined;
    const interaction = await (await deps.provider()).Interaction.find(uid);
    const clientId = interaction?.params['client_id'];
    const name = typeof clientId === 'string' ? (await deps.services.oidc.clients.find(clientId))?.name : undefined;
    return name === undefined ? undefined : { kind: 'oidc-client', name };
  };
}
