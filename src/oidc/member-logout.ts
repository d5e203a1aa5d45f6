import type Provider from 'oidc-provider';
import type { Logger } from '../log/logger.js';
import type { EndedSessions, Services } from '../service/index.js';
import { logoutToken, type BackchannelLogouts } from './backchannel.js';

/** What a stored OpenID session records of its clients: each one's grant and the sid its tokens carry. */
export interface StoredSession {
  jti?: string;
  accountId?: string;
  authorizations?: Record<string, { grantId?: string; sid?: string }>;
}

/**
 * Ends the OpenID sessions of member sessions that ended (a sign-out on the page, DeleteUserSession, "sign out
 * everywhere", a password change): each client's grant is revoked with its refresh tokens, the clients that
 * registered a back-channel logout URI are told, and the OpenID session is deleted.
 */
export async function endOidcSessions(
  ended: EndedSessions,
  deps: { services: Services; provider: () => Promise<Provider>; backchannel: BackchannelLogouts; logger: Logger },
): Promise<void> {
  const { oidc } = deps.services;
  const links = await oidc.sessions.ofEnded(ended);
  if (links.length === 0) return;
  const provider = await deps.provider();
  for (const link of links) {
    const session = (await oidc.records.findByUid('Session', link.uid)) as StoredSession | undefined;
    const authorizations = Object.entries(session?.authorizations ?? {});
    for (const [clientId, { grantId, sid }] of authorizations) {
      if (grantId) await oidc.records.revokeGrant(grantId);
      const client = await provider.Client.find(clientId);
      if (client?.backchannelLogoutUri && session?.accountId && sid) {
        deps.backchannel.deliver(client.clientId, logoutToken(client, session.accountId, sid));
      }
    }
    if (session?.jti) await oidc.records.destroy('Session', session.jti);
    await oidc.sessions.unlink(link.uid);
    deps.logger.info('oidc session ended', { member: link.memberId, clients: authorizations.length });
  }
}
