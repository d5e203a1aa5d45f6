import type { CallerRow, Store } from '../store/store.js';
import { AccountService } from './account.js';
import { AuthenticationService } from './authentication.js';
import { CallerService } from './callers.js';
import { systemClock, type Clock } from './clock.js';
import { MemberService } from './members.js';
import { ReturnUrlPolicy } from './return-urls.js';
import { SecondFactorService } from './second-factor.js';
import { Secrets } from './secrets.js';
import type { ServiceSettings } from './settings.js';
import { SessionService, type FoundSession, type SessionEvents } from './sessions.js';
import { ShortLivedCache, type CacheLookups } from './short-lived-cache.js';
import { SignInService } from './signin.js';
import { callerAddressThrottle, SignInThrottle } from './throttle.js';

export interface Services {
  callers: CallerService;
  members: MemberService;
  sessions: SessionService;
  secondFactor: SecondFactorService;
  account: AccountService;
  authentication: AuthenticationService;
  signin: SignInService;
  returnUrls: ReturnUrlPolicy;
  /** How often each call-path cache (CACHE_TTL_MS) answered, and how often it went to the store. */
  cacheLookups(): Record<CallPathCache, CacheLookups>;
}

/** The caches on the call path: security passwords, sessions, and caller addresses' throttle states. */
export type CallPathCache = 'callers' | 'sessions' | 'caller_throttle';

export type { SessionEvents } from './sessions.js';
export type { ServiceSettings, SigninSettings } from './settings.js';
export type { CacheLookups } from './short-lived-cache.js';
/** The records the services hand out, as the store keeps them. */
export type { MemberAttributes, MemberRow, SessionRow } from '../store/store.js';

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
}): Services {
  const { store, settings } = options;
  const clock = options.clock ?? systemClock;
  const secrets = new Secrets(options.secretKey);
  const caches = {
    callers: new ShortLivedCache<CallerRow>(settings.cacheTtlMs),
    sessions: new ShortLivedCache<FoundSession>(settings.cacheTtlMs),
    caller_throttle: new ShortLivedCache<{ lockedUntil: number | null }>(settings.cacheTtlMs),
  };
  const callers = new CallerService(store, secrets, clock, caches.callers);
  const sessions = new SessionService(store, secrets, settings.session, clock, caches.sessions, options.events);
  const throttle = callerAddressThrottle(store, settings.callerThrottle, caches.caller_throttle);
  const signinThrottle = new SignInThrottle(store, settings.signin.throttle);
  const secondFactor = new SecondFactorService(store, secrets, clock, settings.signin.totpIssuer);
  const signIn = new SignInService(store, sessions, signinThrottle, secrets, clock, secondFactor, settings.signin.mfa);
  const members = new MemberService(store, clock, sessions, settings.memberIdFormat);
  return {
    callers,
    members,
    sessions,
    secondFactor,
    account: new AccountService(store, members, sessions, secondFactor, signinThrottle, clock),
    authentication: new AuthenticationService(callers, sessions, signIn, throttle, clock),
    signin: signIn,
    returnUrls: new ReturnUrlPolicy(store, settings.signin.defaultReturnPath),
    cacheLookups: () => ({ callers: caches.callers.lookups, sessions: caches.sessions.lookups, caller_throttle: caches.caller_throttle.lookups }),
  };
}
