import type { SamlKeyRow, Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import type { EventService } from '../events.js';
import type { Secrets } from '../secrets.js';
import { ShortLivedCache } from '../short-lived-cache.js';
import { SamlKeyService } from './keys.js';
import { SamlSessions } from './participants.js';
import { SamlRequests } from './requests.js';
import { SamlSpService } from './sps.js';

/** What the SAML identity provider (src/saml/) and the admin CLI use of the service; it reads no SAML XML. */
export interface SamlServices {
  sps: SamlSpService;
  keys: SamlKeyService;
  sessions: SamlSessions;
  requests: SamlRequests;
}

export type { SamlKeyInfo, SamlKeyState, SamlPublishedKey, SamlSigningKey } from './keys.js';
export type { SamlParticipant } from './participants.js';
export type { SamlPendingRequest, SamlRequestInput, SamlRequestKind } from './requests.js';
export {
  chosenSettings,
  DEFAULT_SAML_ATTRIBUTES,
  SAML_MEMBER_FIELDS,
  SAML_NAME_ID_FORMATS,
  SAML_SIGNED,
  samlAttribute,
  samlSpSettings,
  type SamlAttribute,
  type SamlMemberField,
  type SamlNameIdFormat,
  type SamlSigned,
  type SamlSpChoices,
  type SamlSpMetadataFacts,
  type SamlSpSettings,
} from './settings.js';
export type { SamlSp, SamlSpInput } from './sps.js';

export function createSamlServices(options: { store: Store; secrets: Secrets; clock: Clock; cacheTtlMs: number; idpHost: string; events: EventService }): SamlServices {
  const { store, secrets, clock } = options;
  return {
    sps: new SamlSpService(store, clock, new ShortLivedCache<boolean>(options.cacheTtlMs), options.events),
    keys: new SamlKeyService(store, secrets, clock, options.idpHost, new ShortLivedCache<SamlKeyRow[]>(options.cacheTtlMs)),
    sessions: new SamlSessions(store),
    requests: new SamlRequests(store, secrets, clock),
  };
}
