import type { OidcKeyRow, Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import type { EventService } from '../events.js';
import type { Secrets } from '../secrets.js';
import type { SessionService } from '../sessions.js';
import { ShortLivedCache } from '../short-lived-cache.js';
import { OidcClientService } from './clients.js';
import { OidcKeyService } from './keys.js';
import { OidcRecords } from './records.js';
import { OidcSessionLinks } from './session-links.js';

/** What the OpenID provider and the admin CLI use of the service. */
export interface OidcServices {
  clients: OidcClientService;
  keys: OidcKeyService;
  records: OidcRecords;
  sessions: OidcSessionLinks;
  /** The keys the provider signs its cookies with: derived from the server key, the same on every instance. */
  cookieKeys: string[];
}

export { clientUriProblem, type IssuedOidcClient, type OidcClientInput } from './clients.js';
export type { OidcKeyInfo, SigningJwk } from './keys.js';
export type { OidcRecord } from './records.js';
export type { MemberSignIn } from './session-links.js';
export type { OidcClientRow, OidcSessionLinkRow } from '../../store/store.js';

export function createOidcServices(options: {
  store: Store;
  secrets: Secrets;
  clock: Clock;
  sessions: SessionService;
  cacheTtlMs: number;
  events: EventService;
}): OidcServices {
  const { store, secrets, clock } = options;
  return {
    clients: new OidcClientService(store, secrets, clock, new ShortLivedCache<boolean>(options.cacheTtlMs), options.events),
    keys: new OidcKeyService(store, secrets, clock, new ShortLivedCache<OidcKeyRow[]>(options.cacheTtlMs)),
    records: new OidcRecords(store, clock),
    sessions: new OidcSessionLinks(store, options.sessions, secrets, clock),
    cookieKeys: [secrets.hash('oidc-cookie-key', 'authentication-asmx')],
  };
}
