import type { CallerThrottleConfig, SigninConfig } from '../config/config.js';
import { loadConfig } from '../config/config.js';
import type { Store } from '../store/store.js';
import { AuthenticationService } from './authentication.js';
import { CallerService } from './callers.js';
import { systemClock, type Clock } from './clock.js';
import { MemberService, type MemberIdFormat } from './members.js';
import { ReturnUrlPolicy } from './return-urls.js';
import { Secrets } from './secrets.js';
import { SessionService, type SessionEvents, type SessionPolicy } from './sessions.js';
import { ShortLivedCache } from './short-lived-cache.js';
import { SignInService } from './signin.js';
import { callerAddressThrottle, SignInThrottle } from './throttle.js';

export interface Services {
  callers: CallerService;
  members: MemberService;
  sessions: SessionService;
  authentication: AuthenticationService;
  signin: SignInService;
  returnUrls: ReturnUrlPolicy;
}

export type { SessionEvents } from './sessions.js';
/** The records the services hand out, as the store keeps them. */
export type { MemberAttributes, MemberRow, SessionRow } from '../store/store.js';

/** What the sign-in services read from the configuration. */
export type SigninPolicy = Pick<SigninConfig, 'defaultReturnPath' | 'throttle'>;

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
  const callers = new CallerService(options.store, secrets, clock, new ShortLivedCache(ttlMs));
  const sessions = new SessionService(options.store, secrets, options.session, clock, options.events, new ShortLivedCache(ttlMs));
  const throttle = callerAddressThrottle(options.store, callerThrottle, new ShortLivedCache(ttlMs));
  const signIn = new SignInService(options.store, sessions, new SignInThrottle(options.store, signinPolicy.throttle), secrets, clock);
  return {
    callers,
    members: new MemberService(options.store, clock, sessions, options.memberIdFormat),
    sessions,
    authentication: new AuthenticationService(callers, sessions, signIn, throttle, clock),
    signin: signIn,
    returnUrls: new ReturnUrlPolicy(options.store, signinPolicy.defaultReturnPath),
  };
}
