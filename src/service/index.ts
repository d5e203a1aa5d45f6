import type { Mailer } from '../mail/mail.js';
import type { CallerRow, Store } from '../store/store.js';
import { AccountService } from './account.js';
import { AuthenticationService } from './authentication.js';
import { CallerService } from './callers.js';
import { EventWriter, type EventWriteOutcomes } from './event-writer.js';
import { EventService } from './events.js';
import { systemClock, type Clock } from './clock.js';
import { FormsTickets, type TicketHolder } from './forms-tickets.js';
import { MemberNotices } from './member-notices.js';
import { MemberService } from './members.js';
import { createOidcServices, type OidcServices } from './oidc/index.js';
import { ProvisioningClientService } from './provisioning-clients.js';
import { ProvisioningService } from './provisioning.js';
import { RoleService } from './roles.js';
import { RecoveryService } from './recovery.js';
import { PasskeyService } from './passkeys.js';
import { createSamlServices, type SamlServices } from './saml/index.js';
import { ReturnUrlPolicy } from './return-urls.js';
import { SecondFactorService } from './second-factor.js';
import { Secrets } from './secrets.js';
import type { ServiceSettings } from './settings.js';
import { SessionService, type FoundSession, type SessionEvents } from './sessions.js';
import { ShortLivedCache, type CacheLookups } from './short-lived-cache.js';
import { SignInService } from './signin.js';
import { StaffService } from './staff.js';
import { callerAddressThrottle, provisioningAddressThrottle, SignInThrottle } from './throttle.js';

export interface Services {
  callers: CallerService;
  members: MemberService;
  sessions: SessionService;
  secondFactor: SecondFactorService;
  account: AccountService;
  authentication: AuthenticationService;
  signin: SignInService;
  returnUrls: ReturnUrlPolicy;
  /** Password recovery by email: links sent by mail (on only with a mailer), and support's links. */
  recovery: RecoveryService;
  /** Members as SCIM provisioning reads and writes them. */
  provisioning: ProvisioningService;
  /** The association's roles as provisioning clients write them (SCIM Groups). */
  roles: RoleService;
  /** The SCIM provisioning clients and their bearer tokens. */
  provisioners: ProvisioningClientService;
  /** The OpenID provider's clients, signing keys, records and sessions. */
  oidc: OidcServices;
  /** The SAML identity provider's service providers, signing keys, session participants and pending requests. */
  saml: SamlServices;
  /** The security-relevant events: recorded off the request path, listed, exported. */
  events: EventService;
  /** Who may use the staff console, and as what (support, admin). */
  staff: StaffService;
  /** Members' passkeys: added on the account page, signing in on the sign-in page. */
  passkeys: PasskeyService;
  /** How often each call-path cache (CACHE_TTL_MS) answered, and how often it went to the store. */
  cacheLookups(): Record<CallPathCache, CacheLookups>;
}

/** The caches on the call path: security passwords, sessions, and caller addresses' throttle states. */
export type CallPathCache = 'callers' | 'sessions' | 'caller_throttle';

export type { EndedSessions, SessionEvents } from './sessions.js';
export type { FormsCookieSettings } from './forms-tickets.js';
export type { ServiceSettings, SigninSettings } from './settings.js';
export type { CacheLookups } from './short-lived-cache.js';
/** The records the services hand out, as the store keeps them. */
export type { ElementField, MemberValueList, MemberAttributes, MemberProfile, ProfileValue, MemberFilter, SearchFilter, MemberPage, MemberRow, PasskeyRow, MemberSearch, MemberSearchField, MemberSearchOperator, RoleFilter, RolePage, RoleRow, RoleSearchField, SessionRow, SessionThrough } from '../store/store.js';
export type { RoleFields, RoleWrite } from './roles.js';
/** The store cannot be written or opened (a full disk, a read-only or locked database): every caller's to tell apart. */
export { STORE_UNAVAILABLE_REASONS, StoreUnavailableError, type StoreUnavailableReason } from '../store/unavailable.js';
export type { EventWriteOutcomes } from './event-writer.js';
export { CLI_ACTOR, DEFAULT_EVENT_LIMIT, EVENT_ACTOR_KINDS, EVENT_TYPES, MAX_EVENT_LIMIT, type EventActor, type EventContext, type EventFilter, type EventRecord, type EventType, type NewEvent } from './events.js';
export { holdsValidText, INVALID_TEXT, isValidText } from './valid-text.js';

/**
 * Wires the services over one store, with the settings they are told; the entry points (server, CLI, tests)
 * call this once. `events` hears of sessions created and revoked (the server counts them in its metrics).
 */
export function createServices(options: {
  store: Store;
  secretKey: Buffer;
  settings: ServiceSettings;
  clock?: Clock;
  events?: SessionEvents;
  /** Sends the members' mail (SMTP_URL); without it, no mail is sent and recovery by email is off. */
  mailer?: Mailer | undefined;
  /** Hears what became of the recorded events (written, or lost: the store could not take them). */
  eventWrites?: EventWriteOutcomes | undefined;
}): Services {
  const { store, settings } = options;
  const clock = options.clock ?? systemClock;
  const secrets = new Secrets(options.secretKey);
  const events = new EventService(store, clock, new EventWriter(store, options.eventWrites), settings.recordEvents);
  const caches = {
    callers: new ShortLivedCache<CallerRow>(settings.cacheTtlMs),
    sessions: new ShortLivedCache<FoundSession>(settings.cacheTtlMs),
    caller_throttle: new ShortLivedCache<{ lockedUntil: number | null }>(settings.cacheTtlMs),
  };
  const callers = new CallerService(store, secrets, clock, caches.callers, events);
  const tickets = settings.formsCookie && new FormsTickets(store, settings.formsCookie, clock, new ShortLivedCache<TicketHolder>(settings.cacheTtlMs));
  const sessions = new SessionService(store, secrets, settings.session, clock, caches.sessions, events, options.events, tickets);
  const throttle = callerAddressThrottle(store, settings.callerThrottle, caches.caller_throttle);
  const signinThrottle = new SignInThrottle(store, settings.signin.throttle);
  const notices = new MemberNotices(options.mailer, clock);
  const secondFactor = new SecondFactorService(store, secrets, clock, settings.signin.totpIssuer, notices, events);
  const signIn = new SignInService(store, sessions, signinThrottle, secrets, clock, secondFactor, settings.signin.mfa, events, tickets);
  const members = new MemberService(store, clock, sessions, settings.memberIdFormat, notices, events);
  const provisioners = new ProvisioningClientService(
    store,
    secrets,
    clock,
    provisioningAddressThrottle(store, settings.callerThrottle, new ShortLivedCache(settings.cacheTtlMs)),
    { tokens: new ShortLivedCache(settings.cacheTtlMs), exists: new ShortLivedCache(settings.cacheTtlMs) },
    events,
  );
  return {
    callers,
    members,
    sessions,
    secondFactor,
    account: new AccountService(store, members, sessions, secondFactor, signinThrottle, clock, events),
    authentication: new AuthenticationService(store, callers, sessions, signIn, throttle, clock, events, tickets),
    signin: signIn,
    returnUrls: new ReturnUrlPolicy(store, settings.signin.defaultReturnPath),
    recovery: new RecoveryService(
      store,
      members,
      sessions,
      secrets,
      new SignInThrottle(store, settings.signin.throttle, { account: 'recovery-account', address: 'recovery-address' }),
      notices,
      clock,
      settings.signin.recoveryTokenTtlSeconds,
      events,
    ),
    provisioning: new ProvisioningService(store, clock, sessions, settings.memberIdFormat, events),
    roles: new RoleService(store, clock, sessions, settings.memberIdFormat, events),
    provisioners,
    oidc: createOidcServices({ store, secrets, clock, sessions, cacheTtlMs: settings.cacheTtlMs, events }),
    saml: createSamlServices({ store, secrets, clock, cacheTtlMs: settings.cacheTtlMs, idpHost: settings.samlIdpHost, events }),
    events,
    staff: new StaffService(store, clock, signIn, events),
    passkeys: new PasskeyService(store, sessions, signinThrottle, secrets, clock, events, notices, settings.signin.totpIssuer),
    cacheLookups: () => ({ callers: caches.callers.lookups, sessions: caches.sessions.lookups, caller_throttle: caches.caller_throttle.lookups }),
  };
}
