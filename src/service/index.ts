import type { SigninConfig } from '../config/config.js';
import { loadConfig } from '../config/config.js';
import type { Store } from '../store/store.js';
import { AuthenticationService } from './authentication.js';
import { CallerService } from './callers.js';
import { systemClock, type Clock } from './clock.js';
import { MemberService } from './members.js';
import { ReturnUrlPolicy } from './return-urls.js';
import { Secrets } from './secrets.js';
import { SessionService, type SessionEvents, type SessionPolicy } from './sessions.js';
import { SignInService } from './signin.js';
import { SignInThrottle } from './throttle.js';

export interface Services {
  callers: CallerService;
  members: MemberService;
  sessions: SessionService;
  authentication: AuthenticationService;
  signin: SignInService;
  returnUrls: ReturnUrlPolicy;
}

export type { SessionEvents } from './sessions.js';

/** What the sign-in services read from the configuration. */
export type SigninPolicy = Pick<SigninConfig, 'defaultReturnPath' | 'throttle'>;

/**
 * Wires the services over one store; the entry points (server, CLI, tests) call this once. Without `signin`,
 * the sign-in services take the configuration's defaults (the admin commands never sign anybody in). `events`
 * hears of sessions created and revoked (the server counts them in its metrics).
 */
export function createServices(options: {
  store: Store;
  secretKey: Buffer;
  session: SessionPolicy;
  signin?: SigninPolicy;
  clock?: Clock;
  events?: SessionEvents;
}): Services {
  const clock = options.clock ?? systemClock;
  const signin = options.signin ?? loadConfig({}).signin;
  const secrets = new Secrets(options.secretKey);
  const callers = new CallerService(options.store, secrets, clock);
  const sessions = new SessionService(options.store, secrets, options.session, clock, options.events);
  return {
    callers,
    members: new MemberService(options.store, clock),
    sessions,
    authentication: new AuthenticationService(callers, sessions),
    signin: new SignInService(options.store, sessions, new SignInThrottle(options.store, signin.throttle), secrets, clock),
    returnUrls: new ReturnUrlPolicy(options.store, signin.defaultReturnPath),
  };
}
