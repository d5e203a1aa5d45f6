import type { CallerThrottleConfig, SigninConfig } from '../config/config.js';
import { loadConfig } from '../config/config.js';
import type { CallerRow, Store } from '../store/store.js';
import { AccountService } from './account.js';
import { AuthenticationService } from './authentication.js';
import { CallerService } from './callers.js';
import { systemClock, type Clock } from './clock.js';
import { MemberService, type MemberIdFormat } from './members.js';
import { ReturnUrlPolicy } from './return-urls.js';
import { SecondFactorService } from './second-factor.js';
import { Secrets } from './secrets.js';
import { SessionService, type FoundSession, type SessionEvents, type SessionPolicy } from './sessions.js';
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
export type { CacheLookups } from './short-lived-cache.js';
/** The records the services hand out, as the store keeps them. */
export type { MemberAttributes, MemberRow, SessionRow } from '../store/store.js';

/**
 * What the sign-in services read from the configuration; without `mfa` second factors are optional, and the
 * issuer authenticator apps show is the branding's organization name.
 */
export type SigninPolicy = Pick<SigninConfig, 'defaultReturnPath' | 'throttle'> & Partial<Pick<SigninConfig, 'mfa' | 'branding'>>;

/**
 * Wires the services over one store; the entry points (server, CLI, tests) call this once. Without `signin`
 * or `callerThrottle`, those services take the configuration's defaults (the admin commands never sign
 * anybody in nor authenticate a call). `events` hears of sessions created and revoked (the server counts
 * them in its metrics).
 */
export function createServices(options: {
  store: Store;
  secretKey: Buffer;
  session: SessionPolicy;
  signin?: SigninPolicy;
  /** Failed security passwords per client address (CALLER_MAX_FAILURES_PER_ADDRESS and the rest). */
  callerThrottle?: CallerThrottleConfig;
  /**
   * How long store answers on the call path (callers, sessions, caller throttle states) may be reused
   * (CACHE_TTL_MS); 0, the default, reads the store on every call.
   */
  cacheTtlMs?: number;
  clock?: Clock;
  events?: SessionEvents;
  /** What member ids may be (MemberIdFormat); 'any' unless given. */
  memberIdFormat?: MemberIdFormat;
}): Services {
  const clock = options.clock ?? systemClock;
  const signinPolicy = options.signin ?? loadConfig({}).signin;
  const callerThrottle = options.callerThrottle ?? loadConfig({}).callerThrottle;
  const secrets = new Secrets(options.secretKey);
  const ttlMs = options.cacheTtlMs ?? 0;
  const caches = {
    callers: new ShortLivedCache<CallerRow>(ttlMs),
    sessions: new ShortLivedCache<FoundSession>(ttlMs),
    caller_throttle: new ShortLivedCache<{ lockedUntil: number | null }>(ttlMs),
  };
  const callers = new CallerService(options.store, secrets, clock, caches.callers);
  const sessions = new SessionService(options.store, secrets, options.session, clock, options.events, caches.sessions);
  const throttle = callerAddressThrottle(options.store, callerThrottle, caches.caller_throttle);
  const signinThrottle = new SignInThrottle(options.store, signinPolicy.throttle);
  const issuer = signinPolicy.branding?.organizationName ?? loadConfig({}).signin.branding.organizationName;
  const secondFactor = new SecondFactorService(options.store, secrets, clock, issuer);
  const signIn = new SignInService(options.store, sessions, signinThrottle, secrets, clock, secondFactor, signinPolicy.mfa ?? 'optional');
  const members = new MemberService(options.store, clock, sessions, options.memberIdFormat);
  return {
    callers,
    members,
    sessions,
    secondFactor,
    account: new AccountService(options.store, members, sessions, secondFactor, signinThrottle, clock),
    authentication: new AuthenticationService(callers, sessions, signIn, throttle, clock),
    signin: signIn,
    returnUrls: new ReturnUrlPolicy(options.store, signinPolicy.defaultReturnPath),
    cacheLookups: () => ({ callers: caches.callers.lookups, sessions: caches.sessions.lookups, caller_throttle: caches.caller_throttle.lookups }),
  };
}
