import type { Store } from '../store/store.js';
import { AuthenticationService } from './authentication.js';
import { CallerService } from './callers.js';
import { systemClock, type Clock } from './clock.js';
import { MemberService } from './members.js';
import { Secrets } from './secrets.js';
import { SessionService, type SessionPolicy } from './sessions.js';

export interface Services {
  callers: CallerService;
  members: MemberService;
  sessions: SessionService;
  authentication: AuthenticationService;
}

/** Wires the services over one store; the entry points (server, CLI, tests) call this once. */
export function createServices(options: { store: Store; secretKey: Buffer; session: SessionPolicy; clock?: Clock }): Services {
  const clock = options.clock ?? systemClock;
  const secrets = new Secrets(options.secretKey);
  const callers = new CallerService(options.store, secrets, clock);
  const sessions = new SessionService(options.store, secrets, options.session, clock);
  return {
    callers,
    members: new MemberService(options.store, clock),
    sessions,
    authentication: new AuthenticationService(callers, sessions),
  };
}
