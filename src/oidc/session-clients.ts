import type { Services } from '../service/index.js';
import type { StoredSession } from './member-logout.js';

/**
 * The OpenID clients a member session reached: those its OpenID sessions signed the member in to (each session's
 * authorizations, as the provider keeps them), by their registered names, for the staff console's member page.
 */
export async function clientsOfSession(services: Services, memberSessionId: string): Promise<string[]> {
  const { oidc } = services;
  const names = new Set<string>();
  for (const link of await oidc.sessions.ofSession(memberSessionId)) {
    const session = (await oidc.records.findByUid('Session', link.uid)) as StoredSession | undefined;
    for (const clientId of Object.keys(session?.authorizations ?? {})) names.add((await oidc.clients.find(clientId))?.name ?? clientId);
  }
  return [...names];
}
